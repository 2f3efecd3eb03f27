//! [`Runnable`]: a unit of work the manager starts and stops (controllers, user tasks).

use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use crate::{Error, cache::Cache, metrics::Metrics};

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

type StartFn = Box<dyn FnOnce(RunContext) -> BoxFuture<'static, Result<(), Error>> + Send>;

/// Something the manager runs: a controller, or any long-running task of the operator.
pub struct Runnable {
    pub(crate) name: String,
    pub(crate) needs_leader_election: bool,
    pub(crate) start: StartFn,
}

impl Runnable {
    /// A runnable named `name`. With `needs_leader_election`, it only starts once this replica
    /// leads (controllers do); otherwise it starts with the manager. `start` must return soon
    /// after `RunContext::shutdown` fires.
    pub fn new(
        name: impl Into<String>,
        needs_leader_election: bool,
        start: impl FnOnce(RunContext) -> BoxFuture<'static, Result<(), Error>> + Send + 'static,
    ) -> Self {
        Self {
            name: name.into(),
            needs_leader_election,
            start: Box::new(start),
        }
    }

    /// The runnable's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl std::fmt::Debug for Runnable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runnable")
            .field("name", &self.name)
            .field("needs_leader_election", &self.needs_leader_election)
            .finish_non_exhaustive()
    }
}
