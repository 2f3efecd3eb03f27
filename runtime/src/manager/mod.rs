//! The [`Manager`]: owns the shared cache, the metrics registry and the probe checks, runs the
//! controllers (only while leading, with leader election), serves `/healthz`, `/readyz` and
//! `/metrics`, and shuts down gracefully on SIGTERM/SIGINT or [`ShutdownHandle::shutdown`].
//!
//! Every part is a [`Runnable`] in one of the [`RunnableGroup`]s, started in
//! [`RunnableGroup::START_ORDER`] as controller-runtime does: servers (probes, metrics), the
//! webhook server, the caches (then wait until they synced), other runnables, and, once this
//! replica leads, the leader-elected ones (controllers). Shutdown stops the groups in reverse:
//! controllers stop taking work and running reconciles finish (bounded by the graceful
//! timeout), the lease is released if asked, then the rest stops.

mod args;
mod options;
mod run;
mod runnable;
mod servers;
mod shards;
pub mod signals;
mod status;

pub use args::{LogFormat, ManagerArgs, Shards};
pub use options::{ManagerOptions, MetricsServerOptions};
pub use runnable::{RunContext, Runnable, RunnableFn, RunnableGroup, from_fn};
pub use status::{ManagerStatus, ShutdownHandle};

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
};
use tokio_util::sync::CancellationToken;

use crate::{
    Error,
    cache::{Cache, Kind},
    client::CachedClient,
    metrics::Metrics,
    server::{self, probes::Checks},
    shard::ShardGate,
};

/// The operator's manager. See the [module docs](self).
pub struct Manager {
    client: kube::Client,
    options: ManagerOptions,
    cache: Cache,
    metrics: Metrics,
    checks: Checks,
    /// What to run, by group. In a mutex only so `Manager` is `Sync` (the running manager is
    /// borrowed across awaits).
    runnables: Mutex<BTreeMap<RunnableGroup, Vec<Box<dyn Runnable>>>>,
    shutdown: CancellationToken,
    status: ManagerStatus,
}

impl Manager {
    /// A manager talking to the API server through `client`.
    pub fn new(client: kube::Client, options: ManagerOptions) -> Manager {
        let metrics = Metrics::new();
        let shards = options
            .sharding
            .as_ref()
            .map(|o| ShardGate::new(o.key, Some(metrics.families().shard.clone())));
        let cache = Cache::with_shards(client.clone(), options.cache.clone(), shards);
        let checks = Checks::default();
        checks.add_health("ping", server::probes::ping());
        let ready_cache = cache.clone();
        checks.add_ready(
            "informers",
            Arc::new(move || {
                let synced = ready_cache.is_synced();
                Box::pin(async move {
                    if synced {
                        Ok(())
                    } else {
                        Err("caches not synced".to_string())
                    }
                })
            }),
        );
        Manager {
            client,
            options,
            cache,
            metrics,
            checks,
            runnables: Mutex::new(BTreeMap::new()),
            shutdown: CancellationToken::new(),
            status: ManagerStatus::default(),
        }
    }

    /// The kube client for uncached reads and for writes.
    pub fn client(&self) -> kube::Client {
        self.client.clone()
    }

    /// A client whose reads come from the shared cache and whose writes go to the API server.
    pub fn cached_client(&self) -> CachedClient {
        CachedClient::new(self.cache.clone())
    }

    /// The shared cache.
    pub fn cache(&self) -> Cache {
        self.cache.clone()
    }

    /// The metrics registry (register operator metrics here).
    pub fn metrics(&self) -> Metrics {
        self.metrics.clone()
    }

    /// Registers a field index on `K` (see [`Cache::index`]); list with
    /// [`CachedClient::list_by_index`].
    pub fn index_field<K: Kind>(
        &self,
        name: &str,
        extract: impl Fn(&K) -> Vec<String> + Send + Sync + 'static,
    ) {
        self.cache.index::<K>(name, extract);
    }

    /// Adds a liveness check served at `/healthz`.
    pub fn add_health_check(&self, name: &str, check: server::probes::Check) {
        self.checks.add_health(name, check);
    }

    /// Adds a readiness check served at `/readyz`.
    pub fn add_ready_check(&self, name: &str, check: server::probes::Check) {
        self.checks.add_ready(name, check);
    }

    /// Adds a controller (or any other [`Runnable`]); it starts with its
    /// [group](Runnable::group) when the manager runs (controllers: once this replica leads).
    pub fn add(&mut self, runnable: impl Runnable) {
        let group = runnable.group();
        self.runnables
            .get_mut()
            .expect("runnables lock")
            .entry(group)
            .or_default()
            .push(Box::new(runnable));
    }

    /// A handle that stops the running manager gracefully.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle(self.shutdown.clone())
    }

    /// Bound addresses and leadership of this manager while it runs.
    pub fn status(&self) -> ManagerStatus {
        self.status.clone()
    }

    /// Runs until SIGTERM/SIGINT or [`ShutdownHandle::shutdown`]; `Ok` after a graceful stop.
    /// Errors: a cache did not sync (or its kind is not served), the lease was lost, a server
    /// could not bind, a runnable failed, or reconciles outlived the graceful timeout.
    pub async fn run(self) -> Result<(), Error> {
        let background = CancellationToken::new();
        let result = self.run_inner(&background).await;
        background.cancel();
        if let Err(e) = &result {
            tracing::error!(error = %e, "manager stopped with an error");
        }
        result
    }
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let runnables: Vec<(RunnableGroup, Vec<String>)> = self
            .runnables
            .lock()
            .expect("runnables lock")
            .iter()
            .map(|(group, rs)| (*group, rs.iter().map(|r| r.name().to_string()).collect()))
            .collect();
        f.debug_struct("Manager")
            .field("options", &self.options)
            .field("runnables", &runnables)
            .finish_non_exhaustive()
    }
}
