//! The URL paths webhooks are served at, named as controller-runtime names them so the
//! generated `config/webhook/manifests.yaml` and the server agree.

/// `/mutate-<group with dots as dashes>-<version>-<lowercase kind>`; the core group (`""`)
/// gives `/mutate--v1-pod`, exactly as controller-runtime's `generateMutatePath`.
pub fn mutate_path(group: &str, version: &str, kind: &str) -> String {
    path("mutate", group, version, kind)
}

/// `/validate-<group with dots as dashes>-<version>-<lowercase kind>` (see [`mutate_path`]).
pub fn validate_path(group: &str, version: &str, kind: &str) -> String {
    path("validate", group, version, kind)
}

/// The path of the CRD conversion webhook, shared by every converted kind.
pub const CONVERT_PATH: &str = "/convert";

fn path(prefix: &str, group: &str, version: &str, kind: &str) -> String {
    format!(
        "/{prefix}-{}-{version}-{}",
        group.replace('.', "-"),
        kind.to_lowercase()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_controller_runtime() {
        assert_eq!(
            mutate_path("cache.example.com", "v1alpha1", "Memcached"),
            "/mutate-cache-example-com-v1alpha1-memcached"
        );
        assert_eq!(
            validate_path("batch", "v1", "CronJob"),
            "/validate-batch-v1-cronjob"
        );
        assert_eq!(mutate_path("", "v1", "Pod"), "/mutate--v1-pod");
    }
}
