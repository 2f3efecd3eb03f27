//! Leader election with the default timings (15 s lease, 10 s renew deadline, 2 s retry
//! period) against the embedded API server: how long a killed leader takes to be replaced, a
//! released lease, and a leader that cannot renew. Each test prints its figure (the README
//! quotes them) and checks it against what client-go's semantics allow.

use crate::common;

use common::*;
use kubeforge::{
    Manager,
    leader_election::LeaderElectionOptions,
    manager::{ManagerStatus, ShutdownHandle},
};
use kubeforge_testenv::{
    TestEnv,
    faults::{Failure, Matcher},
};
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

type Running = (
    ManagerStatus,
    ShutdownHandle,
    JoinHandle<Result<(), kubeforge::Error>>,
);

/// A manager with default leader election for the lease `lease`, as `identity`.
fn candidate(env: &TestEnv, lease: &str, identity: &str, release_on_cancel: bool) -> Running {
    let mut election = LeaderElectionOptions::new(lease);
    election.identity = identity.into();
    election.release_on_cancel = release_on_cancel;
    let mut options = options_in(env);
    options.leader_election = Some(election);
    let manager = Manager::new(env.client(), options);
    let (status, shutdown) = (manager.status(), manager.shutdown_handle());
    (status, shutdown, tokio::spawn(manager.run()))
}

/// Polls every 10 ms until `status` leads; returns when it did.
async fn leads(status: &ManagerStatus, limit: Duration) -> Instant {
    eventually(limit, "leadership", || async { status.is_leader() }).await;
    Instant::now()
}

#[tokio::test]
async fn a_killed_leader_is_replaced_once_its_lease_expires() {
    let env = env().await;
    let (a, _, task_a) = candidate(&env, "kill", "a", false);
    leads(&a, Duration::from_secs(10)).await;
    let (b, stop_b, task_b) = candidate(&env, "kill", "b", false);
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(!b.is_leader(), "the standby waits while the leader renews");
    // Killed: no graceful stop, no release.
    task_a.abort();
    let killed = Instant::now();
    let replaced = leads(&b, Duration::from_secs(30)).await - killed;
    println!("killed leader replaced after {replaced:?} (lease 15 s)");
    // The standby takes over once the lease went unrenewed for its 15 s on its own clock: the
    // last renewal was at most a retry period (2 s) before the kill, and the standby looks
    // every 2 to 2.4 s.
    assert!(
        replaced >= Duration::from_secs(12) && replaced <= Duration::from_secs(20),
        "{replaced:?}"
    );
    stop_b.shutdown();
    task_b.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_released_lease_is_taken_over_at_the_standbys_next_attempt() {
    let env = env().await;
    let (a, stop_a, task_a) = candidate(&env, "release", "a", true);
    leads(&a, Duration::from_secs(10)).await;
    let (b, stop_b, task_b) = candidate(&env, "release", "b", false);
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!b.is_leader());
    let stopping = Instant::now();
    stop_a.shutdown();
    task_a.await.unwrap().unwrap();
    let taken = leads(&b, Duration::from_secs(10)).await - stopping;
    println!("released lease taken over after {taken:?} (retry period 2 s)");
    // Without the release the standby would wait out the 15 s lease; with it, its next
    // attempt (every 2 to 2.4 s) wins.
    assert!(taken <= Duration::from_secs(3), "{taken:?}");
    stop_b.shutdown();
    task_b.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_leader_that_cannot_renew_stops_before_its_lease_expires() {
    let env = faulty_env().await;
    let faults = env.faults().unwrap();
    let (a, _, task_a) = candidate(&env, "renew", "a", false);
    leads(&a, Duration::from_secs(10)).await;
    // Let it renew once more, then every lease request fails.
    tokio::time::sleep(Duration::from_secs(3)).await;
    faults.fail_next(
        Matcher::any().resource("leases"),
        usize::MAX,
        Failure::status(500).message("etcd is down"),
    );
    let failing = Instant::now();
    let result = tokio::time::timeout(Duration::from_secs(30), task_a)
        .await
        .expect("the leader gives up")
        .unwrap();
    let stopped = failing.elapsed();
    println!("leader that cannot renew stopped after {stopped:?} (renew deadline 10 s)");
    // The cause stays typed: the lease was not renewed, the last failure the API server's 500.
    match &result {
        Err(
            lost @ kubeforge::Error::LeaderElectionLost(
                kubeforge::leader_election::LeaseLost::NotRenewed {
                    last_error: Some(kube::Error::Api(status)),
                    ..
                },
            ),
        ) => {
            assert_eq!(status.code, 500, "{status:?}");
            let chain =
                std::iter::successors(Some(lost as &dyn std::error::Error), |e| e.source()).count();
            assert!(
                chain >= 3,
                "the lease error and the API error are sources: {lost:?}"
            );
        }
        other => panic!("expected a lease not renewed with its API error, got {other:?}"),
    }
    // It gives up 10 s after its last renewal, which was up to one retry period (2 s) before
    // the failures began: always before the 15 s lease lets another replica take over.
    assert!(
        stopped >= Duration::from_secs(7) && stopped <= Duration::from_secs(11),
        "{stopped:?}"
    );
    assert!(!a.is_leader());
}
