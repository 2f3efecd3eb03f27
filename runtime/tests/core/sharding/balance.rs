//! Every object reconciled by exactly one replica at a time through joins, leaves and crashes;
//! owned objects follow their owner's shard; a filtering server sends each replica its share.

use super::*;

/// How long a wait on thousands of reconciles may go without one more object done.
const STALL: Duration = Duration::from_secs(30);

/// The Lease of these tests' replicas: three managers share the in-process server with 3,000
/// objects and the join phase's writes, so on a loaded machine the module's 2 s renew deadline
/// can pass without a renewal and a healthy replica stops. Twice the module's timings keep
/// every handover check (the crash's bound follows this lease) without that.
const LEASE: Duration = Duration::from_secs(6);

fn sharding(identity: &str) -> ShardingOptions {
    let mut o = super::sharding(identity);
    o.lease_duration = LEASE;
    o.renew_deadline = Duration::from_secs(4);
    o
}

#[tokio::test]
async fn three_replicas_share_the_work_through_join_leave_and_crash_without_overlap() {
    use futures::StreamExt;
    const OBJECTS: usize = 3_000;
    let test_started = Instant::now();
    let env = TestEnv::builder()
        .crd(Widget::crd())
        .watch_history(200_000)
        .start()
        .await
        .unwrap();
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let names: Vec<String> = (0..OBJECTS).map(|i| format!("w-{i:04}")).collect();
    let mut uids: HashMap<String, u64> = HashMap::new();
    let created: Vec<Widget> = futures::stream::iter(names.iter().cloned())
        .map(|name| {
            let api = api.clone();
            async move {
                let w = Widget {
                    metadata: ObjectMeta {
                        name: Some(name),
                        ..Default::default()
                    },
                    spec: WidgetSpec { size: 0 },
                    status: None,
                };
                api.create(&PostParams::default(), &w).await.unwrap()
            }
        })
        .buffer_unordered(64)
        .collect()
        .await;
    for w in &created {
        uids.insert(key(w), kubeforge::shard::ShardKey::Uid.hash(w));
    }
    let keys: HashSet<String> = uids.keys().cloned().collect();
    println!("created {OBJECTS} widgets in {:?}", test_started.elapsed());
    let tracker = Arc::new(Tracker::default());

    // Two replicas start: between them every object is reconciled, each by the replica whose
    // ranges hold it.
    let t0 = Instant::now();
    let a = start(&env, "a", sharding("a"), &tracker);
    let b = start(&env, "b", sharding("b"), &tracker);
    settle("a and b to split the ring", &[&a, &b]).await;
    while_progressing(STALL, "every object reconciled", || async {
        (reconciled_since(&tracker, t0, None).len(), OBJECTS)
    })
    .await;
    // One resync: listing and reconciling every object from scratch.
    let resync = t0.elapsed();
    println!("2 replicas: all {OBJECTS} reconciled after {resync:?}");
    for (replica, r) in [(&a, "a"), (&b, "b")] {
        let mine = reconciled_since(&tracker, t0, Some(r));
        let share = replica.gate.active();
        // Each reconciled only its own objects (a range may have moved during start-up, so
        // check against the settled ranges only for objects reconciled after settling).
        assert!(!mine.is_empty(), "{r} reconciled nothing");
        println!(
            "{r}: {} objects, {:.0}% of the ring",
            mine.len(),
            share.fraction() * 100.0
        );
    }
    assert_no_overlaps(&tracker, "start");

    // A third replica joins while objects keep changing: it reconciles every object of its
    // share, and once the ring is split three ways each replica reconciles only its own.
    let writer = {
        let (api, names) = (api.clone(), names.clone());
        tokio::spawn(async move {
            for round in 1.. {
                let batch: Vec<String> = names
                    .iter()
                    .skip((round * 97) % 2700)
                    .take(100)
                    .cloned()
                    .collect();
                touch(&api, &batch, round as i32).await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
    };
    let join = Instant::now();
    let c = start(&env, "c", sharding("c"), &tracker);
    settle("a, b and c to split the ring", &[&a, &b, &c]).await;
    // The handovers are over: stop the traffic so the rest runs at full speed.
    writer.abort();
    let c_share = c.gate.active();
    let c_objects: HashSet<String> = keys
        .iter()
        .filter(|k| c_share.contains(uids[*k]))
        .cloned()
        .collect();
    while_progressing(STALL, "c reconciled its share", || async {
        let done = count_reconciled(&tracker, &c_objects, join, Some("c"));
        (done, c_objects.len())
    })
    .await;
    println!(
        "join: ring split three ways, c reconciled its {} objects after {:?}",
        c_objects.len(),
        join.elapsed()
    );
    for r in [&a, &b, &c] {
        let f = r.gate.active().fraction();
        assert!(
            (0.3..=0.37).contains(&f),
            "{} owns {:.3} of the ring",
            r.name,
            f
        );
    }
    let t1 = Instant::now();
    let sample: Vec<String> = names.iter().step_by(10).cloned().collect();
    touch(&api, &sample, 10_000).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while reconciled_since(&tracker, t1, None).len() < sample.len() {
        if Instant::now() > deadline {
            let done = reconciled_since(&tracker, t1, None);
            for k in sample
                .iter()
                .map(|n| format!("{}/{n}", env.namespace()))
                .filter(|k| !done.contains(k))
                .take(5)
            {
                let h = uids[&k];
                for r in [&a, &b, &c] {
                    let (ns, name) = k.split_once('/').unwrap();
                    let cached = r
                        .informer
                        .store()
                        .get(&kube::runtime::reflector::ObjectRef::new(name).within(ns));
                    println!(
                        "{k}: {} owns={} cached={:?} store={} received={}",
                        r.name,
                        r.gate.active().contains(h),
                        cached.map(|w| w.spec.size),
                        r.informer.store().len(),
                        r.informer.received()
                    );
                }
            }
            panic!("not every touched object was reconciled after the join");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for r in [&a, &b, &c] {
        let share = r.gate.active();
        for k in reconciled_since(&tracker, t1, Some(r.name)) {
            assert!(
                share.contains(uids[&k]),
                "{} reconciled {k}, outside its ranges",
                r.name
            );
        }
    }
    assert_no_overlaps(&tracker, "join");

    // b leaves gracefully: a and c take its ranges at once and reconcile its objects.
    let b_share = b.gate.active();
    let orphans: HashSet<String> = keys
        .iter()
        .filter(|k| b_share.contains(uids[*k]))
        .cloned()
        .collect();
    let leave = Instant::now();
    b.shutdown.shutdown();
    b.task.await.unwrap().unwrap();
    settle("a and c to split the ring after b left", &[&a, &c]).await;
    while_progressing(STALL, "b's objects reconciled by a or c", || async {
        let done = count_reconciled(&tracker, &orphans, leave, None);
        (done, orphans.len())
    })
    .await;
    println!(
        "graceful leave: b's {} objects reconciled by a and c after {:?}",
        orphans.len(),
        leave.elapsed()
    );
    assert_no_overlaps(&tracker, "graceful leave");

    // c crashes: its Lease stops being renewed; once it expires a owns everything.
    let c_share = c.gate.active();
    let orphans: HashSet<String> = keys
        .iter()
        .filter(|k| c_share.contains(uids[*k]))
        .cloned()
        .collect();
    let crash = Instant::now();
    c.task.abort();
    let _ = c.task.await;
    let mut taken_over = None;
    eventually(
        Duration::from_secs(30),
        "c's objects reconciled by a",
        || {
            if taken_over.is_none() && a.gate.active().is_full() {
                taken_over = Some(crash.elapsed());
            }
            let done = all_reconciled(&tracker, &orphans, crash, Some("a"));
            async move { done }
        },
    )
    .await;
    let failover = crash.elapsed();
    // The Lease says whole seconds (1.5 s is written as 2). Its last renewal was at most a
    // retry period (+20% jitter) before the crash, a sees it up to one round later and checks
    // expiry once per round: lease + two rounds until a takes the ranges over; then one
    // resync, a list and reconcile of the share, bounded by how long the start took.
    let lease = Duration::from_secs(LEASE.as_secs_f64().ceil() as u64);
    let bound = lease + RETRY.mul_f64(2.4) + resync;
    println!(
        "crash: a took c's ranges over {taken_over:?} and reconciled its {} orphaned objects {failover:?} after the crash (lease {lease:?}, retry period {RETRY:?}, one resync {resync:?}; bound {bound:?})",
        orphans.len()
    );
    assert!(
        taken_over.is_some_and(|t| t <= lease + RETRY.mul_f64(2.4) + Duration::from_millis(1500)),
        "{taken_over:?}"
    );
    assert!(failover <= bound, "{failover:?} > {bound:?}");
    assert!(a.gate.active().is_full());
    assert_no_overlaps(&tracker, "crash");
    a.shutdown.shutdown();
    a.task.await.unwrap().unwrap();
    println!("sharding test took {:?}", test_started.elapsed());
}

#[tokio::test]
async fn owned_objects_follow_their_owners_shard() {
    let env = env().await;
    let tracker = Arc::new(Tracker::default());
    let mut replicas = Vec::new();
    for (index, name) in [(0u32, "zero"), (1, "one")] {
        let mut options = options_in(&env);
        options.sharding = Some(ShardingOptions::fixed("owned", index, 2));
        let mut manager = Manager::new(env.client(), options);
        let gate = manager.cache().shards().cloned().unwrap();
        manager.add(
            Controller::<Widget>::new(&manager, "widget")
                .owns::<ConfigMap>()
                .reconcile(
                    reconcile,
                    Arc::new(Ctx {
                        replica: name,
                        tracker: tracker.clone(),
                        hold: HOLD,
                    }),
                ),
        );
        replicas.push((
            name,
            gate,
            manager.shutdown_handle(),
            tokio::spawn(manager.run()),
        ));
    }
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let mut widgets = Vec::new();
    for i in 0..40 {
        let w = create_widget(&env, &format!("o-{i}"), 1).await;
        let cm = ConfigMap {
            metadata: ObjectMeta {
                name: Some(format!("o-{i}-child")),
                owner_references: Some(vec![
                    k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
                        api_version: "test.kubeforge.dev/v1".into(),
                        kind: "Widget".into(),
                        name: w.name_any(),
                        uid: w.uid().unwrap(),
                        controller: Some(true),
                        ..Default::default()
                    },
                ]),
                ..Default::default()
            },
            ..Default::default()
        };
        cms.create(&PostParams::default(), &cm).await.unwrap();
        widgets.push(w);
    }
    let owner_of = |w: &Widget| {
        let h = kubeforge::shard::ShardKey::Uid.hash(w);
        replicas
            .iter()
            .find(|r| r.1.contains(h))
            .map(|r| r.0)
            .unwrap()
    };
    eventually(
        Duration::from_secs(60),
        "every widget reconciled",
        || async {
            reconciled_since(&tracker, Instant::now() - Duration::from_secs(60), None).len() == 40
        },
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Changing a child reconciles its owner on the owner's replica only.
    let since =
        change_config_maps(&cms, (0..40).map(|i| format!("o-{i}-child")), &tracker, 40).await;
    let log = tracker.log.lock().unwrap().clone();
    let mut by_replica: HashMap<&str, usize> = HashMap::new();
    for w in &widgets {
        let runs: Vec<&str> = log
            .get(&key(w))
            .into_iter()
            .flatten()
            .filter(|(_, at)| *at >= since)
            .map(|(r, _)| *r)
            .collect();
        assert!(
            !runs.is_empty() && runs.iter().all(|r| *r == owner_of(w)),
            "{}: {runs:?}, owner {}",
            key(w),
            owner_of(w)
        );
        *by_replica.entry(owner_of(w)).or_default() += 1;
    }
    assert_eq!(
        by_replica.len(),
        2,
        "both replicas own some of 40 widgets: {by_replica:?}"
    );
    assert_no_overlaps(&tracker, "owned");
    for (_, _, shutdown, task) in replicas {
        shutdown.shutdown();
        task.await.unwrap().unwrap();
    }
}

/// Each replica's widget informer: how many watch events (list items included) it received.
async fn received_by_two_static_replicas(env: &TestEnv, objects: usize) -> Vec<(u64, usize)> {
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    for i in 0..objects {
        api.create(
            &PostParams::default(),
            &Widget {
                metadata: ObjectMeta {
                    name: Some(format!("s-{i}")),
                    ..Default::default()
                },
                spec: WidgetSpec { size: 0 },
                status: None,
            },
        )
        .await
        .unwrap();
    }
    let tracker = Arc::new(Tracker::default());
    let mut out = Vec::new();
    let mut running = Vec::new();
    for index in 0..2u32 {
        let mut options = options_in(env);
        options.sharding = Some(ShardingOptions::fixed("static", index, 2));
        let mut manager = Manager::new(env.client(), options);
        let informer = manager.cache().informer::<Widget>();
        manager.add(Controller::<Widget>::new(&manager, "widget").reconcile(
            reconcile,
            Arc::new(Ctx {
                replica: "s",
                tracker: tracker.clone(),
                hold: HOLD,
            }),
        ));
        running.push((
            informer,
            manager.shutdown_handle(),
            tokio::spawn(manager.run()),
        ));
    }
    eventually(
        Duration::from_secs(60),
        "every widget reconciled",
        || async { tracker.log.lock().unwrap().len() == objects },
    )
    .await;
    for (informer, shutdown, task) in running {
        out.push((informer.received(), informer.store().len()));
        shutdown.shutdown();
        task.await.unwrap().unwrap();
    }
    assert_no_overlaps(&tracker, "static");
    out
}

#[tokio::test]
async fn a_server_that_filters_by_shard_sends_each_replica_only_its_share() {
    const OBJECTS: usize = 200;
    // The API server with ShardedListAndWatch: each replica receives only its share. Only the
    // embedded server has the gate, so this half runs on it whatever `KUBEFORGE_TEST_CLUSTER`
    // says; the other half runs on the server it selects.
    let sharded = TestEnv::builder()
        .mode(kubeforge_testenv::Mode::Embedded)
        .crd(Widget::crd())
        .feature_gate("ShardedListAndWatch", true)
        .start()
        .await
        .unwrap();
    let server_side = received_by_two_static_replicas(&sharded, OBJECTS).await;
    // Without it (the default, as on a real server): every replica receives every object and
    // keeps its share.
    let plain = env().await;
    let client_side = received_by_two_static_replicas(&plain, OBJECTS).await;
    println!(
        "received (events, cached) per replica: server-side {server_side:?}, client-side {client_side:?}"
    );
    for (received, cached) in &server_side {
        assert_eq!(
            *received as usize, *cached,
            "the server sent only the share"
        );
    }
    assert_eq!(server_side.iter().map(|r| r.1).sum::<usize>(), OBJECTS);
    for (received, _) in &client_side {
        assert!(
            *received as usize >= OBJECTS,
            "without server-side filtering every object arrives"
        );
    }
    assert_eq!(client_side.iter().map(|r| r.1).sum::<usize>(), OBJECTS);
}
