//! Binaries mode (`KUBEFORGE_TEST_CLUSTER=binaries`): a private control plane of real
//! etcd, kube-apiserver and kube-controller-manager binaries, found as envtest finds them
//! (`KUBEBUILDER_ASSETS`), started once per test process and shared by its environments the
//! way real-cluster mode shares a cluster: a namespace per environment, CRDs installed and
//! released through the same code.

mod components;
mod config;
mod pki;
mod plane;
mod processes;

use serde_json::Value;

use super::backend::{Kind, Started};
use super::existing;
use crate::Error;
pub use config::{ASSETS_VAR, Binaries, CONTROLLER_MANAGER_VAR};

/// Starts (or reuses) the process's control plane for `binaries` and sets up an
/// environment in it.
pub async fn start(binaries: &Binaries, crds: Vec<Value>) -> Result<Started, Error> {
    let resolved = binaries.resolve()?;
    let plane = plane::shared(&resolved).await?;
    plane.check()?;
    let accounts = resolved.kube_controller_manager.is_some();
    existing::connect(plane.kubeconfig.clone(), crds, Kind::Binaries, accounts).await
}
