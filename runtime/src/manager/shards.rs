//! Sharding in the manager: the fixed part of a static assignment, or the handover coordinator
//! of an automatic one (a runnable of [`RunnableGroup::Others`], beside the sharded
//! controllers), and the rule that a lost membership stops the manager at once.

use super::{ManagerOptions, RunContext, Runnable, RunnableGroup, from_fn};
use crate::{
    Error,
    cache::Cache,
    shard::{Coordinator, MembershipLost, RangeSet, ShardAssignment},
};

/// What the manager runs for its sharding options (nothing without them). Checks the options
/// first.
pub(super) fn runnables(
    options: &ManagerOptions,
    cache: &Cache,
    client: &kube::Client,
) -> Result<Vec<Box<dyn Runnable>>, Error> {
    let (Some(sharding), Some(gate)) = (&options.sharding, cache.shards()) else {
        return Ok(Vec::new());
    };
    sharding.validate()?;
    match sharding.assignment {
        ShardAssignment::Static { index, count } => {
            let part = RangeSet::equal_part(index, count);
            tracing::info!(index, count, ranges = %part, "static shard");
            gate.set_active(part);
            if let Some(f) = gate.families() {
                f.owned_ranges.set(1);
            }
            Ok(Vec::new())
        }
        ShardAssignment::Auto => {
            let coordinator = Coordinator::new(client.clone(), sharding.clone(), gate.clone());
            let runnable = from_fn("shard-coordinator", move |context: RunContext| {
                coordinator.run(context.shutdown)
            })
            .in_group(RunnableGroup::Others);
            Ok(vec![Box::new(runnable)])
        }
    }
}

/// `failed` as [`Error::ShardMembershipLost`] when it is the coordinator giving up: others
/// may own its ranges any moment, so the manager aborts the running reconciles rather than
/// letting them finish.
pub(super) fn membership_lost(failed: Error) -> Result<Error, Error> {
    match failed {
        Error::Runnable { name, source } => match source.downcast::<MembershipLost>() {
            Ok(lost) => Ok(Error::ShardMembershipLost(*lost)),
            Err(source) => Err(Error::Runnable { name, source }),
        },
        other => Err(other),
    }
}
