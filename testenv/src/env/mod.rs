//! [`TestEnv`]: an API server for one test (embedded; on request a private control plane of
//! real binaries, or an existing cluster), with a ready client, a kubeconfig file and the
//! caller's CRDs installed.

mod backend;
mod binaries;
mod crds;
mod embedded;
mod existing;
mod identities;
mod mode;
mod webhooks;

use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use backend::{Backend, Kind, Started};

use crate::Error;
use crate::endpoints::{ApiOptions, Policy};
pub use binaries::{ASSETS_VAR, Binaries, CONTROLLER_MANAGER_VAR};
pub use crds::{CrdSource, load as load_crds};
pub use embedded::install_crds;
pub use mode::{MODE_VAR, Mode};

// `TestEnv::faults`, kept apart from the module list above.
mod faults;

/// Configures and starts a [`TestEnv`].
#[derive(Default)]
pub struct TestEnvBuilder {
    crds: Vec<CrdSource>,
    options: ApiOptions,
    mode: Option<Mode>,
    feature_gates: Vec<(String, bool)>,
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

    /// How tokens are authenticated and TokenReview and SubjectAccessReview answered. A real
    /// API server (binaries or existing mode) has its own authentication and RBAC: there the
    /// default policy ([`Policy::rbac`]) is what it does anyway, and a policy with its own
    /// functions or [`Policy::allow_all`] makes `start` fail with
    /// [`Error::PolicyNeedsEmbedded`].
    pub fn policy(mut self, policy: Policy) -> Self {
        self.options.policy = policy;
        self
    }

    /// The most events the embedded server keeps for each resource's watches (default
    /// 102 400, kube-apiserver's cacher's bound). As on a real server, each resource has its
    /// own watch cache, initialised once the server has started (a custom resource: at its
    /// first request, and again after its CRD's spec changes): it keeps at least 100 events
    /// and every event of the last 75 seconds up to this bound, and a watch from a
    /// resourceVersion older than the events it holds gets 410 Expired, "too old resource
    /// version: <asked> (<oldest one to watch from>)". The same bound applies to each
    /// resource's history that lists at a past resourceVersion (`resourceVersionMatch=Exact`,
    /// continue tokens) read, which a real server keeps in etcd for 5 to 10 minutes whatever
    /// the count (compacted every 5 minutes here too). Embedded server only.
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

    /// Turns a feature gate of the embedded server on or off, by kube-apiserver's name for it
    /// (`ShardedListAndWatch`: lists and watches honour `shardSelector`). Every gate is off by
    /// default, as on a real server; an unknown name fails `start`. A real cluster
    /// (binaries or existing mode) keeps its own gates.
    pub fn feature_gate(mut self, name: &str, enabled: bool) -> Self {
        self.feature_gates.push((name.to_string(), enabled));
        self
    }

    /// Runs against `mode` whatever `KUBEFORGE_TEST_CLUSTER` says (by default the
    /// environment variable decides).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = Some(mode);
        self
    }

    /// Starts the environment of the builder's mode, else the one selected by
    /// `KUBEFORGE_TEST_CLUSTER`.
    pub async fn start(mut self) -> Result<TestEnv, Error> {
        let crds = crds::load(&self.crds)?;
        for (name, enabled) in &self.feature_gates {
            self.options
                .feature_gates
                .set(name, *enabled)
                .map_err(Error::FeatureGate)?;
        }
        let mode = match self.mode {
            Some(mode) => mode,
            None => Mode::from_env()?,
        };
        let started = match mode {
            Mode::Embedded => embedded::start(self.options, crds).await?,
            Mode::Existing | Mode::Binaries(_) if !self.options.service_routes.is_empty() => {
                return Err(backend::routes_need_embedded(&self.options.service_routes));
            }
            Mode::Existing | Mode::Binaries(_) if self.options.policy.needs_embedded() => {
                return Err(Error::PolicyNeedsEmbedded(mode.name()));
            }
            Mode::Existing => existing::start(crds).await?,
            Mode::Binaries(binaries) => binaries::start(&binaries, crds).await?,
        };
        Ok(TestEnv::from(started))
    }
}

/// A running test API server (or a namespace in an existing cluster).
///
/// Dropping it stops the embedded server, or deletes the test namespace in real-cluster mode.
pub struct TestEnv {
    backend: Box<dyn Backend>,
    client: kube::Client,
    kubeconfig_path: PathBuf,
    namespace: String,
}

impl From<Started> for TestEnv {
    fn from(started: Started) -> Self {
        TestEnv {
            backend: started.backend,
            client: started.client,
            kubeconfig_path: started.kubeconfig_path,
            namespace: started.namespace,
        }
    }
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
    /// namespace per environment on a private control plane or an existing cluster.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The server's base URL.
    pub fn url(&self) -> String {
        self.backend.url()
    }

    /// Whether this environment runs against an existing cluster (`KUBECONFIG`'s, which
    /// may be remote: a webhook in the test process is not necessarily reachable from it).
    pub fn is_existing_cluster(&self) -> bool {
        self.backend.kind() == Kind::Existing
    }

    /// Whether this environment is a namespace of a real kube-apiserver shared with other
    /// environments (binaries or existing-cluster mode), rather than an embedded server of
    /// its own: cluster-scoped objects are seen by the other environments, and there is no
    /// fault injection or service routing.
    pub fn is_real_cluster(&self) -> bool {
        self.backend.kind() != Kind::Embedded
    }

    /// The mode this environment runs in (`embedded`, `binaries` or `existing`, as
    /// `KUBEFORGE_TEST_CLUSTER` spells it).
    pub fn mode_name(&self) -> &'static str {
        self.backend.kind().name()
    }
}
