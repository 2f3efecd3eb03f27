//! A fresh API server: the built-in resources, an empty store, the namespaces every cluster
//! starts with, and the controllers the layer above hands in.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::create;
use super::deferred::Deferred;
use super::hooks::Controllers;
use super::state::{Api, ApiOptions, Cluster};
use crate::registry::Registry;
use crate::storage::Store;

impl Api {
    /// The server listens on `addr`: the controllers make what points at it (the
    /// `kubernetes` Service).
    /// `controllers` from then on can defer work ([`Client::later`](super::hooks::Client::later)):
    /// a task runs it when due, for as long as the API lives.
    pub fn serving(self: &Arc<Self>, addr: std::net::SocketAddr) {
        // A restart serves the same address again.
        let _ = self.address.set(addr);
        let mut cluster = self.lock();
        if tokio::runtime::Handle::try_current().is_ok() && cluster.deferred.serve() {
            tokio::spawn(run_deferred(Arc::downgrade(self), cluster.deferred.wake()));
        }
        let controllers = cluster.controllers.clone();
        controllers.serving(&mut *cluster, addr);
    }

    /// A fresh cluster with the bootstrap namespaces (`default`, `kube-system`,
    /// `kube-public`, `kube-node-lease`), telling `controllers` of every change.
    pub fn new(options: ApiOptions, controllers: Arc<dyn Controllers>) -> Arc<Self> {
        let mut cluster = Cluster {
            store: Store::new(options.history_limit),
            registry: Registry::with_builtins(),
            controllers,
            deferred: Deferred::default(),
        };
        create::bootstrap(&mut cluster);
        let controllers = cluster.controllers.clone();
        controllers.started(&mut cluster);
        Api::with_cluster(cluster, options)
    }
}

/// How often the deferred-work task looks whether its API is gone while nothing is due.
const IDLE_CHECK: Duration = Duration::from_secs(1);

/// Runs the controllers' deferred jobs when they are due, each under the cluster's lock, until
/// the API is dropped.
async fn run_deferred(api: Weak<Api>, wake: Arc<Notify>) {
    loop {
        let next = {
            let Some(api) = api.upgrade() else {
                return;
            };
            let mut cluster = api.lock();
            for job in cluster.deferred.take_due(Instant::now()) {
                job(&mut *cluster);
            }
            cluster.deferred.next_due()
        };
        let until = next.unwrap_or_else(|| Instant::now() + IDLE_CHECK);
        tokio::select! {
            () = wake.notified() => {}
            () = tokio::time::sleep_until(until.into()) => {}
        }
    }
}
