//! The running manager: starts the runnable groups in order, holds the leader lease, watches
//! for a failing runnable, and stops the groups in reverse order on shutdown.

use std::collections::{BTreeMap, HashMap};
use tokio::task::{Id, JoinSet};
use tokio_util::sync::CancellationToken;

use super::{
    Manager, RunContext, Runnable, RunnableGroup,
    servers::{self, CacheRunnable},
    shards, signals,
};
use crate::{Error, error::BoxError, leader_election::LeaderElector};

/// The started groups: a stop signal per group and every runnable's task.
struct Started {
    stops: BTreeMap<RunnableGroup, CancellationToken>,
    tasks: JoinSet<Result<(), BoxError>>,
    names: HashMap<Id, (String, RunnableGroup)>,
}

impl Started {
    fn new() -> Self {
        Self {
            stops: BTreeMap::new(),
            tasks: JoinSet::new(),
            names: HashMap::new(),
        }
    }

    /// Starts every runnable of `group`.
    fn start(
        &mut self,
        group: RunnableGroup,
        runnables: Vec<Box<dyn Runnable>>,
        base: &RunContext,
    ) {
        let stop = self.stops.entry(group).or_default().clone();
        for runnable in runnables {
            let name = runnable.name().to_string();
            let context = RunContext {
                shutdown: stop.clone(),
                ..base.clone()
            };
            let handle = self.tasks.spawn(runnable.start(context));
            self.names.insert(handle.id(), (name, group));
        }
    }

    /// The next runnable to end: `Some(Err)` when it failed or panicked.
    async fn next_failure(&mut self) -> Option<Error> {
        loop {
            let (id, result) = match self.tasks.join_next_with_id().await? {
                Ok((id, result)) => (id, result),
                Err(e) => (e.id(), Err(Box::new(e) as BoxError)),
            };
            let name = self
                .names
                .remove(&id)
                .map(|(name, _)| name)
                .unwrap_or_default();
            if let Err(source) = result {
                return Some(Error::Runnable { name, source });
            }
        }
    }

    fn running(&self, group: RunnableGroup) -> bool {
        self.names.values().any(|(_, g)| *g == group)
    }

    /// Stops `group` and waits for its runnables (others ending meanwhile are reaped too).
    /// A shard coordinator losing its membership meanwhile (it could not renew while its
    /// ranges drained) aborts every runnable at once, as outside a stop: others may own its
    /// ranges any moment, so running reconciles must not finish. Returns that loss.
    async fn stop(&mut self, group: RunnableGroup) -> Option<Error> {
        if let Some(stop) = self.stops.get(&group) {
            stop.cancel();
        }
        let mut lost = None;
        while self.running(group) {
            let Some(done) = self.tasks.join_next_with_id().await else {
                break;
            };
            let (id, result) = match done {
                Ok((id, result)) => (id, result),
                Err(e) => (e.id(), Err(Box::new(e) as BoxError)),
            };
            let name = self.names.remove(&id).map(|(name, _)| name);
            if let (Some(name), Err(source)) = (name, result) {
                match shards::membership_lost(Error::Runnable { name, source }) {
                    Ok(membership) => {
                        tracing::error!(error = %membership, "shard membership lost while stopping: aborting running reconciles");
                        self.tasks.abort_all();
                        lost = Some(membership);
                    }
                    Err(failed) => {
                        tracing::warn!(error = %failed, "runnable failed while stopping");
                    }
                }
            }
        }
        lost
    }
}

impl Manager {
    pub(super) async fn run_inner(mut self, background: &CancellationToken) -> Result<(), Error> {
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
        let mut groups = std::mem::take(self.runnables.get_mut().expect("runnables lock"));
        let sharding = shards::runnables(&self.options, &self.cache, &self.client)?;
        groups
            .entry(RunnableGroup::Others)
            .or_default()
            .extend(sharding);
        let servers = servers::bind(
            &self.options,
            &self.checks,
            &self.metrics,
            &self.client,
            &self.status,
        )
        .await?;
        groups
            .entry(RunnableGroup::Servers)
            .or_default()
            .extend(servers);
        groups
            .entry(RunnableGroup::Caches)
            .or_default()
            .push(Box::new(CacheRunnable(self.cache.clone())));

        let base = RunContext {
            cache: self.cache.clone(),
            metrics: self.metrics.clone(),
            client: self.client.clone(),
            shutdown: background.clone(),
        };
        let mut started = Started::new();
        let mut elector = self
            .options
            .leader_election
            .clone()
            .map(|o| LeaderElector::new(self.client.clone(), o, &self.metrics));
        for group in RunnableGroup::START_ORDER {
            if group == RunnableGroup::LeaderElection
                && let Some(elector) = &mut elector
            {
                tracing::info!(identity = %elector.identity(), "waiting for leadership");
                let acquired = tokio::select! {
                    acquired = elector.acquire(&self.shutdown) => acquired,
                    Some(failed) = started.next_failure() => {
                        return match shards::membership_lost(failed) {
                            Ok(lost) => {
                                started.tasks.abort_all();
                                Err(lost)
                            }
                            Err(failed) => {
                                let _ = self.stop(&mut started, None).await;
                                Err(failed)
                            }
                        };
                    }
                };
                if !acquired {
                    return self.stop(&mut started, None).await;
                }
            }
            if group == RunnableGroup::LeaderElection {
                self.status.update(|s| s.leader = true);
            }
            started.start(group, groups.remove(&group).unwrap_or_default(), &base);
            if group == RunnableGroup::Caches {
                tokio::select! {
                    synced = self.cache.wait_for_sync(self.options.cache.sync_timeout) => {
                        if let Err(e) = synced {
                            let _ = self.stop(&mut started, None).await;
                            return Err(e);
                        }
                    }
                    () = self.shutdown.cancelled() => return self.stop(&mut started, None).await,
                    Some(failed) = started.next_failure() => {
                        let _ = self.stop(&mut started, None).await;
                        return Err(failed);
                    }
                }
                tracing::info!("caches synced");
            }
        }

        let outcome = {
            let hold = async {
                match elector.as_mut() {
                    Some(e) => e.hold(&self.shutdown).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = self.shutdown.cancelled() => Ok(()),
                lost = hold => lost,
                Some(failed) = started.next_failure() => Err(shards::membership_lost(failed).unwrap_or_else(|e| e)),
            }
        };
        self.status.update(|s| s.leader = false);
        match outcome {
            Err(lost @ (Error::LeaderElectionLost(_) | Error::ShardMembershipLost(_))) => {
                // Another replica may already lead (or own our ranges): stop at once, do not
                // finish work.
                started.tasks.abort_all();
                Err(lost)
            }
            Err(e) => {
                let _ = self.stop(&mut started, elector).await;
                Err(e)
            }
            Ok(()) => self.stop(&mut started, elector).await,
        }
    }

    /// Graceful stop, group by group in reverse start order (controllers first, servers
    /// last), bounded by the graceful shutdown timeout; the lease is released once the
    /// leader-elected group has stopped, if configured.
    async fn stop(
        &self,
        started: &mut Started,
        mut elector: Option<LeaderElector>,
    ) -> Result<(), Error> {
        tracing::info!("stopping: waiting for running reconciles to finish");
        let timeout = self.options.graceful_shutdown_timeout;
        let release_on_cancel = self
            .options
            .leader_election
            .as_ref()
            .is_some_and(|o| o.release_on_cancel);
        let mut released = false;
        let mut lost = None;
        let drained = tokio::time::timeout(timeout, async {
            for group in RunnableGroup::START_ORDER.into_iter().rev() {
                if let Some(membership) = started.stop(group).await {
                    lost.get_or_insert(membership);
                }
                if group == RunnableGroup::LeaderElection && release_on_cancel {
                    release(elector.as_mut()).await;
                    released = true;
                }
            }
        })
        .await;
        if drained.is_err() {
            started.tasks.abort_all();
            if release_on_cancel && !released {
                release(elector.as_mut()).await;
            }
            return Err(Error::ShutdownTimeout(timeout));
        }
        if let Some(lost) = lost {
            return Err(lost);
        }
        tracing::info!("stopped gracefully");
        Ok(())
    }
}

/// Gives up the lease so a successor takes over at once (its controllers have stopped).
async fn release(elector: Option<&mut LeaderElector>) {
    if let Some(elector) = elector
        && let Err(e) = elector.release().await
    {
        tracing::warn!(error = %e, "could not release the leader lease");
    }
}
