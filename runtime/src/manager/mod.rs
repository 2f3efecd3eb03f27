//! The [`Manager`]: owns the shared cache, the metrics registry and the probe checks, runs the
//! controllers (only while leading, with leader election), serves `/healthz`, `/readyz` and
//! `/metrics`, and shuts down gracefully on SIGTERM/SIGINT or [`ShutdownHandle::shutdown`].
//!
//! Start-up order, as controller-runtime: servers, caches (wait for sync), leader election,
//! controllers. Shutdown: stop controllers taking work, wait for running reconciles (bounded by
//! the graceful timeout), release the lease if asked, stop caches and servers.

mod args;
mod options;
mod runnable;
pub mod signals;

pub use args::{LogFormat, ManagerArgs};
pub use options::{ManagerOptions, MetricsServerOptions};
pub use runnable::{RunContext, Runnable};

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::{
    Error,
    cache::{Cache, Kind},
    client::CachedClient,
    leader_election::LeaderElector,
    metrics::Metrics,
    server::{self, Server, probes::Checks},
};

/// Stops a running manager gracefully (tests and embedding applications use it).
#[derive(Clone, Debug)]
pub struct ShutdownHandle(CancellationToken);

impl ShutdownHandle {
    /// Requests a graceful shutdown; `Manager::run` then returns.
    pub fn shutdown(&self) {
        self.0.cancel();
    }
}

#[derive(Default, Debug)]
struct StatusInner {
    metrics_addr: Option<SocketAddr>,
    probe_addr: Option<SocketAddr>,
    leader: bool,
}

/// What a running manager is doing: bound addresses, leadership (cheap to clone).
#[derive(Clone, Default, Debug)]
pub struct ManagerStatus(Arc<Mutex<StatusInner>>);

impl ManagerStatus {
    /// Where `/metrics` is served, once bound.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.0.lock().expect("status lock").metrics_addr
    }
    /// Where the probes are served, once bound.
    pub fn probe_addr(&self) -> Option<SocketAddr> {
        self.0.lock().expect("status lock").probe_addr
    }
    /// Whether this manager currently runs its controllers as the leader (always true once
    /// started without leader election).
    pub fn is_leader(&self) -> bool {
        self.0.lock().expect("status lock").leader
    }
    fn update(&self, f: impl FnOnce(&mut StatusInner)) {
        f(&mut self.0.lock().expect("status lock"));
    }
}

/// The operator's manager. See the [module docs](self).
pub struct Manager {
    client: kube::Client,
    options: ManagerOptions,
    cache: Cache,
    metrics: Metrics,
    checks: Checks,
    /// In a mutex only so `Manager` is `Sync` (the running manager is borrowed across awaits).
    runnables: Mutex<Vec<Runnable>>,
    shutdown: CancellationToken,
    status: ManagerStatus,
}

impl Manager {
    /// A manager talking to the API server through `client`.
    pub fn new(client: kube::Client, options: ManagerOptions) -> Manager {
        let cache = Cache::new(client.clone(), options.cache.clone());
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
            metrics: Metrics::new(),
            checks,
            runnables: Mutex::new(Vec::new()),
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

    /// Adds a controller (or other runnable); it starts when the manager runs and, if it needs
    /// leader election, leads.
    pub fn add(&mut self, runnable: impl Into<Runnable>) {
        self.runnables
            .get_mut()
            .expect("runnables lock")
            .push(runnable.into());
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

    async fn run_inner(mut self, background: &CancellationToken) -> Result<(), Error> {
        if self.options.handle_signals {
            let shutdown = self.shutdown.clone();
            let stop = background.clone();
            tokio::spawn(async move {
                tokio::select! {
                    () = signals::terminate() => shutdown.cancel(),
                    () = stop.cancelled() => {}
                }
            });
        }
        self.start_servers(background).await?;
        self.cache.start(background.child_token());
        tokio::select! {
            r = self.cache.wait_for_sync(self.options.cache.sync_timeout) => r?,
            () = self.shutdown.cancelled() => return Ok(()),
        }
        tracing::info!("caches synced");

        let work = CancellationToken::new();
        let mut tasks = JoinSet::new();
        let (leader_runnables, others): (Vec<_>, Vec<_>) =
            std::mem::take(self.runnables.get_mut().expect("runnables lock"))
                .into_iter()
                .partition(|r| r.needs_leader_election);
        self.spawn_all(others, &work, &mut tasks);

        let mut elector = self
            .options
            .leader_election
            .clone()
            .map(|o| LeaderElector::new(self.client.clone(), o, &self.metrics));
        if let Some(elector) = &mut elector {
            tracing::info!(identity = %elector.identity(), "waiting for leadership");
            if !elector.acquire(&self.shutdown).await {
                return self.stop(work, tasks, None).await;
            }
        }
        self.status.update(|s| s.leader = true);
        self.spawn_all(leader_runnables, &work, &mut tasks);

        let outcome = {
            let hold = async {
                match elector.as_mut() {
                    Some(e) => e.hold(&self.shutdown).await,
                    None => std::future::pending().await,
                }
            };
            tokio::pin!(hold);
            loop {
                tokio::select! {
                    () = self.shutdown.cancelled() => break Ok(()),
                    lost = &mut hold => break lost,
                    Some(done) = tasks.join_next() => match done {
                        Ok((_, Ok(()))) => continue,
                        Ok((name, Err(e))) => break Err(Error::Runnable { name, message: e.to_string() }),
                        Err(e) => break Err(Error::Runnable { name: "unknown".into(), message: e.to_string() }),
                    },
                }
            }
        };
        self.status.update(|s| s.leader = false);
        match outcome {
            Err(lost @ Error::LeaderElectionLost(_)) => {
                // Another replica may already lead: stop at once, do not finish work.
                work.cancel();
                tasks.abort_all();
                Err(lost)
            }
            Err(e) => {
                let _ = self.stop(work, tasks, elector).await;
                Err(e)
            }
            Ok(()) => self.stop(work, tasks, elector).await,
        }
    }

    fn spawn_all(
        &self,
        runnables: Vec<Runnable>,
        work: &CancellationToken,
        tasks: &mut JoinSet<(String, Result<(), Error>)>,
    ) {
        for runnable in runnables {
            let context = RunContext {
                cache: self.cache.clone(),
                metrics: self.metrics.clone(),
                client: self.client.clone(),
                shutdown: work.clone(),
            };
            let name = runnable.name.clone();
            let fut = (runnable.start)(context);
            tasks.spawn(async move { (name, fut.await) });
        }
    }

    /// Graceful stop: no new work, wait for running work (bounded), release the lease.
    async fn stop(
        &self,
        work: CancellationToken,
        mut tasks: JoinSet<(String, Result<(), Error>)>,
        elector: Option<LeaderElector>,
    ) -> Result<(), Error> {
        tracing::info!("stopping: waiting for running reconciles to finish");
        work.cancel();
        let timeout = self.options.graceful_shutdown_timeout;
        let drained = tokio::time::timeout(timeout, async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            tasks.abort_all();
        }
        if let Some(mut elector) = elector
            && self
                .options
                .leader_election
                .as_ref()
                .is_some_and(|o| o.release_on_cancel)
            && let Err(e) = elector.release().await
        {
            tracing::warn!(error = %e, "could not release the leader lease");
        }
        match drained {
            Ok(()) => {
                tracing::info!("stopped gracefully");
                Ok(())
            }
            Err(_) => Err(Error::ShutdownTimeout(timeout)),
        }
    }

    async fn start_servers(&self, background: &CancellationToken) -> Result<(), Error> {
        // Probes stay on HTTP/1.1 (what kubelet speaks); --enable-http2 is for metrics.
        let metrics_versions = server::HttpVersions::from_flag(self.options.enable_http2)?;
        if let Some(address) = &self.options.health_probe_bind_address
            && let Some(address) = server::parse_bind_address(address)?
        {
            let server = Server::bind("health probe", address, None, Default::default()).await?;
            let bound = server.local_addr();
            self.status.update(|s| s.probe_addr = Some(bound));
            tracing::info!(address = %bound, "serving health probes");
            tokio::spawn(server.serve(self.checks.handler(), background.clone()));
        }
        if let Some(options) = &self.options.metrics
            && let Some(address) = server::parse_bind_address(&options.bind_address)?
        {
            let (tls, authorizer) = if options.secure {
                let tls = match &options.cert_dir {
                    Some(dir) => server::tls::from_dir(dir, metrics_versions)?,
                    None => server::tls::self_signed(metrics_versions)?,
                };
                let authorizer = server::authz::Authorizer::new(self.client.clone(), "/metrics");
                (Some(tls), Some(Arc::new(authorizer)))
            } else {
                (None, None)
            };
            let secure = tls.is_some();
            let server = Server::bind("metrics", address, tls, metrics_versions).await?;
            let bound = server.local_addr();
            self.status.update(|s| s.metrics_addr = Some(bound));
            tracing::info!(address = %bound, secure, "serving metrics");
            tokio::spawn(server.serve(
                server::metrics::handler(self.metrics.clone(), authorizer),
                background.clone(),
            ));
        }
        Ok(())
    }
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manager")
            .field("options", &self.options)
            .field("runnables", &self.runnables)
            .finish_non_exhaustive()
    }
}
