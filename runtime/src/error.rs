//! The crate-level error returned by [`Manager::run`](crate::Manager::run) and friends.

use std::time::Duration;

/// Why the manager (or one of its parts) stopped with a failure.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A watched kind is not served by the API server (typically: its CRD is not installed).
    #[error(
        "kind {kind} is not served by the API server (is its CustomResourceDefinition installed?): {message}"
    )]
    KindNotServed {
        /// `group/version/Kind` of the missing kind.
        kind: String,
        /// The API server's answer.
        message: String,
    },
    /// A cache did not finish its initial list within the configured timeout.
    #[error("cache for {kind} did not sync within {timeout:?}{}", last_error.as_ref().map(|e| format!(" (last error: {e})")).unwrap_or_default())]
    CacheSyncTimeout {
        /// `group/version/Kind` of the kind.
        kind: String,
        /// The configured sync timeout.
        timeout: Duration,
        /// The last watch error seen while waiting, if any.
        last_error: Option<String>,
    },
    /// This replica held the leader lease and lost it; the process should exit non-zero.
    #[error("leader election lost: {0}")]
    LeaderElectionLost(String),
    /// Talking to the API server about the lease failed in a way that cannot be retried.
    #[error("leader election failed: {0}")]
    LeaderElection(#[source] kube::Error),
    /// An HTTP server (probes or metrics) could not start.
    #[error("{what} server could not listen on {address}: {source}")]
    Bind {
        /// Which server ("metrics", "health probe").
        what: &'static str,
        /// The address it tried.
        address: String,
        /// The socket error.
        #[source]
        source: std::io::Error,
    },
    /// Invalid configuration (bind address, certificates, ...).
    #[error("invalid configuration: {0}")]
    Config(String),
    /// TLS set-up for the metrics server failed.
    #[error("TLS setup failed: {0}")]
    Tls(String),
    /// A runnable (controller) stopped with an error.
    #[error("runnable {name} failed: {message}")]
    Runnable {
        /// The runnable's name.
        name: String,
        /// What went wrong.
        message: String,
    },
    /// Running reconciles did not finish within the graceful shutdown timeout.
    #[error("graceful shutdown timed out after {0:?} with work still running")]
    ShutdownTimeout(Duration),
    /// A request to the API server failed.
    #[error(transparent)]
    Kube(#[from] kube::Error),
}
