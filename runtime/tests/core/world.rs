//! State-of-world controllers against the embedded API server: one call with a snapshot of a
//! custom and a built-in kind, typed changes, batching while a reconcile runs, retries with
//! backoff on the latest snapshot, terminal errors, metrics.

use crate::common;

use common::*;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::{
    Api,
    api::{DeleteParams, ObjectMeta, Patch, PatchParams, PostParams},
};
use kubeforge::{
    Manager, ReconcileError,
    controller::RateLimit,
    world::{Change, Changes, Snapshot, WorldController},
};
use serde_json::json;
use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

/// What one reconcile saw.
#[derive(Debug, Clone)]
struct Call {
    widgets: Vec<String>,
    config_maps: Vec<String>,
    changes: Vec<String>,
}

fn describe(changes: &Changes) -> Vec<String> {
    let mut out: Vec<String> = changes
        .summaries()
        .iter()
        .map(|s| format!("{:?} {} {}", s.change, s.kind, s.key.name))
        .collect();
    out.sort();
    out
}

fn record(snapshot: &Snapshot, changes: &Changes) -> Call {
    Call {
        widgets: snapshot
            .list::<Widget>()
            .iter()
            .map(|w| format!("{}={}", w.metadata.name.as_deref().unwrap(), w.spec.size))
            .collect(),
        config_maps: snapshot
            .list::<ConfigMap>()
            .iter()
            .map(|c| c.metadata.name.clone().unwrap())
            .collect(),
        changes: describe(changes),
    }
}

async fn create_cm(env: &kubeforge_testenv::TestEnv, name: &str) {
    let api: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        ..Default::default()
    };
    api.create(&PostParams::default(), &cm).await.unwrap();
}

/// What the reconciles of a test saw, shared with the test.
#[derive(Default)]
struct Recorder {
    calls: Mutex<Vec<Call>>,
    widget_changes: Mutex<Vec<String>>,
    running: AtomicUsize,
    overlaps: AtomicUsize,
    /// Calls to fail before succeeding.
    fail: AtomicUsize,
    /// How long each call takes.
    hold: Mutex<Duration>,
    terminal: bool,
}

impl Recorder {
    fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }
}

async fn reconcile(
    snapshot: Arc<Snapshot>,
    changes: Changes,
    rec: Arc<Recorder>,
) -> Result<(), ReconcileError> {
    if rec.running.fetch_add(1, Ordering::SeqCst) > 0 {
        rec.overlaps.fetch_add(1, Ordering::SeqCst);
    }
    rec.calls.lock().unwrap().push(record(&snapshot, &changes));
    for change in changes.of::<Widget>() {
        rec.widget_changes.lock().unwrap().push(match change {
            Change::Added(w) => format!("added {}", w.spec.size),
            Change::Updated { old, new } => format!("updated {}->{}", old.spec.size, new.spec.size),
            Change::Deleted(w) => format!("deleted {}", w.spec.size),
        });
    }
    let hold = *rec.hold.lock().unwrap();
    tokio::time::sleep(hold).await;
    rec.running.fetch_sub(1, Ordering::SeqCst);
    let failing = rec
        .fail
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    match (failing, rec.terminal) {
        (false, _) => Ok(()),
        (true, false) => Err(ReconcileError::new("downstream unavailable")),
        (true, true) => Err(ReconcileError::terminal("bad policy")),
    }
}

fn world(manager: &Manager) -> WorldController {
    WorldController::new(manager, "world")
        .watches::<Widget>()
        .watches::<ConfigMap>()
        .debounce(Duration::from_millis(20))
}

#[tokio::test]
async fn one_call_sees_custom_and_builtin_kinds_then_typed_changes() {
    let env = env().await;
    create_widget(&env, "a", 1).await;
    create_widget(&env, "b", 2).await;
    create_cm(&env, "settings").await;

    let mut manager = Manager::new(env.client(), options_in(&env));
    let rec = Arc::new(Recorder::default());
    // No debounce: the first call must still hold the whole world.
    manager.add(
        world(&manager)
            .debounce(Duration::ZERO)
            .reconcile(reconcile, rec.clone()),
    );
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());

    eventually(Duration::from_secs(10), "the first call", || async {
        !rec.calls().is_empty()
    })
    .await;
    let first = rec.calls()[0].clone();
    assert_eq!(first.widgets, ["a=1", "b=2"]);
    assert!(
        first.config_maps.contains(&"settings".to_string()),
        "{first:?}"
    );
    assert!(
        first
            .changes
            .contains(&"Created test.kubeforge.dev/v1/Widget a".to_string())
    );
    assert!(
        first
            .changes
            .contains(&"Created v1/ConfigMap settings".to_string())
    );

    let widgets: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    widgets
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": 5}})),
        )
        .await
        .unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    cms.delete("settings", &DeleteParams::default())
        .await
        .unwrap();
    eventually(
        Duration::from_secs(10),
        "the update and the deletion",
        || async {
            let seen: Vec<String> = rec
                .calls()
                .iter()
                .skip(1)
                .flat_map(|c| c.changes.clone())
                .collect();
            seen.contains(&"Updated test.kubeforge.dev/v1/Widget a".to_string())
                && seen.contains(&"Deleted v1/ConfigMap settings".to_string())
        },
    )
    .await;
    let last = rec.calls().last().unwrap().clone();
    assert_eq!(last.widgets, ["a=5", "b=2"]);
    assert!(!last.config_maps.contains(&"settings".to_string()));
    let typed = rec.widget_changes.lock().unwrap().clone();
    assert_eq!(typed, ["added 1", "added 2", "updated 1->5"]);

    shutdown.shutdown();
    running.await.unwrap().expect("manager stops cleanly");
}

#[tokio::test]
async fn changes_during_a_reconcile_are_batched_and_calls_never_overlap() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    let rec = Arc::new(Recorder::default());
    *rec.hold.lock().unwrap() = Duration::from_millis(300);
    manager.add(world(&manager).reconcile(reconcile, rec.clone()));
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    eventually(Duration::from_secs(10), "the first call", || async {
        !rec.calls().is_empty()
    })
    .await;

    for i in 0..20 {
        create_widget(&env, &format!("w{i:02}"), i).await;
    }
    eventually(
        Duration::from_secs(20),
        "every widget in a snapshot",
        || async { rec.calls().last().is_some_and(|c| c.widgets.len() == 20) },
    )
    .await;
    let calls = rec.calls();
    let created: usize = calls
        .iter()
        .flat_map(|c| &c.changes)
        .filter(|c| c.starts_with("Created test.kubeforge.dev/v1/Widget"))
        .count();
    assert_eq!(
        created, 20,
        "each widget reported created exactly once: {calls:?}"
    );
    assert!(
        calls.len() <= 10,
        "20 creations during 300 ms reconciles are batched, not one call each: {} calls",
        calls.len()
    );
    assert_eq!(
        rec.overlaps.load(Ordering::SeqCst),
        0,
        "two calls overlapped"
    );

    shutdown.shutdown();
    running.await.unwrap().expect("manager stops cleanly");
}

#[tokio::test]
async fn a_failing_reconcile_is_retried_with_backoff_on_the_latest_snapshot() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    let rec = Arc::new(Recorder::default());
    rec.fail.store(3, Ordering::SeqCst);
    create_widget(&env, "first", 1).await;
    manager.add(
        world(&manager)
            .rate_limit(RateLimit {
                base_delay: Duration::from_millis(100),
                ..RateLimit::default()
            })
            .reconcile(reconcile, rec.clone()),
    );
    let metrics = manager.metrics();
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    eventually(Duration::from_secs(10), "a failed call", || async {
        !rec.calls().is_empty()
    })
    .await;
    // Arrives while the controller backs off: the retry sees it too.
    create_widget(&env, "second", 2).await;
    eventually(Duration::from_secs(10), "four calls", || async {
        rec.calls().len() >= 4
    })
    .await;
    let calls = rec.calls();
    // Backoff 100, 200, 400 ms: the fourth (successful) call carries every change since the
    // last success, with the latest world.
    let fourth = &calls[3];
    assert_eq!(fourth.widgets, ["first=1", "second=2"]);
    assert!(
        fourth
            .changes
            .contains(&"Created test.kubeforge.dev/v1/Widget first".to_string()),
        "{fourth:?}"
    );
    assert!(
        fourth
            .changes
            .contains(&"Created test.kubeforge.dev/v1/Widget second".to_string()),
        "{fourth:?}"
    );

    // After the success nothing is pending: no further call without a change.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rec.calls().len(), 4);

    let text = metrics.render();
    assert!(
        text.contains("controller_runtime_reconcile_errors_total{controller=\"world\"} 3"),
        "{text}"
    );
    assert!(
        text.contains(
            "controller_runtime_reconcile_total{controller=\"world\",result=\"success\"} 1"
        ),
        "{text}"
    );
    assert!(
        text.contains("workqueue_retries_total{name=\"world\",controller=\"world\"} 3"),
        "{text}"
    );
    shutdown.shutdown();
    running.await.unwrap().expect("manager stops cleanly");
}

#[tokio::test]
async fn a_terminal_error_drops_the_batch_until_the_next_change() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    let rec = Arc::new(Recorder {
        terminal: true,
        ..Default::default()
    });
    rec.fail.store(1, Ordering::SeqCst);
    create_widget(&env, "bad", 1).await;
    manager.add(world(&manager).reconcile(reconcile, rec.clone()));
    let metrics = manager.metrics();
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    eventually(Duration::from_secs(10), "the terminal failure", || async {
        !rec.calls().is_empty()
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rec.calls().len(), 1, "a terminal error is not retried");
    create_cm(&env, "next").await;
    eventually(Duration::from_secs(10), "the next change", || async {
        rec.calls().len() == 2
    })
    .await;
    let second = &rec.calls()[1];
    assert_eq!(
        second.changes,
        ["Created v1/ConfigMap next"],
        "the failed batch is not re-sent"
    );
    assert!(
        metrics
            .render()
            .contains("controller_runtime_terminal_reconcile_errors_total{controller=\"world\"} 1")
    );
    shutdown.shutdown();
    running.await.unwrap().expect("manager stops cleanly");
}

#[tokio::test]
async fn a_world_of_no_kind_is_refused_with_the_fix() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    manager.add(
        WorldController::new(&manager, "empty").reconcile(reconcile, Arc::new(Recorder::default())),
    );
    let err = manager
        .run()
        .await
        .expect_err("a controller watching nothing is a mistake");
    let message = err.to_string();
    assert!(message.contains("\"empty\" watches no kind"), "{message}");
    assert!(message.contains("add .watches::<K>()"), "{message}");
}

#[tokio::test]
async fn panics_are_caught_and_retried_and_requeue_after_calls_again_without_changes() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    struct Ctx {
        calls: AtomicUsize,
        empty_calls: AtomicUsize,
    }
    let ctx = Arc::new(Ctx {
        calls: AtomicUsize::new(0),
        empty_calls: AtomicUsize::new(0),
    });
    async fn reconcile(
        _snapshot: Arc<Snapshot>,
        changes: Changes,
        ctx: Arc<Ctx>,
    ) -> Result<kubeforge::world::Requeue, ReconcileError> {
        if ctx.calls.fetch_add(1, Ordering::SeqCst) == 0 {
            panic!("first call panics");
        }
        if changes.is_empty() {
            ctx.empty_calls.fetch_add(1, Ordering::SeqCst);
        }
        Ok(kubeforge::world::Requeue::After(Duration::from_millis(50)))
    }
    manager.add(
        world(&manager)
            .rate_limit(RateLimit {
                base_delay: Duration::from_millis(10),
                ..RateLimit::default()
            })
            .reconcile(reconcile, ctx.clone()),
    );
    let metrics = manager.metrics();
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    eventually(Duration::from_secs(10), "requeued calls", || async {
        ctx.empty_calls.load(Ordering::SeqCst) >= 3
    })
    .await;
    let text = metrics.render();
    assert!(
        text.contains("controller_runtime_reconcile_panics_total{controller=\"world\"} 1"),
        "{text}"
    );
    assert!(
        text.contains(
            "controller_runtime_reconcile_total{controller=\"world\",result=\"requeue_after\"}"
        ),
        "{text}"
    );
    shutdown.shutdown();
    running.await.unwrap().expect("manager stops cleanly");
}
