//! kubeforge-testenv: an embedded Kubernetes API server for tests and local runs.
//!
//! [`TestEnv`] starts an API server inside the test process, on 127.0.0.1 with a random port
//! and HTTPS from a generated CA, and hands out a ready [`kube::Client`] and a kubeconfig file
//! that kubectl accepts. It speaks the real REST protocol (discovery, CRUD, status and scale
//! subresources, optimistic concurrency, finalizers, selectors, pagination, watches with
//! bookmarks and 410 Gone, merge/JSON/strategic patches, Table output), so operator code is
//! tested exactly as it runs against a cluster, offline and in milliseconds.
//!
//! ```no_run
//! # async fn demo() -> Result<(), kubeforge_testenv::Error> {
//! use kubeforge_testenv::TestEnv;
//! let env = TestEnv::builder()
//!     .crd_yaml(std::fs::read_to_string("config/crd/bases/cache.example.com_memcacheds.yaml").unwrap())
//!     .start()
//!     .await?;
//! let client: kube::Client = env.client();
//! let namespace = env.namespace();
//! # let _ = (client, namespace);
//! # Ok(()) }
//! ```
//!
//! With `KUBEFORGE_TEST_CLUSTER=existing` the same calls run against the cluster of
//! `KUBECONFIG`: CRDs are applied there, each environment gets its own namespace, and the
//! namespace is deleted when the environment is dropped. With `KUBEFORGE_TEST_CLUSTER=binaries`
//! they run against a private control plane of real binaries (`KUBEBUILDER_ASSETS`, envtest's
//! convention), started once per test process: see [`Mode`].
//!
//! [`dev_server::run`] serves the same API standalone (`kubeforge dev-server`), so an operator
//! can be developed with `make run` and kubectl without any cluster.
//!
//! The crate's README lists what is implemented, what is not yet, and the benchmark figures
//! (start-to-ready in about 2 ms against envtest's 5 to 7 s).

mod admission;
mod controllers;
pub mod dev_server;
mod discovery;
mod endpoints;
mod env;
pub mod openapi;
mod registry;
mod server;
mod storage;
mod support;

pub use admission::defaults;
pub use endpoints::policy::{Policy, UserInfo};
pub use env::{
    ASSETS_VAR, Binaries, CONTROLLER_MANAGER_VAR, MODE_VAR, Mode, TestEnv, TestEnvBuilder,
};
pub use registry::schema;
pub use support::error::Error;
pub use support::patch;
pub use support::status::ApiError;

// Fault injection for tests (`TestEnv::faults`), kept apart from the module list above.
pub mod faults;
