//! The state of one API server, as every handler sees it: the [`Cluster`] (store and served
//! resources, behind one lock), the server's options, and where webhook calls go.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, SystemTime};

use super::deferred::Deferred;
use super::hooks::Controllers;
use super::policy::Policy;
use crate::registry::Registry;
use crate::storage::Store;
use crate::support::features::FeatureGates;
use crate::support::tokens::Signer;
use crate::support::webhook_client::Transport;

/// Everything the server keeps: objects and the resources it serves, and the controllers
/// told of changes to them. Handlers hold its lock for one whole operation.
pub struct Cluster {
    /// Objects, resourceVersions and history.
    pub store: Store,
    /// Served resources (built-ins plus established CRDs).
    pub registry: Registry,
    /// What reacts to writes (garbage collection, namespace and CRD clean-up).
    pub controllers: Arc<dyn Controllers>,
    /// The controllers' work queued for later.
    pub deferred: Deferred,
}

/// Tunables of the API server.
#[derive(Clone)]
pub struct ApiOptions {
    /// How TokenReview and SubjectAccessReview are answered.
    pub policy: Policy,
    /// Interval between watch bookmarks when clients ask for them.
    pub bookmark_interval: Duration,
    /// The most events kept per resource, in its watch cache and in its history for
    /// past-resourceVersion lists.
    pub history_limit: usize,
    /// Webhook service routes registered before start: (namespace, name, address).
    pub service_routes: Vec<(String, String, SocketAddr)>,
    /// Feature gates (all off by default, as on a real server).
    pub feature_gates: FeatureGates,
}

impl Default for ApiOptions {
    fn default() -> Self {
        ApiOptions {
            policy: Policy::default(),
            bookmark_interval: Duration::from_secs(60),
            history_limit: 102_400,
            service_routes: Vec::new(),
            feature_gates: FeatureGates::default(),
        }
    }
}

/// The shared state of one API server.
pub struct Api {
    cluster: Mutex<Cluster>,
    /// The server's tunables.
    pub options: ApiOptions,
    /// Where webhook calls go (service routes) and the connections they reuse.
    transport: Transport,
    /// The service account token key, made on first use (start-up stays fast).
    signer: OnceLock<Signer>,
    /// Per served document (the OpenAPI documents), the entity tag of the version last built
    /// and when: their `Last-Modified`.
    pub documents_built: Mutex<HashMap<String, (String, SystemTime)>>,
    /// The address the server listens on, once it does: what `/api` advertises to clients.
    pub address: OnceLock<SocketAddr>,
}

impl Api {
    /// The state around `cluster`, with the webhook routes of `options`. [`Api::new`] (in
    /// `setup`) builds a fresh cluster first.
    pub fn with_cluster(cluster: Cluster, options: ApiOptions) -> Arc<Self> {
        let transport = Transport::default();
        for (ns, name, to) in &options.service_routes {
            transport.route_service(ns, name, *to);
        }
        Arc::new(Api {
            cluster: Mutex::new(cluster),
            options,
            transport,
            signer: OnceLock::new(),
            documents_built: Mutex::default(),
            address: OnceLock::new(),
        })
    }

    /// Locks the cluster for one whole operation.
    pub fn lock(&self) -> MutexGuard<'_, Cluster> {
        // A panic while holding the lock cannot leave the store half-written in a way that
        // matters more than failing every later request, so recover the guard.
        self.cluster
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Makes webhook calls to the service `namespace/name` (any port) connect to `to`: the
    /// embedded server has no cluster network to resolve services through.
    pub fn route_service(&self, namespace: &str, name: &str, to: SocketAddr) {
        self.transport.route_service(namespace, name, to);
    }

    /// The key service account tokens are signed with and verified against.
    pub fn signer(&self) -> &Signer {
        self.signer.get_or_init(Signer::generate)
    }

    /// Where webhook calls go, and the idle connections they reuse.
    pub fn transport(&self) -> &Transport {
        &self.transport
    }
}
