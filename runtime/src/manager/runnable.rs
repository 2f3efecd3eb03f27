//! [`Runnable`]: something the manager starts and stops (controllers, the webhook server, the
//! probe and metrics servers, user tasks), and the [`RunnableGroup`]s it starts them in.

use futures::future::BoxFuture;
use std::future::Future;
use tokio_util::sync::CancellationToken;

use crate::{cache::Cache, error::BoxError, metrics::Metrics};

/// What a runnable gets when the manager starts it.
#[derive(Clone)]
pub struct RunContext {
    /// The manager's shared cache.
    pub cache: Cache,
    /// The manager's metrics.
    pub metrics: Metrics,
    /// The manager's client.
    pub client: kube::Client,
    /// Fires when the runnable should stop taking new work and return.
    pub shutdown: CancellationToken,
}

/// The groups the manager starts runnables in, as controller-runtime's runnable groups: in the
/// order of [`RunnableGroup::START_ORDER`], each group once the previous one is up, and
/// stopped in the reverse order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RunnableGroup {
    /// HTTP servers (the health probes, metrics, user servers), on every replica, first: the
    /// kubelet probes the pod while the rest starts.
    Servers,
    /// The webhook server, on every replica, before the caches: the API server may need a
    /// conversion webhook to answer the caches' lists.
    Webhooks,
    /// The shared cache's informers; the next group starts once every informer has synced.
    Caches,
    /// Everything else that needs no leader, on every replica, once the caches have synced.
    Others,
    /// Whatever needs leader election (controllers): started once this replica leads.
    LeaderElection,
}

impl RunnableGroup {
    /// Every group, in the order the manager starts them.
    pub const START_ORDER: [RunnableGroup; 5] = [
        RunnableGroup::Servers,
        RunnableGroup::Webhooks,
        RunnableGroup::Caches,
        RunnableGroup::Others,
        RunnableGroup::LeaderElection,
    ];
}

/// Something the manager runs: a controller, a server, or any long-running task of the
/// operator (controller-runtime's `Runnable` and `LeaderElectionRunnable` in one trait).
///
/// Controllers ([`Controller::reconcile`](crate::Controller::reconcile)) and the
/// [`WebhookServer`](crate::webhook::WebhookServer) implement it; [`from_fn`] makes one from a
/// closure.
pub trait Runnable: Send + 'static {
    /// The runnable's name, for logs and errors.
    fn name(&self) -> &str;

    /// Whether it may only run while this replica holds the leader lease (controllers do).
    fn needs_leader_election(&self) -> bool {
        false
    }

    /// The group the manager starts it in: [`RunnableGroup::LeaderElection`] when it needs
    /// leader election, [`RunnableGroup::Others`] otherwise.
    fn group(&self) -> RunnableGroup {
        if self.needs_leader_election() {
            RunnableGroup::LeaderElection
        } else {
            RunnableGroup::Others
        }
    }

    /// Runs until `context.shutdown` fires, then returns soon. An error (or a panic) stops the
    /// manager with [`Error::Runnable`](crate::Error::Runnable).
    fn start(self: Box<Self>, context: RunContext) -> BoxFuture<'static, Result<(), BoxError>>;
}

impl Runnable for Box<dyn Runnable> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn needs_leader_election(&self) -> bool {
        (**self).needs_leader_election()
    }
    fn group(&self) -> RunnableGroup {
        (**self).group()
    }
    fn start(self: Box<Self>, context: RunContext) -> BoxFuture<'static, Result<(), BoxError>> {
        (*self).start(context)
    }
}

/// A [`Runnable`] made of a name and a closure (see [`from_fn`]).
pub struct RunnableFn<F> {
    name: String,
    group: RunnableGroup,
    start: F,
}

/// A runnable named `name` running `start`. It needs no leader (group
/// [`RunnableGroup::Others`]) unless [`RunnableFn::leader_elected`] or [`RunnableFn::in_group`]
/// says otherwise. `start` must return soon after `RunContext::shutdown` fires.
///
/// ```ignore
/// manager.add(kubeforge::manager::from_fn("cleanup", |ctx| async move {
///     ctx.shutdown.cancelled().await;
///     Ok::<_, std::io::Error>(())
/// }));
/// ```
pub fn from_fn<F, Fut, E>(name: impl Into<String>, start: F) -> RunnableFn<F>
where
    F: FnOnce(RunContext) -> Fut + Send + 'static,
    Fut: Future<Output = Result<(), E>> + Send + 'static,
    E: Into<BoxError>,
{
    RunnableFn {
        name: name.into(),
        group: RunnableGroup::Others,
        start,
    }
}

impl<F> RunnableFn<F> {
    /// Runs only while this replica leads.
    #[must_use]
    pub fn leader_elected(self) -> Self {
        self.in_group(RunnableGroup::LeaderElection)
    }

    /// Starts in `group` (a user server: [`RunnableGroup::Servers`]).
    #[must_use]
    pub fn in_group(mut self, group: RunnableGroup) -> Self {
        self.group = group;
        self
    }
}

impl<F, Fut, E> Runnable for RunnableFn<F>
where
    F: FnOnce(RunContext) -> Fut + Send + 'static,
    Fut: Future<Output = Result<(), E>> + Send + 'static,
    E: Into<BoxError>,
{
    fn name(&self) -> &str {
        &self.name
    }
    fn needs_leader_election(&self) -> bool {
        self.group == RunnableGroup::LeaderElection
    }
    fn group(&self) -> RunnableGroup {
        self.group
    }
    fn start(self: Box<Self>, context: RunContext) -> BoxFuture<'static, Result<(), BoxError>> {
        let run = (self.start)(context);
        Box::pin(async move { run.await.map_err(Into::into) })
    }
}

impl<F> std::fmt::Debug for RunnableFn<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunnableFn")
            .field("name", &self.name)
            .field("group", &self.group)
            .finish_non_exhaustive()
    }
}
