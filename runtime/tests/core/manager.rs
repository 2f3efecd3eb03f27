//! The manager against the embedded API server: leader election with failover, graceful
//! shutdown with a reconcile in flight, probes and a metrics scrape, and a clear error when a
//! watched kind's CRD is missing.

use crate::common;

use common::*;
use kube::ResourceExt;
use kubeforge::{
    Action, Controller, Manager, ReconcileError,
    leader_election::LeaderElectionOptions,
    manager::{ManagerStatus, MetricsServerOptions},
};
use std::{
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::Duration,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A plain HTTP/1.1 GET; returns (status code, body).
async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await
        .unwrap();
    let mut response = String::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_string(&mut response))
        .await
        .expect("response within 5s")
        .unwrap();
    let code = response[9..12].parse().unwrap();
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (code, body)
}

async fn wait_addr(
    status: &ManagerStatus,
    f: impl Fn(&ManagerStatus) -> Option<SocketAddr>,
) -> SocketAddr {
    for _ in 0..500 {
        if let Some(a) = f(status) {
            return a;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("server did not bind");
}

#[tokio::test]
async fn probes_and_metrics_use_controller_runtime_names() {
    let env = env().await;
    let mut options = options_in(&env);
    options.health_probe_bind_address = Some("127.0.0.1:0".into());
    options.metrics = Some(MetricsServerOptions {
        bind_address: "127.0.0.1:0".into(),
        secure: false,
        cert_dir: None,
    });
    let mut manager = Manager::new(env.client(), options);
    let db_up = Arc::new(AtomicBool::new(false));
    let up = db_up.clone();
    manager.add_ready_check(
        "database",
        Arc::new(move || {
            let up = up.load(Ordering::SeqCst);
            Box::pin(async move {
                if up {
                    Ok(())
                } else {
                    Err("unreachable".into())
                }
            })
        }),
    );
    let reconcile =
        |_w: Arc<Widget>, _: Arc<()>| async { Ok::<_, ReconcileError>(Action::await_change()) };
    manager.add(
        Controller::<Widget>::new(&manager, "widget")
            .max_concurrent_reconciles(3)
            .reconcile(reconcile, Arc::new(())),
    );
    let status = manager.status();
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    let probes = wait_addr(&status, ManagerStatus::probe_addr).await;
    let metrics = wait_addr(&status, ManagerStatus::metrics_addr).await;

    assert_eq!(get(probes, "/healthz").await.0, 200);
    // A failing user check keeps the manager unready, and says why.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (code, body) = get(probes, "/readyz").await;
    assert_eq!(code, 500);
    assert!(body.contains("[-]database failed: unreachable"), "{body}");
    db_up.store(true, Ordering::SeqCst);
    eventually(Duration::from_secs(5), "ready after sync", || async {
        get(probes, "/readyz").await.0 == 200
    })
    .await;
    let (_, verbose) = get(probes, "/readyz?verbose").await;
    assert!(verbose.contains("[+]informers ok"), "{verbose}");

    create_widget(&env, "m", 1).await;
    eventually(Duration::from_secs(5), "reconciled", || async {
        get(metrics, "/metrics").await.1.contains(
            "controller_runtime_reconcile_total{controller=\"widget\",result=\"success\"} 1",
        )
    })
    .await;
    let (code, text) = get(metrics, "/metrics").await;
    assert_eq!(code, 200);
    for name in [
        "controller_runtime_reconcile_total",
        "controller_runtime_reconcile_errors_total",
        "controller_runtime_terminal_reconcile_errors_total",
        "controller_runtime_reconcile_panics_total",
        "controller_runtime_reconcile_time_seconds_bucket",
        "controller_runtime_max_concurrent_reconciles{controller=\"widget\"} 3",
        "controller_runtime_active_workers{controller=\"widget\"} 0",
        "workqueue_depth{name=\"widget\",controller=\"widget\"} 0",
        "workqueue_adds_total{name=\"widget\",controller=\"widget\"} 1",
        "workqueue_queue_duration_seconds_bucket",
        "workqueue_work_duration_seconds_bucket",
        "workqueue_retries_total",
    ] {
        assert!(text.contains(name), "missing {name}\n{text}");
    }
    assert_eq!(get(metrics, "/other").await.0, 404);
    shutdown.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test]
async fn graceful_shutdown_lets_the_running_reconcile_finish() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    #[derive(Default)]
    struct Ctx {
        started: AtomicBool,
        finished: AtomicBool,
    }
    let ctx = Arc::new(Ctx::default());
    let reconcile = |_w: Arc<Widget>, ctx: Arc<Ctx>| async move {
        ctx.started.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(300)).await;
        ctx.finished.store(true, Ordering::SeqCst);
        Ok::<_, ReconcileError>(Action::await_change())
    };
    manager.add(Controller::<Widget>::new(&manager, "widget").reconcile(reconcile, ctx.clone()));
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    create_widget(&env, "slow", 1).await;
    eventually(Duration::from_secs(5), "reconcile started", || async {
        ctx.started.load(Ordering::SeqCst)
    })
    .await;
    assert!(!ctx.finished.load(Ordering::SeqCst));
    shutdown.shutdown();
    running
        .await
        .unwrap()
        .expect("graceful stop is Ok (exit 0)");
    assert!(
        ctx.finished.load(Ordering::SeqCst),
        "in-flight reconcile was cut off"
    );
}

#[tokio::test]
async fn shutdown_timeout_is_reported() {
    let env = env().await;
    let mut options = options_in(&env);
    options.graceful_shutdown_timeout = Duration::from_millis(100);
    let mut manager = Manager::new(env.client(), options);
    let started = Arc::new(AtomicBool::new(false));
    let reconcile = |_w: Arc<Widget>, started: Arc<AtomicBool>| async move {
        started.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_secs(60)).await;
        Ok::<_, ReconcileError>(Action::await_change())
    };
    manager
        .add(Controller::<Widget>::new(&manager, "widget").reconcile(reconcile, started.clone()));
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    create_widget(&env, "stuck", 1).await;
    eventually(Duration::from_secs(5), "started", || async {
        started.load(Ordering::SeqCst)
    })
    .await;
    shutdown.shutdown();
    let result = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(result, Err(kubeforge::Error::ShutdownTimeout(_))),
        "{result:?}"
    );
}

/// A kind whose CRD no test installs (on a server shared by the tests of the process, the
/// Widget CRD may well be installed by another test).
#[derive(
    kube::CustomResource, serde::Serialize, serde::Deserialize, Clone, Debug, schemars::JsonSchema,
)]
#[kube(
    group = "test.kubeforge.dev",
    version = "v1",
    kind = "Unserved",
    namespaced
)]
pub struct UnservedSpec {
    pub size: i32,
}

#[tokio::test]
async fn missing_crd_fails_fast_with_a_clear_error() {
    let env = kubeforge_testenv::TestEnv::start().await.unwrap();
    let mut manager = Manager::new(env.client(), options_in(&env));
    let reconcile =
        |_w: Arc<Unserved>, _: Arc<()>| async { Ok::<_, ReconcileError>(Action::await_change()) };
    manager
        .add(Controller::<Unserved>::new(&manager, "unserved").reconcile(reconcile, Arc::new(())));
    let result = tokio::time::timeout(Duration::from_secs(10), manager.run())
        .await
        .expect("does not hang");
    let err = result.expect_err("a missing CRD is an error");
    assert!(
        matches!(err, kubeforge::Error::KindNotServed { .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("test.kubeforge.dev/v1/Unserved"),
        "{message}"
    );
    assert!(message.contains("CustomResourceDefinition"), "{message}");
}

fn election(identity: &str) -> LeaderElectionOptions {
    let mut le = LeaderElectionOptions::new("widget-operator-leader");
    le.identity = identity.into();
    // Short enough for a quick failover, long enough that a leader starved of CPU for a moment
    // (two test binaries' worth of tests on two cores) still renews in time.
    le.lease_duration = Duration::from_secs(3);
    le.renew_deadline = Duration::from_secs(2);
    le.retry_period = Duration::from_millis(200);
    le
}

#[tokio::test]
async fn exactly_one_leader_and_failover_after_it_stops() {
    let env = env().await;
    let reconciles: Arc<[AtomicUsize; 2]> = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
    let mut handles = Vec::new();
    for (i, id) in ["one", "two"].into_iter().enumerate() {
        let mut options = options_in(&env);
        options.leader_election = Some(election(id));
        let mut manager = Manager::new(env.client(), options);
        let counts = reconciles.clone();
        let reconcile = move |_w: Arc<Widget>, _: Arc<()>| {
            let counts = counts.clone();
            async move {
                counts[i].fetch_add(1, Ordering::SeqCst);
                Ok::<_, ReconcileError>(Action::await_change())
            }
        };
        manager
            .add(Controller::<Widget>::new(&manager, "widget").reconcile(reconcile, Arc::new(())));
        let status = manager.status();
        let shutdown = manager.shutdown_handle();
        handles.push((status, shutdown, tokio::spawn(manager.run())));
    }
    create_widget(&env, "x", 1).await;
    let leaders =
        |h: &Vec<(ManagerStatus, _, _)>| h.iter().filter(|(s, _, _)| s.is_leader()).count();
    eventually(Duration::from_secs(15), "a leader", || async {
        leaders(&handles) == 1
    })
    .await;
    // Never two leaders over a few lease periods.
    for _ in 0..100 {
        assert!(leaders(&handles) <= 1, "two leaders at once");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let first = handles.iter().position(|(s, _, _)| s.is_leader()).unwrap();
    let other = 1 - first;
    assert!(reconciles[first].load(Ordering::SeqCst) >= 1);
    assert_eq!(
        reconciles[other].load(Ordering::SeqCst),
        0,
        "the standby reconciled"
    );

    // Stop the leader (without releasing): the other takes over once the lease expires.
    let (_, stop, task) = handles.remove(first);
    stop.shutdown();
    task.await.unwrap().unwrap();
    let (status, stop, task) = handles.remove(0);
    eventually(Duration::from_secs(15), "failover", || async {
        status.is_leader()
    })
    .await;
    create_widget(&env, "y", 1).await;
    eventually(Duration::from_secs(15), "new leader reconciles", || async {
        reconciles[other].load(Ordering::SeqCst) >= 1
    })
    .await;
    stop.shutdown();
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn released_lease_is_taken_over_at_once_and_lost_lease_is_an_error() {
    let env = env().await;
    let mut a = election("a");
    a.release_on_cancel = true;
    a.lease_duration = Duration::from_secs(30);
    let mut options_a = options_in(&env);
    options_a.leader_election = Some(a);
    let manager_a = Manager::new(env.client(), options_a);
    let (status_a, stop_a) = (manager_a.status(), manager_a.shutdown_handle());
    let task_a = tokio::spawn(manager_a.run());
    eventually(Duration::from_secs(5), "a leads", || async {
        status_a.is_leader()
    })
    .await;

    let mut b = election("b");
    b.lease_duration = Duration::from_secs(30);
    let mut options_b = options_in(&env);
    options_b.leader_election = Some(b);
    let manager_b = Manager::new(env.client(), options_b);
    let status_b = manager_b.status();
    let task_b = tokio::spawn(manager_b.run());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!status_b.is_leader());
    stop_a.shutdown();
    task_a.await.unwrap().unwrap();
    // With a 30 s lease, only the release explains a takeover within 2 s.
    eventually(Duration::from_secs(2), "b takes over", || async {
        status_b.is_leader()
    })
    .await;

    // Someone else overwrites the lease: b loses it and its run fails.
    use k8s_openapi::api::coordination::v1::Lease;
    let leases: kube::Api<Lease> = kube::Api::namespaced(env.client(), env.namespace());
    let mut lease = leases.get("widget-operator-leader").await.unwrap();
    lease.spec.as_mut().unwrap().holder_identity = Some("intruder".into());
    leases
        .replace(&lease.name_any(), &Default::default(), &lease)
        .await
        .unwrap();
    let result = tokio::time::timeout(Duration::from_secs(5), task_b)
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(result, Err(kubeforge::Error::LeaderElectionLost(_))),
        "{result:?}"
    );
}

#[tokio::test]
async fn cache_sync_timeout_reports_the_last_watch_error() {
    let env = env().await;
    let mut options = options_in(&env);
    options.cache = kubeforge::cache::CacheConfig {
        sync_timeout: Duration::from_millis(500),
        ..Default::default()
    }
    .by_kind::<Widget>(kubeforge::cache::CacheOptions::default().labels("app in (web"));
    let mut manager = Manager::new(env.client(), options);
    let reconcile =
        |_w: Arc<Widget>, _: Arc<()>| async { Ok::<_, ReconcileError>(Action::await_change()) };
    manager.add(Controller::<Widget>::new(&manager, "widget").reconcile(reconcile, Arc::new(())));
    let result = tokio::time::timeout(Duration::from_secs(5), manager.run())
        .await
        .expect("gives up within the sync timeout");
    match result {
        Err(
            ref err @ kubeforge::Error::CacheSyncTimeout {
                ref kind,
                ref last_error,
                ..
            },
        ) => {
            assert_eq!(kind, "test.kubeforge.dev/v1/Widget");
            let cause = last_error.as_ref().expect("the cause is reported");
            // The watch error is the timeout's source, typed, not only text in its message.
            let source = std::error::Error::source(err).expect("a source");
            assert_eq!(source.to_string(), cause.to_string());
            assert!(err.to_string().contains(&cause.to_string()), "{err}");
        }
        other => panic!("expected a sync timeout, got {other:?}"),
    }
}
