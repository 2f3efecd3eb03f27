//! The manager's runnable groups, as controller-runtime's: runnables start in
//! [`RunnableGroup::START_ORDER`] (servers, webhooks, caches, others, then what needs the
//! leader, once this replica leads) whatever order they were added in, and stop in the reverse
//! order; a [`Runnable`] of its own type needs no leader unless it says so, and [`from_fn`]
//! adapts a closure.

use crate::common;

use common::*;
use futures::future::BoxFuture;
use kubeforge::{
    BoxError, Manager, Runnable,
    leader_election::LeaderElectionOptions,
    manager::{RunContext, RunnableGroup, from_fn},
};
use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

/// What the runnables did, in order.
#[derive(Default)]
struct Log(Mutex<Vec<String>>);

impl Log {
    fn push(&self, entry: String) {
        self.0.lock().unwrap().push(entry);
    }
    fn entries(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

/// A runnable type of its own that keeps the trait's defaults.
struct Plain(Arc<Log>);

impl Runnable for Plain {
    fn name(&self) -> &str {
        "plain"
    }
    fn start(self: Box<Self>, context: RunContext) -> BoxFuture<'static, Result<(), BoxError>> {
        self.0.push("start plain".into());
        Box::pin(async move {
            context.shutdown.cancelled().await;
            self.0.push("stop plain".into());
            Ok(())
        })
    }
}

/// A closure runnable named `name` that records its start (when the manager starts it) and its
/// stop.
fn recorded(
    log: &Arc<Log>,
    name: &'static str,
) -> kubeforge::manager::RunnableFn<
    impl FnOnce(RunContext) -> BoxFuture<'static, Result<(), std::io::Error>> + Send + 'static,
> {
    let log = log.clone();
    from_fn(name, move |context: RunContext| {
        log.push(format!("start {name}"));
        Box::pin(async move {
            context.shutdown.cancelled().await;
            log.push(format!("stop {name}"));
            Ok(())
        }) as BoxFuture<'static, Result<(), std::io::Error>>
    })
}

#[tokio::test]
async fn runnables_start_by_group_and_stop_in_reverse() {
    let env = env().await;
    let log = Arc::new(Log::default());

    let plain = Plain(log.clone());
    assert!(!plain.needs_leader_election(), "the trait's default");
    assert_eq!(plain.group(), RunnableGroup::Others);
    let elected = recorded(&log, "elected").leader_elected();
    assert!(elected.needs_leader_election());
    assert_eq!(elected.group(), RunnableGroup::LeaderElection);
    let server = recorded(&log, "server").in_group(RunnableGroup::Servers);
    assert!(!server.needs_leader_election());
    let other = recorded(&log, "other");
    assert_eq!(other.group(), RunnableGroup::Others);
    let webhooks = recorded(&log, "webhooks").in_group(RunnableGroup::Webhooks);
    let cache = recorded(&log, "cache").in_group(RunnableGroup::Caches);

    let mut options = options_in(&env);
    let mut election = LeaderElectionOptions::new(format!("runnables-{}", env.namespace()));
    election.lease_duration = Duration::from_secs(3);
    election.renew_deadline = Duration::from_secs(2);
    election.retry_period = Duration::from_millis(200);
    options.leader_election = Some(election);
    let mut manager = Manager::new(env.client(), options);
    // Added in the reverse of the order they start in.
    manager.add(elected);
    manager.add(plain);
    manager.add(other);
    manager.add(cache);
    manager.add(webhooks);
    manager.add(server);
    let stop = manager.shutdown_handle();
    let task = tokio::spawn(manager.run());
    eventually(Duration::from_secs(10), "every runnable started", || {
        let log = log.clone();
        async move { log.entries().len() == 6 }
    })
    .await;
    stop.shutdown();
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("the manager stops")
        .unwrap()
        .expect("a clean stop");

    let entries = log.entries();
    let position = |entry: &str| {
        entries
            .iter()
            .position(|e| e == entry)
            .unwrap_or_else(|| panic!("{entry} missing from {entries:?}"))
    };
    // Servers, webhooks, caches, then the two of group Others in any order, the leader-elected
    // last.
    assert_eq!(
        entries[..3],
        ["start server", "start webhooks", "start cache"],
        "{entries:?}"
    );
    assert_eq!(entries[5], "start elected", "{entries:?}");
    assert!((3..5).contains(&position("start plain")) && (3..5).contains(&position("start other")));
    // Stopped in the reverse order: the leader-elected first, the servers last.
    assert_eq!(entries[6], "stop elected", "{entries:?}");
    assert!((7..9).contains(&position("stop plain")) && (7..9).contains(&position("stop other")));
    assert_eq!(
        entries[9..],
        ["stop cache", "stop webhooks", "stop server"],
        "{entries:?}"
    );
}
