//! Healing of state-of-world controllers, proved with the embedded API server's fault
//! injection: watch events that never arrive are corrected by the periodic re-list within one
//! period; compacted history with closed watches is corrected by the cache's own re-list; a
//! failing re-list keeps the world and heals at the next period. Also: the world reads the
//! shared cache (one watch per kind, whatever the number of controllers).

use crate::common;

use common::*;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::{
    Api,
    api::{DeleteParams, ObjectMeta, Patch, PatchParams, PostParams},
};
use kubeforge::{
    Manager, ReconcileError,
    world::{ChangeSummary, Changes, Snapshot, WorldController},
};
use kubeforge_testenv::{
    TestEnv,
    faults::{Failure, Matcher},
};
use serde_json::json;
use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
    time::Duration,
};

/// The ConfigMaps of the latest snapshot (name -> value of key "v") and every change seen.
#[derive(Default)]
struct Seen {
    world: Mutex<BTreeMap<String, String>>,
    changes: Mutex<Vec<ChangeSummary>>,
}

impl Seen {
    fn world(&self) -> BTreeMap<String, String> {
        self.world.lock().unwrap().clone()
    }
    fn healed(&self) -> Vec<String> {
        let mut healed: Vec<String> = self
            .changes
            .lock()
            .unwrap()
            .iter()
            .filter(|c| c.healed)
            .map(|c| format!("{:?} {}", c.change, c.key.name))
            .collect();
        healed.sort();
        healed
    }
}

async fn reconcile(
    snapshot: Arc<Snapshot>,
    changes: Changes,
    seen: Arc<Seen>,
) -> Result<(), ReconcileError> {
    // Every namespace also holds the cluster's `kube-root-ca.crt`, as on a cluster.
    let own = |name: &str| name != "kube-root-ca.crt";
    *seen.world.lock().unwrap() = snapshot
        .list::<ConfigMap>()
        .iter()
        .filter(|c| c.metadata.name.as_deref().is_some_and(own))
        .map(|c| {
            let value = c
                .data
                .as_ref()
                .and_then(|d| d.get("v"))
                .cloned()
                .unwrap_or_default();
            (c.metadata.name.clone().unwrap(), value)
        })
        .collect();
    seen.changes
        .lock()
        .unwrap()
        .extend(changes.summaries().into_iter().filter(|c| own(&c.key.name)));
    Ok(())
}

async fn put(env: &TestEnv, name: &str, value: &str) {
    let api: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        data: Some([("v".to_string(), value.to_string())].into()),
        ..Default::default()
    };
    api.create(&PostParams::default(), &cm).await.unwrap();
}

async fn set(env: &TestEnv, name: &str, value: &str) {
    let api: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    api.patch(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"v": value}})),
    )
    .await
    .unwrap();
}

fn expect(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Starts a manager with a world controller over ConfigMaps, waits for its first call.
async fn start(env: &TestEnv, resync: Option<Duration>) -> (Manager, Arc<Seen>) {
    let mut manager = Manager::new(env.client(), options_in(env));
    let seen = Arc::new(Seen::default());
    let mut world = WorldController::new(&manager, "healing")
        .watches::<ConfigMap>()
        .debounce(Duration::from_millis(10));
    if let Some(period) = resync {
        world = world.resync(period);
    }
    manager.add(world.reconcile(reconcile, seen.clone()));
    (manager, seen)
}

#[tokio::test]
async fn lost_watch_events_are_healed_within_one_resync_period() {
    let env = faulty_env().await;
    let faults = env.faults().expect("embedded server");
    put(&env, "a", "1").await;
    put(&env, "b", "1").await;
    let period = Duration::from_millis(500);
    let (manager, seen) = start(&env, Some(period)).await;
    let cache = manager.cache();
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    eventually(Duration::from_secs(10), "the first call", || async {
        seen.world() == expect(&[("a", "1"), ("b", "1")])
    })
    .await;

    // The next three ConfigMap events reach no watcher.
    faults.drop_watch_events(Matcher::any().resource("configmaps"), 3);
    set(&env, "a", "2").await;
    let api: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    api.delete("b", &DeleteParams::default()).await.unwrap();
    put(&env, "c", "1").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let cached: Vec<String> = cache
        .informer::<ConfigMap>()
        .store()
        .state()
        .iter()
        .map(|c| c.metadata.name.clone().unwrap())
        .collect();
    assert!(
        cached.contains(&"b".to_string()),
        "the watch lost the deletion: {cached:?}"
    );

    let started = tokio::time::Instant::now();
    eventually(Duration::from_secs(5), "the healed world", || async {
        seen.world() == expect(&[("a", "2"), ("c", "1")])
    })
    .await;
    let took = started.elapsed();
    // One period until the next re-list, plus slack for the list and the call on a loaded machine.
    assert!(
        took <= period + Duration::from_secs(2),
        "healed after {took:?}, period {period:?}"
    );
    assert_eq!(seen.healed(), ["Created c", "Deleted b", "Updated a"]);

    // Later events apply on top of the healed world as usual.
    set(&env, "c", "2").await;
    eventually(Duration::from_secs(5), "the next event", || async {
        seen.world() == expect(&[("a", "2"), ("c", "2")])
    })
    .await;
    shutdown.shutdown();
    running.await.unwrap().expect("manager stops cleanly");
}

#[tokio::test]
async fn compacted_history_and_closed_watches_converge_through_the_cache_relist() {
    let env = faulty_env().await;
    let faults = env.faults().expect("embedded server");
    put(&env, "a", "1").await;
    // No resync: the cache's own re-list after 410 Gone must carry the fix.
    let (manager, seen) = start(&env, None).await;
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    eventually(Duration::from_secs(10), "the first call", || async {
        seen.world() == expect(&[("a", "1")])
    })
    .await;

    faults.drop_watch_events(Matcher::any().resource("configmaps"), 1);
    set(&env, "a", "2").await;
    // The watch resumes from before the lost event: compacted away, so 410 Gone and a re-list.
    faults.compact();
    assert!(faults.close_watches() >= 1);
    eventually(Duration::from_secs(10), "the converged world", || async {
        seen.world() == expect(&[("a", "2")])
    })
    .await;
    assert!(
        seen.healed().is_empty(),
        "the cache's re-list healed it, not a resync"
    );
    shutdown.shutdown();
    running.await.unwrap().expect("manager stops cleanly");
}

#[tokio::test]
async fn a_failing_resync_keeps_the_world_and_heals_at_the_next_period() {
    let env = faulty_env().await;
    let faults = env.faults().expect("embedded server");
    put(&env, "a", "1").await;
    let (manager, seen) = start(&env, Some(Duration::from_millis(300))).await;
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    eventually(Duration::from_secs(10), "the first call", || async {
        seen.world() == expect(&[("a", "1")])
    })
    .await;
    faults.fail_next(
        Matcher::any().verb("list").resource("configmaps"),
        1,
        Failure::status(503),
    );
    faults.drop_watch_events(Matcher::any().resource("configmaps"), 1);
    set(&env, "a", "2").await;
    eventually(
        Duration::from_secs(5),
        "healing after the failed list",
        || async { seen.world() == expect(&[("a", "2")]) },
    )
    .await;
    assert!(faults.injected() >= 2, "both faults fired");
    assert_eq!(seen.healed(), ["Updated a"]);
    shutdown.shutdown();
    running.await.unwrap().expect("manager stops cleanly");
}

#[tokio::test]
async fn the_world_shares_the_cache_watches_with_per_object_controllers() {
    let env = faulty_env().await;
    let faults = env.faults().expect("embedded server");
    let (mut manager, seen) = start(&env, None).await;
    async fn noop(_: Arc<ConfigMap>, _: Arc<()>) -> Result<kubeforge::Action, ReconcileError> {
        Ok(kubeforge::Action::await_change())
    }
    manager.add(
        kubeforge::Controller::<ConfigMap>::new(&manager, "per-object")
            .reconcile(noop, Arc::new(())),
    );
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    put(&env, "a", "1").await;
    eventually(Duration::from_secs(10), "the world call", || async {
        seen.world() == expect(&[("a", "1")])
    })
    .await;
    assert_eq!(
        faults.open_watches(),
        1,
        "one ConfigMap watch for both controllers"
    );
    shutdown.shutdown();
    running.await.unwrap().expect("manager stops cleanly");
}
