//! What a replica's share covers beyond the sharded kind's own objects: objects a controller
//! watches follow the shard of the object they map to, sharding by namespace puts a namespace's
//! objects on one replica, and a server that refuses `shardSelector` leaves the replica
//! filtering its share itself.

use super::*;
use kube::runtime::reflector::ObjectRef;
use kubeforge::shard::ShardKey;
use kubeforge_testenv::faults::{Failure, Matcher};

/// A replica with a fixed share (`index` of `count`) whose widget controller also watches
/// ConfigMaps, each mapped to the widget its `widget` label names.
fn start_watching(
    env: &TestEnv,
    name: &'static str,
    sharding: ShardingOptions,
    tracker: &Arc<Tracker>,
) -> Replica {
    start_with(env, name, sharding, tracker, HOLD, |c| {
        c.watches::<ConfigMap>(Vec::new(), |cm| {
            let namespace = cm.namespace().unwrap_or_default();
            cm.labels()
                .get("widget")
                .map(|w| vec![ObjectRef::new(w).within(&namespace)])
                .unwrap_or_default()
        })
    })
}

/// Sharded by namespace, every widget of the test's namespace is the one replica's whose range
/// holds the namespace's hash, and a change to a watched ConfigMap reconciles its widget there,
/// never on the other replica.
#[tokio::test]
async fn watched_objects_follow_their_mapped_objects_shard_by_namespace() {
    let env = env().await;
    let tracker = Arc::new(Tracker::default());
    let replicas: Vec<Replica> = [(0u32, "zero"), (1, "one")]
        .into_iter()
        .map(|(index, name)| {
            let mut sharding = ShardingOptions::fixed("by-namespace", index, 2);
            sharding.key = ShardKey::Namespace;
            start_watching(&env, name, sharding, &tracker)
        })
        .collect();
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let mut widgets = Vec::new();
    for i in 0..20 {
        let w = create_widget(&env, &format!("n-{i}"), 1).await;
        let cm = ConfigMap {
            metadata: ObjectMeta {
                name: Some(format!("n-{i}-settings")),
                labels: Some([("widget".to_owned(), w.name_any())].into()),
                ..Default::default()
            },
            ..Default::default()
        };
        cms.create(&PostParams::default(), &cm).await.unwrap();
        widgets.push(w);
    }
    let hash = ShardKey::Namespace.hash(&widgets[0]);
    assert!(
        widgets.iter().all(|w| ShardKey::Namespace.hash(w) == hash),
        "one namespace, one hash"
    );
    let owner = replicas
        .iter()
        .find(|r| r.gate.contains(hash))
        .map(|r| r.name)
        .expect("a replica owns the namespace");
    eventually(
        Duration::from_secs(60),
        "every widget reconciled",
        || async {
            reconciled_since(&tracker, Instant::now() - Duration::from_secs(60), None).len() == 20
        },
    )
    .await;
    // Changing a watched ConfigMap reconciles the widget it maps to, on the owner only.
    change_config_maps(
        &cms,
        (0..20).map(|i| format!("n-{i}-settings")),
        &tracker,
        20,
    )
    .await;
    let log = tracker.log.lock().unwrap().clone();
    for w in &widgets {
        let runs: Vec<&str> = log[&key(w)].iter().map(|(r, _)| *r).collect();
        assert!(
            runs.iter().all(|r| *r == owner),
            "{}: reconciled by {runs:?}, the namespace's replica is {owner}",
            key(w)
        );
    }
    assert_no_overlaps(&tracker, "by namespace");
    for r in replicas {
        r.shutdown.shutdown();
        r.task.await.unwrap().unwrap();
    }
}

/// A server that has the feature but refuses the selector (a 400 on the probe) is detected:
/// the replica watches everything and keeps its share itself, reconciling exactly the widgets
/// its range holds.
#[tokio::test]
async fn a_server_that_refuses_the_selector_leaves_the_filtering_to_the_replica() {
    let env = TestEnv::builder()
        .mode(kubeforge_testenv::Mode::Embedded)
        .crd(Widget::crd())
        .feature_gate("ShardedListAndWatch", true)
        .start()
        .await
        .unwrap();
    env.faults().unwrap().fail_next(
        Matcher::any().resource("widgets").verb("list"),
        1,
        Failure::status(400).message("invalid shard selector: not supported here"),
    );
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let mut hashes = HashMap::new();
    for i in 0..30 {
        let w = create_widget(&env, &format!("r-{i}"), 1).await;
        hashes.insert(key(&w), ShardKey::Uid.hash(&w));
    }
    let tracker = Arc::new(Tracker::default());
    let zero = start_watching(
        &env,
        "zero",
        ShardingOptions::fixed("refused", 0, 2),
        &tracker,
    );
    eventually(Duration::from_secs(30), "its share active", || async {
        !zero.gate.active().is_empty()
    })
    .await;
    let mine: HashSet<String> = hashes
        .iter()
        .filter(|(_, h)| zero.gate.contains(**h))
        .map(|(k, _)| k.clone())
        .collect();
    assert!(!mine.is_empty() && mine.len() < 30, "{} of 30", mine.len());
    eventually(Duration::from_secs(30), "its share reconciled", || async {
        reconciled_since(&tracker, Instant::now() - Duration::from_secs(60), None) == mine
    })
    .await;
    let series = "kubeforge_shard_server_side{kind=\"test.kubeforge.dev/v1/Widget\"} 0";
    assert!(
        zero.metrics.render().lines().any(|l| l == series),
        "the replica filters itself: {series} not in\n{}",
        zero.metrics.render()
    );
    // Still its share only, after every widget changed.
    let since = Instant::now();
    for name in hashes.keys() {
        let name = name.rsplit('/').next().unwrap();
        api.patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": 2}})),
        )
        .await
        .unwrap();
    }
    eventually(
        Duration::from_secs(30),
        "its share reconciled again",
        || async { reconciled_since(&tracker, since, None) == mine },
    )
    .await;
    zero.shutdown.shutdown();
    zero.task.await.unwrap().unwrap();
}
