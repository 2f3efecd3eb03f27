//! [`WebhookError`]: why the webhook server could not start or keep serving.

use std::path::PathBuf;

/// Why the webhook server (or its certificates) failed.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// A certificate or key file could not be read or parsed.
    #[error("webhook certificate {path}: {source}")]
    Certificate {
        /// The file that failed.
        path: PathBuf,
        /// What was wrong with it.
        #[source]
        source: rustls_pki_types::pem::Error,
    },
    /// The certificate and key in `dir` do not form a usable pair, or TLS could not be
    /// configured.
    #[error("webhook TLS setup failed for {}: {source}", dir.display())]
    Tls {
        /// The certificate directory.
        dir: PathBuf,
        /// What rustls refused.
        #[source]
        source: rustls::Error,
    },
    /// A self-signed certificate could not be generated.
    #[error("generating a webhook certificate failed: {0}")]
    Generate(#[source] rcgen::Error),
    /// A generated certificate could not be written.
    #[error("writing the webhook certificate {path}: {source}")]
    Write {
        /// The file or directory that could not be written.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The server could not listen on its address.
    #[error("webhook server could not listen on {address}: {source}")]
    Bind {
        /// The address it tried.
        address: std::net::SocketAddr,
        /// The socket error.
        #[source]
        source: std::io::Error,
    },
    /// The options ask for HTTP/2, which this build cannot do (no `http2` feature).
    #[error(transparent)]
    Http2Unavailable(#[from] crate::server::conn::Http2Unavailable),
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
