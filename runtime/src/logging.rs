//! Logging set-up: tracing with human or JSON output, chosen by the manager flags.
//!
//! Every reconcile runs in a `reconcile` span carrying `controller`, `namespace`, `object` (the
//! object's name; `name` is taken by the span's own name in JSON output) and a `reconcile_id`,
//! so each log line of a reconcile can be found and correlated.

use tracing_subscriber::{EnvFilter, fmt};

use crate::manager::{LogFormat, ManagerArgs};

/// Initialises the global tracing subscriber from the flags (`--log-format`, `--log-level`,
/// `--zap-devel`). `RUST_LOG`, when set, overrides the level. Calling it twice is harmless.
pub fn init(args: &ManagerArgs) {
    let level = if args.zap_devel && args.log_level == "info" {
        "debug"
    } else {
        args.log_level.as_str()
    };
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(level))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    let result = match args.log_format {
        LogFormat::Json => fmt()
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .with_env_filter(filter)
            .try_init(),
        LogFormat::Human => fmt().with_env_filter(filter).try_init(),
    };
    if result.is_err() {
        tracing::debug!("a global tracing subscriber was already installed");
    }
}
