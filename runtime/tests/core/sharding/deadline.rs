//! A replica that cannot renew its Lease (requests failing, or hanging, also while it leaves)
//! stops all work before the Lease expires, and only then is taken over.

use super::*;
use k8s_openapi::{api::coordination::v1::Lease, jiff::Timestamp};
use kube::api::ListParams;

/// When the shard Lease `lease` was last renewed: the `renewTime` its holder wrote, stamped
/// before sending (this process's wall clock, so it converts to an `Instant` here).
async fn last_renewal(env: &TestEnv, lease: &str) -> Instant {
    let leases: Api<Lease> = Api::default_namespaced(env.client());
    let own = leases
        .list(&ListParams::default().labels("kubeforge.dev/shard-group=widgets"))
        .await
        .unwrap()
        .items
        .into_iter()
        .find(|l| l.metadata.name.as_deref() == Some(lease))
        .expect("the Lease is still there");
    let renew_time = own.spec.and_then(|s| s.renew_time).expect("renewTime").0;
    let ago = Timestamp::now().as_microsecond() - renew_time.as_microsecond();
    Instant::now() - Duration::from_micros(u64::try_from(ago).unwrap())
}

/// A replica that cannot renew its member Lease stops all work after the renew deadline,
/// before its Lease expires for the others, and the manager exits with the reason.
#[tokio::test]
async fn a_replica_that_cannot_renew_stops_before_its_lease_expires() {
    use kubeforge_testenv::faults::{Failure, Matcher};
    let env = faulty_env().await;
    let faults = env.faults().unwrap();
    let tracker = Arc::new(Tracker::default());
    let a = start(&env, "a", sharding("a"), &tracker);
    eventually(Duration::from_secs(60), "a to own the ring", || async {
        a.gate.active().is_full()
    })
    .await;
    faults.fail_next(
        Matcher::any().resource("leases"),
        usize::MAX,
        Failure::status(500).message("etcd is down"),
    );
    let failing = Instant::now();
    let result = tokio::time::timeout(Duration::from_secs(60), a.task)
        .await
        .expect("the replica gives up")
        .unwrap();
    let stopped = failing.elapsed();
    println!(
        "replica that cannot renew stopped after {stopped:?} (renew deadline 2 s, lease {LEASE:?})"
    );
    assert!(
        matches!(result, Err(kubeforge::Error::ShardMembershipLost(_))),
        "{result:?}"
    );
    assert!(a.gate.active().is_empty(), "no range stays active");
    assert!(stopped < LEASE, "{stopped:?}");
    faults.clear();
}

/// A replica whose member Lease requests hang (a stalled connection, a server that never
/// answers) stops all work before its Lease can expire for the others, counted from its last
/// successful renewal: no reconcile of its objects starts after it stopped and none that ran
/// outlives the Lease (the manager aborts them). Only then does the other replica take its
/// objects over: never two owners at once.
#[tokio::test]
async fn a_replica_whose_renewals_hang_stops_before_its_lease_expires() {
    use kubeforge_testenv::faults::Matcher;
    const OBJECTS: usize = 40;
    // Slow reconciles, so some are running whenever the renewals start to hang.
    const SLOW: Duration = Duration::from_millis(400);
    let env = faulty_env().await;
    let faults = env.faults().unwrap();
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let hashes = create_widgets(&api, "h", OBJECTS).await;
    let tracker = Arc::new(Tracker::default());
    let a = start_holding(&env, "a", sharding("a"), &tracker, SLOW);
    let b = start_holding(&env, "b", sharding("b"), &tracker, SLOW);
    settle("a and b to split the ring", &[&a, &b]).await;
    let a_share = a.gate.active();
    let a_objects: HashSet<String> = hashes
        .iter()
        .filter(|(_, h)| a_share.contains(**h))
        .map(|(k, _)| k.clone())
        .collect();
    assert!(!a_objects.is_empty(), "a owns none of {OBJECTS} widgets");
    // A few of a's objects keep changing: whoever owns them reconciles them all along. Fewer
    // than a controller's 8 workers, so the work never piles up.
    let writer = {
        let api = api.clone();
        let names: Vec<String> = a_objects
            .iter()
            .take(4)
            .map(|k| k.split_once('/').unwrap().1.to_string())
            .collect();
        tokio::spawn(async move {
            for round in 1.. {
                touch(&api, &names, round).await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
    };
    let busy = Instant::now();
    eventually(
        Duration::from_secs(30),
        "a reconciling its objects",
        || async { !reconciled_since(&tracker, busy, Some("a")).is_empty() },
    )
    .await;

    // Every request naming a's Lease (its renewals) now waits a minute before the server
    // handles it. The list of the group's Leases names none, and b needs it: it stays quick.
    let lease = kubeforge::shard::membership::lease_name("widgets", "a");
    faults.latency(
        Matcher::any().resource("leases").name(lease.as_str()),
        Duration::from_secs(60),
    );
    let hung = Instant::now();
    let running_then = tracker
        .running
        .lock()
        .unwrap()
        .values()
        .filter(|r| **r == "a")
        .count();
    let (mut a_stopped, mut b_took) = (None, None);
    while (a_stopped.is_none() || b_took.is_none()) && hung.elapsed() < LEASE * 4 {
        if a_stopped.is_none() && a.gate.active().is_empty() {
            a_stopped = Some(Instant::now());
        }
        if b_took.is_none() && b.gate.active().is_full() {
            b_took = Some(Instant::now());
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // a's last successful renewal.
    let renewed = last_renewal(&env, &lease).await;
    let expires = renewed + LEASE;
    println!(
        "renewals hung {:?} after a's last renewal; a stopped {:?} and b owned the ring {:?} after it (renew deadline 2 s, lease {LEASE:?})",
        hung.saturating_duration_since(renewed),
        a_stopped.map(|t| t.saturating_duration_since(renewed)),
        b_took.map(|t| t.saturating_duration_since(renewed)),
    );
    let a_stopped = a_stopped.unwrap_or_else(|| {
        panic!(
            "a still works on {} of the ring {:?} after its renewals started to hang (its Lease expires for b {LEASE:?} after its last renewal)",
            a.gate.active(),
            hung.elapsed()
        )
    });
    assert!(
        a_stopped < expires,
        "a stopped {:?} after its last renewal, its Lease lasts {LEASE:?}",
        a_stopped - renewed
    );
    let result = tokio::time::timeout(Duration::from_secs(10), a.task)
        .await
        .expect("a's manager stops")
        .unwrap();
    assert!(
        matches!(result, Err(kubeforge::Error::ShardMembershipLost(_))),
        "{result:?}"
    );
    faults.clear();
    // Nothing of a's started after it stopped; what ran was aborted before its Lease expired.
    let last_start = tracker
        .log
        .lock()
        .unwrap()
        .values()
        .flatten()
        .filter(|(r, _)| *r == "a")
        .map(|(_, at)| *at)
        .max()
        .expect("a reconciled");
    assert!(
        last_start < a_stopped,
        "a started a reconcile {:?} after it stopped",
        last_start - a_stopped
    );
    assert!(
        !tracker.running.lock().unwrap().values().any(|r| *r == "a"),
        "a reconcile of a still runs"
    );
    let last_end = tracker.last_end.lock().unwrap()["a"];
    println!(
        "a ran {running_then} reconciles when its renewals started to hang; its last one ended {:?} after its last renewal",
        last_end.saturating_duration_since(renewed)
    );
    assert!(
        last_end < expires,
        "a reconcile of a ran until {:?} after a's last renewal, its Lease lasts {LEASE:?}",
        last_end - renewed
    );
    // b takes the whole ring only after a's last reconcile, and reconciles a's objects.
    let b_took = b_took.expect("b took a's ranges over");
    assert!(
        b_took > last_end,
        "b owned a's ranges {:?} before a's last reconcile ended",
        last_end - b_took
    );
    eventually(
        Duration::from_secs(30),
        "b reconciled a's objects",
        || async { all_reconciled(&tracker, &a_objects, b_took, Some("b")) },
    )
    .await;
    writer.abort();
    assert_no_overlaps(&tracker, "renewals hung");
    b.shutdown.shutdown();
    b.task.await.unwrap().unwrap();
}

/// A replica leaving gracefully while the requests on its Lease hang: it cannot renew while
/// its running reconciles drain, so at its renew deadline it gives up and the manager aborts
/// them; none outlives the Lease, and the other replica takes its objects over only then.
#[tokio::test]
async fn a_replica_leaving_while_its_renewals_hang_stops_before_its_lease_expires() {
    use kubeforge_testenv::faults::Matcher;
    // Reconciles far longer than the Lease: draining would outlast it.
    const STUCK: Duration = Duration::from_secs(20);
    let env = faulty_env().await;
    let faults = env.faults().unwrap();
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let tracker = Arc::new(Tracker::default());
    let a = start_holding(&env, "a", sharding("a"), &tracker, STUCK);
    let b = start_holding(&env, "b", sharding("b"), &tracker, STUCK);
    settle("a and b to split the ring", &[&a, &b]).await;
    let hashes = create_widgets(&api, "l", 8).await;
    let a_share = a.gate.active();
    let a_objects: HashSet<String> = hashes
        .iter()
        .filter(|(_, h)| a_share.contains(**h))
        .map(|(k, _)| k.clone())
        .collect();
    assert!(!a_objects.is_empty(), "a owns none of 8 widgets");
    eventually(
        Duration::from_secs(30),
        "a's reconciles running",
        || async { tracker.running.lock().unwrap().values().any(|r| *r == "a") },
    )
    .await;
    let lease = kubeforge::shard::membership::lease_name("widgets", "a");
    faults.latency(
        Matcher::any().resource("leases").name(lease.as_str()),
        Duration::from_secs(60),
    );
    a.shutdown.shutdown();
    let result = tokio::time::timeout(Duration::from_secs(15), a.task)
        .await
        .expect("a's manager stops before its reconciles would end");
    let stopped = Instant::now();
    faults.clear();
    let renewed = last_renewal(&env, &lease).await;
    let last_end = tracker.last_end.lock().unwrap()["a"];
    println!(
        "a left with hung renewals: stopped {:?}, its last reconcile ended {:?} after its last renewal (lease {LEASE:?}): {result:?}",
        stopped.saturating_duration_since(renewed),
        last_end.saturating_duration_since(renewed)
    );
    assert!(
        matches!(result, Ok(Err(kubeforge::Error::ShardMembershipLost(_)))),
        "{result:?}"
    );
    assert!(
        last_end < renewed + LEASE,
        "a reconcile of a ran until {:?} after a's last renewal, its Lease lasts {LEASE:?}",
        last_end - renewed
    );
    eventually(Duration::from_secs(30), "b to own the ring", || async {
        b.gate.active().is_full()
    })
    .await;
    let took = Instant::now();
    eventually(
        Duration::from_secs(30),
        "b reconciling a's objects",
        || async {
            let log = tracker.log.lock().unwrap();
            a_objects.iter().all(|k| {
                log.get(k)
                    .is_some_and(|runs| runs.iter().any(|(r, _)| *r == "b"))
            })
        },
    )
    .await;
    assert!(took > last_end);
    assert_no_overlaps(&tracker, "leave with hung renewals");
    b.task.abort();
}
