//! [`WebhookError`]: why the webhook server could not start or keep serving.

use std::path::PathBuf;

/// Why the webhook server (or its certificates) failed.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// A certificate or key file could not be read or parsed.
    #[error("webhook certificate {path}: {message}")]
    Certificate {
        /// The file that failed.
        path: PathBuf,
        /// What was wrong with it.
        message: String,
    },
    /// The certificate and key do not form a usable pair, or TLS could not be configured.
    #[error("webhook TLS setup failed: {0}")]
    Tls(String),
    /// A self-signed certificate could not be generated or written.
    #[error("generating a webhook certificate failed: {0}")]
    Generate(String),
    /// The server could not listen on its address.
    #[error("webhook server could not listen on {address}: {source}")]
    Bind {
        /// The address it tried.
        address: std::net::SocketAddr,
        /// The socket error.
        #[source]
        source: std::io::Error,
    },
    /// The options ask for something this build cannot do (HTTP/2 without the `http2` feature).
    #[error("webhook server options: {0}")]
    Options(String),
    /// Two handlers were registered for the same path.
    #[error("two webhooks registered for path {0}")]
    DuplicatePath(String),
    /// Installing (or removing) the local webhook configurations in the API server failed.
    #[error("installing the local webhooks: {what}: {source}")]
    Install {
        /// What was being written (`MutatingWebhookConfiguration mutating-webhook-configuration`).
        what: String,
        /// The API server's answer.
        #[source]
        source: kube::Error,
    },
    /// A converted kind's CRD is not in the API server, so its conversion cannot be pointed at
    /// the local server.
    #[error(
        "the CRD {0} is not installed in the API server: install the CRDs first (`make install`, or TestEnv::builder().crds_from_dir(\"config/crd/bases\"))"
    )]
    CrdMissing(String),
}

impl From<WebhookError> for crate::Error {
    fn from(e: WebhookError) -> Self {
        crate::Error::Runnable {
            name: "webhook-server".into(),
            message: e.to_string(),
        }
    }
}
