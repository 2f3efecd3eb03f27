//! [`TestEnv`]: an API server for one test (embedded, or an existing cluster on request),
//! with a ready client, a kubeconfig file and the caller's CRDs installed.

mod crds;
mod embedded;
mod existing;
mod webhooks;

use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::Error;
use crate::rest::{ApiOptions, Policy};
pub use crds::{CrdSource, load as load_crds};
pub use embedded::install_crds;

/// Environment variable selecting where tests run: unset (or `embedded`) for the in-process
/// server, `existing` for the cluster of `KUBECONFIG`.
pub const MODE_VAR: &str = "KUBEFORGE_TEST_CLUSTER";

/// Configures and starts a [`TestEnv`].
#[derive(Default)]
pub struct TestEnvBuilder {
    crds: Vec<CrdSource>,
    options: ApiOptions,
}

impl TestEnvBuilder {
    /// Installs a typed CRD (for example `MyKind::crd()`); it is Established before
    /// `start` returns.
    pub fn crd(mut self, crd: CustomResourceDefinition) -> Self {
        self.crds.push(CrdSource::Typed(Box::new(crd)));
        self
    }

    /// Installs every CRD in one or more YAML documents.
    pub fn crd_yaml(mut self, yaml: impl Into<String>) -> Self {
        self.crds.push(CrdSource::Yaml {
            origin: format!("YAML source {}", self.crds.len() + 1),
            text: yaml.into(),
        });
        self
    }

    /// Installs the CRDs of every `*.yaml`/`*.yml` file in a directory (not recursive).
    pub fn crds_from_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.crds.push(CrdSource::Dir(dir.as_ref().to_path_buf()));
        self
    }

    /// How TokenReview and SubjectAccessReview are answered (embedded server only).
    pub fn policy(mut self, policy: Policy) -> Self {
        self.options.policy = policy;
        self
    }

    /// How many events watches can resume from before 410 Gone (embedded server only;
    /// default 10 000).
    pub fn watch_history(mut self, events: usize) -> Self {
        self.options.history_limit = events;
        self
    }

    /// Interval of watch bookmarks for clients that allow them (embedded server only;
    /// default 60 s like kube-apiserver).
    pub fn bookmark_interval(mut self, interval: Duration) -> Self {
        self.options.bookmark_interval = interval;
        self
    }

    /// Starts the environment selected by `KUBEFORGE_TEST_CLUSTER`.
    pub async fn start(self) -> Result<TestEnv, Error> {
        let crds = crds::load(&self.crds)?;
        match std::env::var(MODE_VAR).ok().as_deref() {
            None | Some("") | Some("embedded") => embedded::start(self.options, crds).await,
            Some("existing") if !self.options.service_routes.is_empty() => {
                Err(webhooks::routes_need_embedded(&self.options.service_routes))
            }
            Some("existing") => existing::start(crds).await,
            Some(other) => Err(Error::UnknownMode(other.to_string())),
        }
    }
}

enum Backend {
    Embedded(embedded::Embedded),
    Existing(existing::Existing),
}

/// A running test API server (or a namespace in an existing cluster).
///
/// Dropping it stops the embedded server, or deletes the test namespace in real-cluster mode.
pub struct TestEnv {
    backend: Backend,
    client: kube::Client,
    kubeconfig_path: PathBuf,
    namespace: String,
}

impl TestEnv {
    /// A builder to add CRDs and options before starting.
    pub fn builder() -> TestEnvBuilder {
        TestEnvBuilder::default()
    }

    /// Starts an environment with no CRDs: `TestEnv::builder().start()`.
    pub async fn start() -> Result<TestEnv, Error> {
        Self::builder().start().await
    }

    /// A ready client that verifies the server's certificate.
    pub fn client(&self) -> kube::Client {
        self.client.clone()
    }

    /// A kubeconfig file for kubectl and other tools.
    pub fn kubeconfig_path(&self) -> &Path {
        &self.kubeconfig_path
    }

    /// The namespace this test should use: `default` on the embedded server, a fresh
    /// namespace per environment on an existing cluster.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The server's base URL.
    pub fn url(&self) -> String {
        match &self.backend {
            Backend::Embedded(e) => e.server.url(),
            Backend::Existing(e) => e.url.clone(),
        }
    }

    /// Whether this environment runs against an existing cluster.
    pub fn is_existing_cluster(&self) -> bool {
        matches!(self.backend, Backend::Existing(_))
    }
}
