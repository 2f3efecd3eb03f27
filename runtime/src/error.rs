//! The crate-level error returned by [`Manager::run`](crate::Manager::run) and friends. Every
//! variant that wraps another failure keeps it as its `source()` (typed, for callers that
//! inspect the chain) and names it in its message (for logs that print only the top error),
//! as kube's own errors do.

use std::{path::PathBuf, sync::Arc, time::Duration};

/// Any error a [`Runnable`](crate::Runnable) may stop with.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why the manager (or one of its parts) stopped with a failure.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A watched kind is not served by the API server (typically: its CRD is not installed).
    #[error(
        "kind {kind} is not served by the API server (is its CustomResourceDefinition installed?): {source}"
    )]
    KindNotServed {
        /// `group/version/Kind` of the missing kind.
        kind: String,
        /// The failed initial list (the API server's 404 answer inside).
        #[source]
        source: Arc<kube::runtime::watcher::Error>,
    },
    /// A cache did not finish its initial list within the configured timeout.
    #[error("cache for {kind} did not sync within {timeout:?}{}", last_error.as_ref().map(|e| format!(" (last error: {e})")).unwrap_or_default())]
    CacheSyncTimeout {
        /// `group/version/Kind` of the kind.
        kind: String,
        /// The configured sync timeout.
        timeout: Duration,
        /// The last watch error seen while waiting, if any.
        #[source]
        last_error: Option<Arc<kube::runtime::watcher::Error>>,
    },
    /// This replica held the leader lease and lost it; the process should exit non-zero.
    #[error("leader election lost: {0}")]
    LeaderElectionLost(#[source] crate::leader_election::lost::LeaseLost),
    /// The sharding options cannot be used (a static shard index out of range, say).
    #[error("invalid sharding options: {0}")]
    ShardConfig(#[from] crate::shard::ShardConfigError),
    /// This replica could not keep its shard membership (its member Lease could not be
    /// renewed in time, or was changed by someone else): it stopped all work, and the process
    /// should exit non-zero.
    #[error("{0}")]
    ShardMembershipLost(#[source] crate::shard::MembershipLost),
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
    /// A bind address flag is not `host:port`, `:port` or `0`.
    #[error(
        "invalid bind address {address:?}: {source} (expected host:port, :port, or 0 to disable)"
    )]
    BindAddress {
        /// The address as given.
        address: String,
        /// Why it does not parse.
        #[source]
        source: std::net::AddrParseError,
    },
    /// `--enable-http2` was given to an operator built without the crate's `http2` feature.
    #[error(transparent)]
    Http2Unavailable(#[from] crate::server::conn::Http2Unavailable),
    /// A certificate or key file of the metrics server could not be read.
    #[error("TLS certificate {path}: {source}")]
    Certificate {
        /// The file that failed.
        path: PathBuf,
        /// What was wrong with it.
        #[source]
        source: rustls_pki_types::pem::Error,
    },
    /// The metrics server's TLS configuration could not be built (a certificate and key that
    /// do not belong together, say).
    #[error("TLS setup of the metrics server failed: {0}")]
    Tls(#[source] rustls::Error),
    /// A self-signed certificate for the metrics server could not be generated.
    #[error("generating a self-signed certificate failed: {0}")]
    SelfSigned(#[source] rcgen::Error),
    /// A cache lookup named a field index that was never registered.
    #[error("no index {index:?} on {kind}: register it with Manager::index_field first")]
    NoSuchIndex {
        /// The index name asked for.
        index: String,
        /// `group/version/Kind` of the kind.
        kind: String,
    },
    /// A state-of-world controller was built without a kind to watch.
    #[error(
        "state-of-world controller {controller:?} watches no kind: add .watches::<K>() (or a .topology(..) naming kinds) to its builder"
    )]
    NoWatchedKinds {
        /// The controller's name.
        controller: String,
    },
    /// The webhook server could not start or keep serving.
    #[error(transparent)]
    Webhook(#[from] crate::webhook::WebhookError),
    /// A runnable (controller, server, user task) stopped with an error or panicked.
    #[error("runnable {name} failed: {source}")]
    Runnable {
        /// The runnable's name.
        name: String,
        /// What went wrong.
        #[source]
        source: BoxError,
    },
    /// Running reconciles did not finish within the graceful shutdown timeout.
    #[error("graceful shutdown timed out after {0:?} with work still running")]
    ShutdownTimeout(Duration),
    /// A request to the API server failed.
    #[error(transparent)]
    Kube(#[from] kube::Error),
}

#[cfg(test)]
mod tests {
    use super::Error;
    use kube::runtime::watcher;
    use std::{error::Error as _, sync::Arc};

    #[test]
    fn a_kind_not_served_keeps_the_failed_list_as_its_source() {
        let not_found =
            kube::core::Status::failure("the server could not find it", "NotFound").with_code(404);
        let err = Error::KindNotServed {
            kind: "test.kubeforge.dev/v1/Widget".into(),
            source: Arc::new(watcher::Error::InitialListFailed(kube::Error::Api(
                Box::new(not_found),
            ))),
        };
        let list = err
            .source()
            .and_then(|e| e.downcast_ref::<Arc<watcher::Error>>())
            .expect("the watcher's error is the source");
        assert!(
            matches!(
                list.as_ref(),
                watcher::Error::InitialListFailed(kube::Error::Api(s)) if s.code == 404
            ),
            "{list:?}"
        );
        assert!(
            err.to_string().starts_with(
                "kind test.kubeforge.dev/v1/Widget is not served by the API server (is its \
                 CustomResourceDefinition installed?): "
            ),
            "{err}"
        );
    }
}
