//! The crate's error type at its public boundary.

use std::path::PathBuf;

/// The cause an [`Error`] keeps: kube's own error types, or a sentence where there is none.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why a test environment could not be started, configured or used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Generating the CA or server certificate failed.
    #[error("could not generate the TLS certificates of the test API server: {0}")]
    Certificate(#[source] BoxError),
    /// Binding the listening socket failed.
    #[error("could not listen on 127.0.0.1:{port}: {source}")]
    Bind {
        /// The port asked for (0 = random).
        port: u16,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// Writing the kubeconfig or certificate files failed.
    #[error("could not write {path}: {source}")]
    Write {
        /// The file that could not be written.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// Reading a CRD file or directory failed.
    #[error("could not read {path}: {source}")]
    Read {
        /// The file or directory that could not be read.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// A CRD given as YAML or as a typed object could not be parsed, or is not a CRD.
    #[error("invalid CustomResourceDefinition {origin}: {message}{}", suffix(.source.as_ref()))]
    InvalidCrd {
        /// Where the CRD came from (file name, "YAML document 2", ...).
        origin: String,
        /// What is wrong with it.
        message: String,
        /// The parser's error (YAML or JSON), when a parser failed; none when the document
        /// parsed but is not a CRD.
        #[source]
        source: Option<BoxError>,
    },
    /// The API server refused to install a CRD (for example a non-structural schema).
    #[error("the API server refused CustomResourceDefinition {name}: {source}")]
    CrdRejected {
        /// The CRD's name.
        name: String,
        /// The server's answer (a 422 Invalid with causes, usually): kube's error from a real
        /// API server, the embedded server's own error from the embedded one.
        #[source]
        source: BoxError,
    },
    /// A feature gate the embedded server does not know, or a malformed `--feature-gates`.
    #[error("{0}")]
    FeatureGate(String),
    /// Building the kube client from the kubeconfig failed (reading it, resolving it, or
    /// making the client); the cause is kube's error.
    #[error("could not build a kube client: {0}")]
    Client(#[source] BoxError),
    /// A service account for [`TestEnv::service_account_client`](crate::TestEnv::service_account_client)
    /// could not be created, or its token not requested; the cause is kube's error (the
    /// server's answer).
    #[error(
        "could not get a token for service account {namespace}/{name} (creating the account, then a TokenRequest on serviceaccounts/{name}/token): {source}"
    )]
    ServiceAccountToken {
        /// The account's namespace.
        namespace: String,
        /// The account's name.
        name: String,
        /// kube's error.
        #[source]
        source: BoxError,
    },
    /// Real-cluster mode: a call to the existing cluster failed (kube's error as the cause), or
    /// it did not reach the state a test needs in time.
    #[error("existing cluster: {0}")]
    Cluster(#[source] BoxError),
    /// Webhook service routes were asked for in real-cluster mode.
    #[error(
        "route_service({0}) only applies to the embedded API server: a real cluster resolves webhook services through its own network; deploy the webhook as that Service, or use clientConfig.url with an address the cluster can reach (KUBEFORGE_TEST_WEBHOOK_HOST)"
    )]
    RouteNeedsEmbedded(String),
    /// A policy with its own authentication or authorization functions, or
    /// `Policy::allow_all()`, was asked for while running against a real kube-apiserver,
    /// which authorizes with RBAC and cannot call them.
    #[error(
        "the policy given to TestEnv::builder().policy(..) has its own authenticate/authorize functions or allows everything (Policy::allow_all()), which only the embedded test API server can do, but this environment uses a real API server (KUBEFORGE_TEST_CLUSTER={0}): pin the test to the embedded server with .mode(Mode::Embedded), or use Policy::rbac() with real ServiceAccount tokens, which both kinds of server understand"
    )]
    PolicyNeedsEmbedded(&'static str),
    /// `KUBEFORGE_TEST_CLUSTER` has a value this crate does not know.
    #[error(
        "KUBEFORGE_TEST_CLUSTER={0} is not understood: use `binaries` (with KUBEBUILDER_ASSETS), `existing` (with KUBECONFIG), or leave it unset for the embedded server"
    )]
    UnknownMode(String),
    /// Fault injection was asked for while running against a real kube-apiserver.
    #[error(
        "fault injection needs the embedded test API server, but this environment uses the real API server at {url} (KUBEFORGE_TEST_CLUSTER={mode}): unset KUBEFORGE_TEST_CLUSTER to run this test, or skip it against a real API server"
    )]
    FaultsUnavailable {
        /// The real API server's URL.
        url: String,
        /// The environment's mode (`binaries` or `existing`).
        mode: &'static str,
    },
    /// Binaries mode: etcd or kube-apiserver was not found.
    #[error(
        "{name} not found at {path} (looked there because of {origin}): set KUBEBUILDER_ASSETS to a directory holding etcd and kube-apiserver (and optionally kube-controller-manager), for example the one `setup-envtest use -p path` prints"
    )]
    BinaryNotFound {
        /// The binary's name.
        name: &'static str,
        /// Where it was looked for.
        path: PathBuf,
        /// Why there (the variable or directory that named it).
        origin: String,
    },
    /// Binaries mode: the private control plane did not start, or one of its processes
    /// stopped.
    #[error(
        "the test control plane (KUBEFORGE_TEST_CLUSTER=binaries): {message}{}",
        suffix(.source.as_ref())
    )]
    ControlPlane {
        /// What failed (with the end of a component's log when one stopped).
        message: String,
        /// The underlying error: the I/O error of starting or watching a process. None when
        /// a component stopped or was not ready in time (the message has the end of its
        /// log), when no free port was found, and when an earlier start of the process's
        /// shared control plane failed (the message repeats that failure).
        #[source]
        source: Option<BoxError>,
    },
}

/// `": <source>"`, or nothing without a source: an optional cause named in a message.
fn suffix(source: Option<&BoxError>) -> String {
    source.map(|e| format!(": {e}")).unwrap_or_default()
}

impl Error {
    /// [`Error::ControlPlane`] without an underlying error.
    pub(crate) fn control_plane(message: impl Into<String>) -> Self {
        Error::ControlPlane {
            message: message.into(),
            source: None,
        }
    }

    /// [`Error::ControlPlane`] caused by `source`.
    pub(crate) fn control_plane_by(
        message: impl Into<String>,
        source: impl Into<BoxError>,
    ) -> Self {
        Error::ControlPlane {
            message: message.into(),
            source: Some(source.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Error;
    use std::error::Error as _;

    #[test]
    fn an_invalid_crd_keeps_the_parsers_error_when_there_is_one() {
        let parse = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let text = parse.to_string();
        let err = Error::InvalidCrd {
            origin: "crd.yaml".into(),
            message: "not valid JSON".into(),
            source: Some(parse.into()),
        };
        assert!(
            err.source()
                .and_then(|e| e.downcast_ref::<serde_json::Error>())
                .is_some_and(serde_json::Error::is_eof)
        );
        assert_eq!(
            err.to_string(),
            format!("invalid CustomResourceDefinition crd.yaml: not valid JSON: {text}")
        );
        let not_a_crd = Error::InvalidCrd {
            origin: "crd.yaml".into(),
            message: "expected kind CustomResourceDefinition".into(),
            source: None,
        };
        assert!(not_a_crd.source().is_none());
        assert_eq!(
            not_a_crd.to_string(),
            "invalid CustomResourceDefinition crd.yaml: expected kind CustomResourceDefinition"
        );
    }

    #[test]
    fn a_rejected_crd_keeps_the_servers_answer() {
        let status =
            kube::core::Status::failure("spec.versions: Required value", "Invalid").with_code(422);
        let err = Error::CrdRejected {
            name: "widgets.test.kubeforge.dev".into(),
            source: kube::Error::Api(Box::new(status)).into(),
        };
        let source = err
            .source()
            .and_then(|e| e.downcast_ref::<kube::Error>())
            .expect("kube's error is the source");
        assert!(
            matches!(source, kube::Error::Api(s) if s.code == 422),
            "{source:?}"
        );
    }

    #[test]
    fn a_control_plane_failure_keeps_the_io_error_when_there_is_one() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let err = Error::control_plane_by("could not start etcd", io);
        let source = err
            .source()
            .and_then(|e| e.downcast_ref::<std::io::Error>())
            .expect("the I/O error is the source");
        assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(
            err.to_string(),
            "the test control plane (KUBEFORGE_TEST_CLUSTER=binaries): could not start etcd: \
             no such file"
        );
        assert!(Error::control_plane("etcd exited").source().is_none());
    }
}
