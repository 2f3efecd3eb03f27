//! The [`WorldController`] builder and its loop: collect changes from the shared cache, debounce
//! them, call the reconcile function with a snapshot and the batch, retry failures with
//! backoff, heal with periodic re-lists.

use futures::{
    FutureExt, StreamExt,
    stream::{BoxStream, SelectAll},
};
use std::{error::Error as StdError, future::Future, sync::Arc, time::Duration};
use tokio::time::Instant;

use super::{
    changes::{Batch, Changes},
    kind::{self, Incoming, WatchedKind},
    snapshot::{Snapshot, State},
    topology::Topology,
};
use crate::{
    cache::{Cache, Kind},
    controller::{RateLimit, RateLimiter, WorkerError, reconcile_id, spawn_guarded},
    manager::{Manager, RunContext, Runnable, from_fn},
    metrics::ControllerHandles,
};

/// What the controller does after a successful reconcile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Requeue {
    /// Nothing until the world changes (or the next resync finds a change).
    #[default]
    AwaitChange,
    /// Call again after this long even if nothing changes (sooner if something does).
    After(Duration),
}

impl From<()> for Requeue {
    fn from((): ()) -> Self {
        Requeue::AwaitChange
    }
}

impl From<Duration> for Requeue {
    fn from(after: Duration) -> Self {
        Requeue::After(after)
    }
}

/// Builds a state-of-world controller (see the [module docs](super)).
pub struct WorldController {
    name: String,
    cache: Cache,
    kinds: Vec<Arc<dyn WatchedKind>>,
    topology: Topology,
    debounce: Duration,
    resync: Option<Duration>,
    rate_limit: RateLimit,
    timeout: Option<Duration>,
}

impl WorldController {
    /// A controller named `name` (metric and log label) reading the manager's shared cache.
    pub fn new(manager: &Manager, name: &str) -> Self {
        Self::with_cache(manager.cache(), name)
    }

    /// Like [`WorldController::new`], from a cache directly.
    pub fn with_cache(cache: Cache, name: &str) -> Self {
        Self {
            name: name.to_string(),
            cache,
            kinds: Vec::new(),
            topology: Topology::new(),
            debounce: Duration::from_millis(100),
            resync: None,
            rate_limit: RateLimit::default(),
            timeout: None,
        }
    }

    fn add_kind(&mut self, kind: Arc<dyn WatchedKind>) {
        if !self.kinds.iter().any(|k| k.type_id() == kind.type_id()) {
            // Create the informer now so the manager waits for its sync before starting us.
            kind.register(&self.cache);
            self.kinds.push(kind);
        }
    }

    /// Adds kind `K` (custom or built-in) to the world, through the shared cache's informer
    /// for `K` (one watch per kind however many controllers read it).
    #[must_use]
    pub fn watches<K: Kind>(mut self) -> Self {
        self.add_kind(kind::of::<K>());
        self
    }

    /// How long to wait after the first change before calling the reconcile, so a burst of
    /// changes makes one call (default 100 ms). Changes arriving during a reconcile are batched
    /// into the next call whatever this is.
    #[must_use]
    pub fn debounce(mut self, debounce: Duration) -> Self {
        self.debounce = debounce;
        self
    }

    /// Re-lists every watched kind from the API server every `period` and replaces the world
    /// with the result, reporting what the watches missed as changes (marked
    /// [`healed`](super::ChangeSummary::healed)). A zero period turns healing off (the default).
    #[must_use]
    pub fn resync(mut self, period: Duration) -> Self {
        self.resync = (!period.is_zero()).then_some(period);
        self
    }

    /// The links between kinds that [`Snapshot::topology`] resolves. Kinds named by the
    /// topology are watched too.
    #[must_use]
    pub fn topology(mut self, topology: Topology) -> Self {
        for kind in topology.kinds.clone() {
            self.add_kind(kind);
        }
        self.topology = topology;
        self
    }

    /// Retry delays after failed reconciles (default: 5 ms doubling to 1000 s).
    #[must_use]
    pub fn rate_limit(mut self, rate_limit: RateLimit) -> Self {
        self.rate_limit = rate_limit;
        self
    }

    /// Cancels a reconcile running longer than `timeout`; it counts as an error and is retried.
    #[must_use]
    pub fn reconcile_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Finishes the builder with the reconcile function and its context; add the returned
    /// [`Runnable`] to the manager (it runs while this replica leads).
    ///
    /// `reconcile` is `async fn(Arc<Snapshot>, Changes, Arc<Ctx>) -> Result<R, E>` where `R` is
    /// `()` or a [`Requeue`]. Errors are retried with backoff on the latest snapshot, with the
    /// failed call's changes plus those that arrived since, unless
    /// [terminal](crate::ReconcileError::terminal); panics are caught, counted and retried.
    /// A controller that watches no kind makes the manager stop with an error saying so.
    pub fn reconcile<Ctx, F, Fut, R, E>(self, reconcile: F, context: Arc<Ctx>) -> impl Runnable
    where
        Ctx: Send + Sync + 'static,
        F: Fn(Arc<Snapshot>, Changes, Arc<Ctx>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, E>> + Send + 'static,
        R: Into<Requeue> + Send + 'static,
        E: StdError + Send + Sync + 'static,
    {
        let name = self.name.clone();
        from_fn(name, move |rc| async move {
            if self.kinds.is_empty() {
                return Err(crate::Error::NoWatchedKinds {
                    controller: self.name,
                });
            }
            self.run(reconcile, context, rc).await;
            Ok(())
        })
        .leader_elected()
    }

    async fn run<Ctx, F, Fut, R, E>(self, reconcile: F, context: Arc<Ctx>, rc: RunContext)
    where
        Ctx: Send + Sync + 'static,
        F: Fn(Arc<Snapshot>, Changes, Arc<Ctx>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, E>> + Send + 'static,
        R: Into<Requeue> + Send + 'static,
        E: StdError + Send + Sync + 'static,
    {
        // One subscription per kind, read by this loop itself: it keeps reading while a
        // reconcile runs, so the informers never wait for a slow reconcile.
        let mut rx = SelectAll::new();
        let mut initial = Vec::new();
        for kind in &self.kinds {
            let (objects, changes) = kind.subscribe(&self.cache);
            initial.extend(objects);
            rx.push(changes);
        }
        let state = State::new(
            self.kinds.iter().map(|k| (k.type_id(), k.gvk())),
            self.topology,
        );
        let mut world = Loop {
            metrics: ControllerHandles::new(&self.name, &rc.metrics, 1),
            name: self.name,
            cache: self.cache,
            kinds: self.kinds,
            state,
            pending: Batch::default(),
            arrived: None,
            rx,
            open: true,
            limiter: RateLimiter::new(self.rate_limit),
            timeout: self.timeout,
            debounce: self.debounce,
            resync: self.resync,
            dirty_since: Some(Instant::now()),
            retry_at: None,
            requeue_at: None,
        };
        for incoming in initial {
            world.apply(incoming);
        }
        tracing::info!(
            controller = %world.name,
            kinds = world.kinds.len(),
            objects = world.state.len(),
            "starting state-of-world controller"
        );
        world.run(&reconcile, &context, &rc).await;
        tracing::info!(controller = %world.name, "state-of-world controller stopped");
    }
}

impl std::fmt::Debug for WorldController {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorldController")
            .field("name", &self.name)
            .field(
                "kinds",
                &self.kinds.iter().map(|k| k.gvk()).collect::<Vec<_>>(),
            )
            .field("debounce", &self.debounce)
            .field("resync", &self.resync)
            .finish_non_exhaustive()
    }
}

/// The running controller's state.
struct Loop {
    name: String,
    cache: Cache,
    kinds: Vec<Arc<dyn WatchedKind>>,
    state: State,
    /// Changes since the last successful (or terminally failed) reconcile.
    pending: Batch,
    /// While a reconcile runs: the changes that arrived since it started (they go to the next
    /// call; after a failure, merged with the failed call's).
    arrived: Option<Batch>,
    /// Every watched kind's changes.
    rx: SelectAll<BoxStream<'static, Incoming>>,
    open: bool,
    metrics: ControllerHandles,
    limiter: RateLimiter<()>,
    timeout: Option<Duration>,
    debounce: Duration,
    resync: Option<Duration>,
    /// When the first change since the last call arrived (the first call: at start).
    dirty_since: Option<Instant>,
    /// When a failed reconcile is retried.
    retry_at: Option<Instant>,
    /// When a reconcile that asked to be requeued is called again.
    requeue_at: Option<Instant>,
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

impl Loop {
    async fn run<Ctx, F, Fut, R, E>(&mut self, reconcile: &F, context: &Arc<Ctx>, rc: &RunContext)
    where
        Ctx: Send + Sync + 'static,
        F: Fn(Arc<Snapshot>, Changes, Arc<Ctx>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, E>> + Send + 'static,
        R: Into<Requeue> + Send + 'static,
        E: StdError + Send + Sync + 'static,
    {
        let mut resync_at = self.resync.map(|period| Instant::now() + period);
        loop {
            let call_at = match self.retry_at {
                // In backoff: new changes wait for the retry.
                Some(at) => Some(at),
                None => [self.dirty_since.map(|t| t + self.debounce), self.requeue_at]
                    .into_iter()
                    .flatten()
                    .min(),
            };
            tokio::select! {
                biased;
                () = rc.shutdown.cancelled() => return,
                () = sleep_until(resync_at) => {
                    tokio::select! {
                        () = rc.shutdown.cancelled() => return,
                        () = self.heal() => {}
                    }
                    resync_at = self.resync.map(|period| Instant::now() + period);
                }
                () = sleep_until(call_at) => {
                    self.drain();
                    self.call(reconcile, context).await;
                }
                incoming = self.rx.next(), if self.open => match incoming {
                    Some(incoming) => {
                        self.apply(incoming);
                        self.drain();
                    }
                    None => self.open = false,
                },
            }
        }
    }

    fn apply(&mut self, incoming: Incoming) {
        let batch = self.arrived.as_mut().unwrap_or(&mut self.pending);
        if self
            .state
            .apply(incoming.kind, incoming.key, incoming.new, batch)
        {
            self.metrics.adds.inc();
            self.dirty_since.get_or_insert_with(Instant::now);
        }
        self.set_depth();
    }

    /// The queue depth metric: objects with a change not yet handed to a successful call.
    fn set_depth(&self) {
        let arrived = self.arrived.as_ref().map_or(0, Batch::len);
        self.metrics
            .depth
            .set((self.pending.len() + arrived) as i64);
    }

    /// Applies every change already delivered.
    fn drain(&mut self) {
        while let Some(Some(incoming)) = self.rx.next().now_or_never() {
            self.apply(incoming);
        }
    }

    /// Waits for `work` while applying the changes that arrive meanwhile.
    async fn applying_changes<T>(&mut self, work: impl Future<Output = T>) -> T {
        let mut work = std::pin::pin!(work);
        loop {
            tokio::select! {
                done = &mut work => return done,
                incoming = self.rx.next(), if self.open => match incoming {
                    Some(incoming) => self.apply(incoming),
                    None => self.open = false,
                },
            }
        }
    }

    /// Re-lists every kind, then replaces the world with the result in one step.
    async fn heal(&mut self) {
        // Watch events delivered before the list must not be applied after it; those arriving
        // during it are applied as they come.
        self.drain();
        let relists = futures::future::join_all(self.kinds.iter().map(|k| k.relist(&self.cache)));
        let lists = self.applying_changes(relists).await;
        let mut fresh = Vec::with_capacity(lists.len());
        for (kind, list) in self.kinds.iter().zip(lists) {
            match list {
                Ok(objects) => fresh.push((kind.type_id(), objects)),
                Err(err) => {
                    tracing::warn!(controller = %self.name, kind = %kind.gvk(), error = %err, "resync list failed; the world is kept and healed at the next period");
                    return;
                }
            }
        }
        // Events that arrived during the list come first; the list then has the last word
        // (a later event for the same object is newer than both and is applied next).
        self.drain();
        let healed: usize = fresh
            .into_iter()
            .map(|(kind, objects)| self.state.replace(kind, objects, &mut self.pending))
            .sum();
        if healed > 0 {
            tracing::warn!(controller = %self.name, healed, "resync found changes the watches missed");
            self.dirty_since.get_or_insert_with(Instant::now);
            self.metrics.adds.inc_by(healed as u64);
        } else {
            tracing::debug!(controller = %self.name, objects = self.state.len(), "resync found the world up to date");
        }
        self.set_depth();
    }

    async fn call<Ctx, F, Fut, R, E>(&mut self, reconcile: &F, context: &Arc<Ctx>)
    where
        Ctx: Send + Sync + 'static,
        F: Fn(Arc<Snapshot>, Changes, Arc<Ctx>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, E>> + Send + 'static,
        R: Into<Requeue> + Send + 'static,
        E: StdError + Send + Sync + 'static,
    {
        let snapshot = Arc::new(self.state.snapshot());
        let changes = self.pending.freeze();
        if let Some(since) = self.dirty_since.take() {
            self.metrics
                .queue_duration
                .observe(since.elapsed().as_secs_f64());
        }
        let retry = self.retry_at.take().is_some();
        self.requeue_at = None;
        let span = tracing::info_span!(
            "reconcile",
            controller = %self.name,
            snapshot = snapshot.generation(),
            objects = snapshot.len(),
            changes = changes.len(),
            healed = changes.healed(),
            retry,
            reconcile_id = %reconcile_id(),
        );
        // Boxed where it is made, as a per-object reconcile is (see `controller::worker`).
        let fut = Box::pin(reconcile(snapshot, changes, context.clone()));
        let guarded = spawn_guarded(
            async move { fut.await.map(Into::<Requeue>::into) },
            self.timeout,
            span.clone(),
        );
        self.metrics.active.inc();
        let started = Instant::now();
        self.arrived = Some(Batch::default());
        let result = self.applying_changes(guarded).await;
        let arrived = self.arrived.take().unwrap_or_default();
        let elapsed = started.elapsed().as_secs_f64();
        self.metrics.active.dec();
        self.metrics.reconcile_time.observe(elapsed);
        self.metrics.work_duration.observe(elapsed);
        let _entered = span.enter();
        match result {
            Ok(requeue) => {
                self.limiter.forget(&());
                self.pending = arrived;
                match requeue {
                    Requeue::AwaitChange => {
                        self.metrics.success.inc();
                    }
                    Requeue::After(after) => {
                        self.metrics.requeue_after.inc();
                        self.requeue_at = Some(Instant::now() + after);
                    }
                };
            }
            Err(err) => {
                self.metrics.error.inc();
                self.metrics.errors.inc();
                if err.is_terminal() {
                    self.metrics.terminal.inc();
                    tracing::error!(error = %err, "terminal reconcile error, not retrying these changes");
                    self.limiter.forget(&());
                    self.pending = arrived;
                } else {
                    self.pending.absorb(arrived);
                    if let WorkerError::Panic(_) = err {
                        self.metrics.panics.inc();
                        tracing::error!(error = %err, "reconcile panicked");
                    } else {
                        tracing::warn!(error = %err, "reconcile failed, will retry");
                    }
                    self.metrics.retries.inc();
                    let delay = self.limiter.when(&());
                    self.retry_at = Some(Instant::now() + delay);
                }
            }
        }
        self.set_depth();
    }
}
