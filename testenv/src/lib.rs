//! kubeforge-testenv: an embedded Kubernetes API server for tests and local runs.
//!
//! (crate documentation is completed as the modules land)

pub mod defaults;
pub mod dev_server;
pub mod patch;
pub mod schema;
