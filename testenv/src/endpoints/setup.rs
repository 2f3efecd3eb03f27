//! A fresh API server: the built-in resources, an empty store, the namespaces every cluster
//! starts with, and the controllers the layer above hands in.

use std::sync::Arc;

use super::create;
use super::hooks::Controllers;
use super::state::{Api, ApiOptions, Cluster};
use crate::registry::Registry;
use crate::storage::Store;

impl Api {
    /// The server listens on `addr`: the controllers make what points at it (the
    /// `kubernetes` Service).
    pub fn serving(&self, addr: std::net::SocketAddr) {
        let mut cluster = self.lock();
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
        };
        create::bootstrap(&mut cluster);
        let controllers = cluster.controllers.clone();
        controllers.started(&mut cluster);
        cluster.store.compact();
        Api::with_cluster(cluster, options)
    }
}
