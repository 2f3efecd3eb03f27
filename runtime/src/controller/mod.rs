//! The [`Controller`] builder: what to watch, how to filter it, how many reconciles may run at
//! once, how failures are retried. It is glue over kube-runtime's [`applier`], which supplies the
//! scheduler (deduplication, delayed requeues) and the runner (never two reconciles of the same
//! object at once, bounded concurrency).
//!
//! [`applier`]: kube::runtime::applier

mod error;
pub mod predicate;
mod rate_limit;
mod source;
mod worker;

pub use error::{ReconcileError, ReconcileFailure, WorkerError};
pub use kube::runtime::controller::Action;
pub use predicate::Predicate;
pub use rate_limit::{RateLimit, RateLimiter};

use futures::StreamExt;
use kube::runtime::{applier, controller::Config, reflector::ObjectRef};
use std::{
    convert::Infallible, error::Error as StdError, future::Future, sync::Arc, time::Duration,
};

use crate::{
    cache::{Cache, Kind},
    manager::{Manager, RunContext, Runnable, RunnableGroup, from_fn},
};
use source::Source;
use worker::Worker;
pub(crate) use worker::{reconcile_id, spawn_guarded};

/// Builds a controller reconciling kind `K`.
///
/// ```ignore
/// Controller::<Memcached>::new(&manager, "memcached")
///     .owns::<Deployment>()
///     .max_concurrent_reconciles(4)
///     .reconcile(reconcile, Arc::new(Context { .. }))
/// ```
pub struct Controller<K: Kind> {
    name: String,
    cache: Cache,
    sources: Vec<Source<K>>,
    for_predicates: Vec<Predicate<K>>,
    max_concurrent: u16,
    rate_limit: RateLimit,
    timeout: Option<Duration>,
}

impl<K: Kind> Controller<K> {
    /// A controller for `K` (controller-runtime's `For`) named `name` (metric and log label).
    /// Every change of a cached `K` enqueues that object, subject to [`Controller::with_predicate`].
    pub fn new(manager: &Manager, name: &str) -> Self {
        Self::with_cache(manager.cache(), name)
    }

    /// Like [`Controller::new`], from a cache directly.
    ///
    /// With a sharded cache ([`Cache::shards`]) the controller is sharded: it runs on every
    /// replica and reconciles only the objects in this replica's active ranges; owned and
    /// watched objects are mapped to their owner first, and the owner's range decides.
    pub fn with_cache(cache: Cache, name: &str) -> Self {
        // Create the informer now so the manager waits for it to sync before starting workers.
        let informer = cache.informer::<K>();
        if cache.shards().is_some() {
            informer.mark_sharded();
        }
        Self {
            name: name.to_string(),
            cache,
            sources: Vec::new(),
            for_predicates: Vec::new(),
            max_concurrent: 1,
            rate_limit: RateLimit::default(),
            timeout: None,
        }
    }

    /// Filters the changes of `K` itself: a change enqueues only if every predicate passes it
    /// (see [`predicate`] for generation/labels/annotations changed).
    #[must_use]
    pub fn with_predicate(
        mut self,
        predicate: impl Fn(&crate::cache::Change<K>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.for_predicates.push(Arc::new(predicate));
        self
    }

    /// Enqueues the controlling owner (of kind `K`) of every changed `C` (controller-runtime's
    /// `Owns`). Both the old and the new owner are enqueued when the owner reference changes.
    #[must_use]
    pub fn owns<C: Kind>(self) -> Self {
        self.owns_with::<C>(Vec::new())
    }

    /// [`Controller::owns`] with predicates on the owned objects' changes.
    #[must_use]
    pub fn owns_with<C: Kind>(mut self, predicates: Vec<Predicate<C>>) -> Self {
        // Every owned object is needed: it is mapped to its owner before the shard check.
        self.cache.informer::<C>().mark_whole();
        self.sources.push(source::watch::<C, K>(
            predicates,
            Arc::new(source::controlling_owner::<C, K>),
        ));
        self
    }

    /// Enqueues the objects `map` returns for every changed `O` (controller-runtime's `Watches`
    /// with `EnqueueRequestsFromMapFunc`).
    #[must_use]
    pub fn watches<O: Kind>(
        mut self,
        predicates: Vec<Predicate<O>>,
        map: impl Fn(&O) -> Vec<ObjectRef<K>> + Send + Sync + 'static,
    ) -> Self {
        self.cache.informer::<O>().mark_whole();
        self.sources
            .push(source::watch::<O, K>(predicates, Arc::new(map)));
        self
    }

    /// How many objects may be reconciled at once (default 1). One object is never reconciled
    /// twice at the same time, whatever this is.
    #[must_use]
    pub fn max_concurrent_reconciles(mut self, n: u16) -> Self {
        self.max_concurrent = n.max(1);
        self
    }

    /// Retry policy after failed reconciles (default: 5 ms doubling to 1000 s per object, 10 qps
    /// with a burst of 100 overall).
    #[must_use]
    pub fn rate_limit(mut self, rate_limit: RateLimit) -> Self {
        self.rate_limit = rate_limit;
        self
    }

    /// Cancels a reconcile that runs longer than `timeout`; it counts as an error and is retried.
    #[must_use]
    pub fn reconcile_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Finishes the builder with the reconcile function and its context. The returned
    /// [`Runnable`] runs when the manager runs (and, with leader election, leads; a sharded
    /// controller runs on every replica, in [`RunnableGroup::Others`]).
    ///
    /// `reconcile` is `async fn(Arc<K>, Arc<Ctx>) -> Result<Action, E>`; errors are retried with
    /// backoff unless [terminal](ReconcileFailure); panics are caught, counted and retried.
    pub fn reconcile<Ctx, F, Fut, E>(self, reconcile: F, context: Arc<Ctx>) -> impl Runnable
    where
        Ctx: Send + Sync + 'static,
        F: Fn(Arc<K>, Arc<Ctx>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        E: StdError + Send + Sync + 'static,
    {
        let name = self.name.clone();
        let sharded = self.cache.shards().is_some();
        let runnable = from_fn(name, move |rc| self.run(reconcile, context, rc));
        if sharded {
            runnable.in_group(RunnableGroup::Others)
        } else {
            runnable.leader_elected()
        }
    }

    async fn run<Ctx, F, Fut, E>(
        self,
        reconcile: F,
        context: Arc<Ctx>,
        rc: RunContext,
    ) -> Result<(), std::convert::Infallible>
    where
        Ctx: Send + Sync + 'static,
        F: Fn(Arc<K>, Arc<Ctx>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        E: StdError + Send + Sync + 'static,
    {
        let gate = self.cache.shards().cloned();
        let worker = Arc::new(Worker::new(
            &self.name,
            &rc.metrics,
            self.rate_limit,
            self.timeout,
            self.max_concurrent,
            gate.clone(),
        ));
        let informer = self.cache.informer::<K>();
        let mut streams = vec![source::watch_self::<K>(self.for_predicates)(&self.cache)];
        streams.extend(self.sources.into_iter().map(|s| s(&self.cache)));
        if let Some(gate) = &gate {
            streams.push(source::newly_active::<K>(gate.clone(), informer.store()));
        }
        let store = informer.store();
        let enqueue = worker.clone();
        let queue = futures::stream::select_all(streams)
            // Sharded: only objects (owners, for owned and watched objects) in this replica's
            // active ranges.
            .filter(move |r| {
                futures::future::ready(gate.as_ref().is_none_or(|gate| {
                    store
                        .get(r)
                        .is_some_and(|o| gate.contains(gate.key().hash(&*o)))
                }))
            })
            .take_until(rc.shutdown.clone().cancelled_owned())
            .map(move |r| {
                enqueue.enqueued(worker::key(r.namespace.as_deref(), &r.name));
                Ok::<_, Infallible>(r)
            });
        let (run_worker, policy_worker, result_worker) = (worker.clone(), worker.clone(), worker);
        let config = Config::default().concurrency(self.max_concurrent);
        let name = self.name;
        tracing::info!(controller = %name, "starting workers");
        applier(
            move |obj, ctx| run_worker.reconcile(obj, ctx, &reconcile),
            move |obj: Arc<K>, err: &WorkerError, _| {
                let meta = obj.meta();
                policy_worker.retry(
                    worker::key(
                        meta.namespace.as_deref(),
                        meta.name.as_deref().unwrap_or(""),
                    ),
                    err,
                )
            },
            context,
            informer.store(),
            queue,
            config,
        )
        .for_each(|result| {
            if let Err(kube::runtime::controller::Error::ObjectNotFound(r)) = &result {
                result_worker.dropped(worker::key(r.namespace.as_deref(), &r.name));
            }
            futures::future::ready(())
        })
        .await;
        tracing::info!(controller = %name, "workers stopped");
        Ok(())
    }
}

impl<K: Kind> std::fmt::Debug for Controller<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("name", &self.name)
            .field("kind", &K::gvk())
            .field("max_concurrent", &self.max_concurrent)
            .finish_non_exhaustive()
    }
}
