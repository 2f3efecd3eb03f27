//! The identity a replica takes part in leader election and sharding under.

/// `<hostname>_<random>`, like controller-runtime's default identity.
pub fn default_identity() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_string())
        })
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    format!("{host}_{:016x}", fastrand::u64(..))
}
