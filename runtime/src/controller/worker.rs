//! One reconcile, wrapped: a tracing span, workqueue and reconcile metrics, panic recovery, the
//! optional timeout, and the retry decision (error policy) for the kube-runtime applier.

use futures::{FutureExt, future::BoxFuture};
use kube::{Resource, runtime::controller::Action};
use std::{
    collections::HashMap,
    error::Error as StdError,
    future::Future,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};
use tracing::Instrument;

use super::{
    error::{ReconcileFailure, WorkerError},
    rate_limit::{RateLimit, RateLimiter},
};
use crate::{
    metrics::{ControllerHandles, Metrics},
    shard::ShardGate,
};

/// Identifies an object within one controller's queue and rate limiter: a hash of its
/// namespace and name, so that tracking an event costs no allocation. Two objects would
/// have to collide in 64 bits to share queue metrics or a backoff.
pub(crate) type Key = u64;

/// The [`Key`] of the object `namespace`/`name`.
pub(crate) fn key(namespace: Option<&str>, name: &str) -> Key {
    use std::hash::{Hash, Hasher};
    // A fixed hasher: the key must be the same wherever it is computed.
    let mut hasher = std::hash::DefaultHasher::new();
    namespace.hash(&mut hasher);
    name.hash(&mut hasher);
    hasher.finish()
}

/// Shared state of one controller's workers.
pub(crate) struct Worker {
    name: String,
    timeout: Option<Duration>,
    limiter: RateLimiter<Key>,
    /// Objects waiting in the queue, with the time they were added (for depth and latency).
    pending: Mutex<HashMap<Key, Instant>>,
    m: ControllerHandles,
    /// Sharded: reconciles run only for objects in this replica's active ranges, each inside
    /// the gate's guard (so a released range is drained before it is announced).
    gate: Option<ShardGate>,
}

impl Worker {
    pub(crate) fn new(
        name: &str,
        metrics: &Metrics,
        rate_limit: RateLimit,
        timeout: Option<Duration>,
        max_concurrent: u16,
        gate: Option<ShardGate>,
    ) -> Self {
        Self {
            gate,
            name: name.to_string(),
            timeout,
            limiter: RateLimiter::new(rate_limit),
            pending: Mutex::new(HashMap::new()),
            m: ControllerHandles::new(name, metrics, max_concurrent),
        }
    }

    /// Records that a watch event asked for `key` to be reconciled.
    pub(crate) fn enqueued(&self, key: Key) {
        let mut pending = self.pending.lock().expect("pending lock");
        pending.entry(key).or_insert_with(|| {
            self.m.adds.inc();
            Instant::now()
        });
        self.m.depth.set(pending.len() as i64);
    }

    /// Records that `key` left the queue without a reconcile (the object is gone).
    pub(crate) fn dropped(&self, key: Key) {
        let mut pending = self.pending.lock().expect("pending lock");
        pending.remove(&key);
        self.m.depth.set(pending.len() as i64);
        self.limiter.forget(&key);
    }

    fn dequeued(&self, key: Key) {
        let mut pending = self.pending.lock().expect("pending lock");
        if let Some(added) = pending.remove(&key) {
            self.m.queue_duration.observe(added.elapsed().as_secs_f64());
        }
        self.m.depth.set(pending.len() as i64);
    }

    /// Runs one reconcile on its own task (so a panic is caught at the task boundary).
    pub(crate) fn reconcile<K, Ctx, F, Fut, E>(
        self: &Arc<Self>,
        obj: Arc<K>,
        ctx: Arc<Ctx>,
        reconcile: &F,
    ) -> BoxFuture<'static, Result<Action, WorkerError>>
    where
        K: Resource + Send + Sync + 'static,
        Ctx: Send + Sync + 'static,
        F: Fn(Arc<K>, Arc<Ctx>) -> Fut,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        E: StdError + Send + Sync + 'static,
    {
        let meta = obj.meta();
        let (namespace, name) = (meta.namespace.as_deref(), meta.name.as_deref());
        let key = key(namespace, name.unwrap_or_default());
        self.dequeued(key);
        let guard = match &self.gate {
            None => None,
            Some(gate) => match gate.enter(gate.key().hash(&*obj)) {
                Some(guard) => Some(guard),
                // Not (or no longer) this replica's object: its owner reconciles it.
                None => return futures::future::ready(Ok(Action::await_change())).boxed(),
            },
        };
        let span = tracing::info_span!(
            "reconcile",
            controller = %self.name,
            namespace = namespace.unwrap_or(""),
            // Not `name`: JSON logs use that key for the span's own name.
            object = name.unwrap_or(""),
            reconcile_id = %reconcile_id(),
        );
        // Boxed where it is made: a reconcile future holding an API call is kilobytes, and
        // the task wrapping it would otherwise copy it whole at every move.
        let run = Box::pin(reconcile(obj, ctx));
        let guarded = spawn_guarded(
            async move {
                // Held for as long as the reconcile's task runs (an abort included).
                let _guard = guard;
                run.await
            },
            self.timeout,
            span.clone(),
        );
        let this = self.clone();
        self.m.active.inc();
        let started = Instant::now();
        async move {
            let result = guarded.await;
            this.finished(key, started, &result, &span);
            result
        }
        .boxed()
    }

    fn finished(
        &self,
        key: Key,
        started: Instant,
        result: &Result<Action, WorkerError>,
        span: &tracing::Span,
    ) {
        let elapsed = started.elapsed().as_secs_f64();
        self.m.active.dec();
        self.m.reconcile_time.observe(elapsed);
        self.m.work_duration.observe(elapsed);
        let _entered = span.enter();
        match result {
            Ok(action) => {
                self.limiter.forget(&key);
                // controller-runtime's result labels: an immediate requeue is "requeue".
                if *action == Action::await_change() {
                    self.m.success.inc();
                } else if *action == Action::requeue(Duration::ZERO) {
                    self.m.requeue.inc();
                } else {
                    self.m.requeue_after.inc();
                }
                tracing::debug!(seconds = elapsed, "reconciled");
            }
            Err(err) => {
                self.m.error.inc();
                self.m.errors.inc();
                match err {
                    WorkerError::Panic(_) => {
                        self.m.panics.inc();
                        tracing::error!(error = %err, "reconcile panicked");
                    }
                    WorkerError::Reconcile { terminal: true, .. } => {
                        self.m.terminal.inc();
                        tracing::error!(error = %err, "terminal reconcile error, not retrying");
                    }
                    _ => tracing::warn!(error = %err, "reconcile failed, will retry"),
                }
            }
        }
    }

    /// The error policy: terminal errors wait for the next change, others retry after the
    /// rate limiter's delay.
    pub(crate) fn retry(&self, key: Key, err: &WorkerError) -> Action {
        if err.is_terminal() {
            self.limiter.forget(&key);
            return Action::await_change();
        }
        self.m.retries.inc();
        Action::requeue(self.limiter.when(&key))
    }
}

fn user_error<E: StdError + Send + Sync + 'static>(e: E) -> WorkerError {
    WorkerError::Reconcile {
        terminal: ReconcileFailure::is_terminal(&e),
        source: Box::new(e),
    }
}

/// Runs one reconcile on its own task, in `span`, now: the optional timeout, the user's
/// error (terminal or not), and a panic all come back as the task's [`WorkerError`]. The
/// task is aborted if the returned future is dropped (forced shutdown). Per-object and
/// state-of-world controllers both run their reconciles through it.
pub(crate) fn spawn_guarded<T, E, Fut>(
    fut: Fut,
    timeout: Option<Duration>,
    span: tracing::Span,
) -> impl Future<Output = Result<T, WorkerError>> + Send + 'static
where
    T: Send + 'static,
    E: StdError + Send + Sync + 'static,
    Fut: Future<Output = Result<T, E>> + Send + 'static,
{
    let task = tokio::spawn(
        async move {
            match timeout {
                Some(limit) => tokio::time::timeout(limit, fut)
                    .await
                    .map_err(|_| WorkerError::Timeout(limit))
                    .and_then(|r| r.map_err(user_error)),
                None => fut.await.map_err(user_error),
            }
        }
        .instrument(span),
    );
    let mut task = AbortOnDrop(task);
    async move {
        match task.wait().await {
            Ok(result) => result,
            Err(panic) => Err(WorkerError::Panic(panic)),
        }
    }
}

/// A short random id that ties the log lines of one reconcile together.
pub(crate) fn reconcile_id() -> String {
    format!("{:016x}", fastrand::u64(..))
}

/// Aborts the reconcile task when the controller drops it (forced shutdown).
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> AbortOnDrop<T> {
    /// Waits for the task; a panic comes back as its message.
    async fn wait(&mut self) -> Result<T, String> {
        (&mut self.0).await.map_err(|e| match e.try_into_panic() {
            Ok(payload) => payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-string panic payload".to_string()),
            Err(e) => e.to_string(),
        })
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
