//! Sharded controllers against the embedded API server: three managers in one process share
//! 3,000 objects; an instrumented reconcile records every overlap (an object reconciled by two
//! replicas, or twice, at once) through a replica joining, one leaving gracefully and one
//! crashing (its task aborted: its Lease simply stops being renewed). Short lease timings
//! (3 s lease, 2 s renew deadline, 200 ms retry period; the balance tests twice the first two) keep it quick; waits are generous (they
//! end as soon as their condition holds) because the test binary runs many tests at once. Also: owned objects
//! follow their owner's shard, a server that filters by `shardSelector` sends each
//! replica only its share, a replica that cannot renew (its requests failing, or hanging) stops
//! before its Lease expires and only then is taken over, and the `kubeforge_shard_*` metrics
//! follow the ranges, objects and handovers.

mod balance;
mod deadline;
mod metrics;
mod related;

use crate::common;

use common::*;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::{
    Api, CustomResourceExt, ResourceExt,
    api::{ObjectMeta, Patch, PatchParams, PostParams},
};
use kubeforge::{
    Action, Controller, Manager, ReconcileError,
    manager::ShutdownHandle,
    shard::{RangeSet, ShardGate, ShardingOptions},
};
use kubeforge_testenv::TestEnv;
use serde_json::json;
use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};
use tokio::task::JoinHandle;

const LEASE: Duration = Duration::from_secs(3);
const RETRY: Duration = Duration::from_millis(200);

/// What every reconcile of every replica records.
#[derive(Default)]
struct Tracker {
    /// Objects being reconciled now, by replica.
    running: Mutex<HashMap<String, &'static str>>,
    /// Every overlap seen: (object, replica already running it, replica starting it).
    overlaps: Mutex<Vec<(String, &'static str, &'static str)>>,
    /// Every reconcile, by object: replica and start time.
    log: Mutex<HashMap<String, Vec<(&'static str, Instant)>>>,
    /// When the last reconcile of each replica ended (finished or aborted).
    last_end: Mutex<HashMap<&'static str, Instant>>,
}

/// A reconcile in flight; dropping it (also when the reconcile is aborted) ends it.
struct Running(Arc<Tracker>, String, &'static str);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.running.lock().unwrap().remove(&self.1);
        self.0
            .last_end
            .lock()
            .unwrap()
            .insert(self.2, Instant::now());
    }
}

struct Ctx {
    replica: &'static str,
    tracker: Arc<Tracker>,
    /// How long each reconcile takes.
    hold: Duration,
}

/// Long enough for reconciles to be caught running across a handover.
const HOLD: Duration = Duration::from_millis(3);

async fn reconcile(w: Arc<Widget>, ctx: Arc<Ctx>) -> Result<Action, ReconcileError> {
    let key = key(&*w);
    {
        let mut running = ctx.tracker.running.lock().unwrap();
        if let Some(other) = running.insert(key.clone(), ctx.replica) {
            ctx.tracker
                .overlaps
                .lock()
                .unwrap()
                .push((key.clone(), other, ctx.replica));
        }
    }
    let _running = Running(ctx.tracker.clone(), key.clone(), ctx.replica);
    ctx.tracker
        .log
        .lock()
        .unwrap()
        .entry(key)
        .or_default()
        .push((ctx.replica, Instant::now()));
    tokio::time::sleep(ctx.hold).await;
    Ok(Action::await_change())
}

struct Replica {
    name: &'static str,
    gate: ShardGate,
    informer: Arc<kubeforge::cache::Informer<Widget>>,
    metrics: kubeforge::metrics::Metrics,
    shutdown: ShutdownHandle,
    task: JoinHandle<Result<(), kubeforge::Error>>,
}

fn sharding(identity: &str) -> ShardingOptions {
    let mut o = ShardingOptions::auto("widgets");
    o.identity = identity.into();
    o.lease_duration = LEASE;
    o.renew_deadline = Duration::from_secs(2);
    o.retry_period = RETRY;
    o
}

fn start(
    env: &TestEnv,
    name: &'static str,
    sharding: ShardingOptions,
    tracker: &Arc<Tracker>,
) -> Replica {
    start_holding(env, name, sharding, tracker, HOLD)
}

/// [`start`] with reconciles that take `hold` each.
fn start_holding(
    env: &TestEnv,
    name: &'static str,
    sharding: ShardingOptions,
    tracker: &Arc<Tracker>,
    hold: Duration,
) -> Replica {
    start_with(env, name, sharding, tracker, hold, |c| {
        c.max_concurrent_reconciles(8)
    })
}

/// A replica whose widget controller is `configure`d (its sources, its concurrency) before its
/// instrumented reconcile, taking `hold` each, is added.
fn start_with(
    env: &TestEnv,
    name: &'static str,
    sharding: ShardingOptions,
    tracker: &Arc<Tracker>,
    hold: Duration,
    configure: impl FnOnce(Controller<Widget>) -> Controller<Widget>,
) -> Replica {
    let mut options = options_in(env);
    options.sharding = Some(sharding);
    let mut manager = Manager::new(env.client(), options);
    let gate = manager.cache().shards().cloned().expect("a sharded cache");
    let informer = manager.cache().informer::<Widget>();
    manager.add(
        configure(Controller::<Widget>::new(&manager, "widget")).reconcile(
            reconcile,
            Arc::new(Ctx {
                replica: name,
                tracker: tracker.clone(),
                hold,
            }),
        ),
    );
    Replica {
        name,
        gate,
        informer,
        metrics: manager.metrics(),
        shutdown: manager.shutdown_handle(),
        task: tokio::spawn(manager.run()),
    }
}

/// Whether the replicas' active ranges cover the ring exactly once.
fn settled(replicas: &[&Replica]) -> bool {
    let sets: Vec<Arc<RangeSet>> = replicas.iter().map(|r| r.gate.active()).collect();
    let total: f64 = sets.iter().map(|s| s.fraction()).sum();
    let union = RangeSet::from_ranges(sets.iter().flat_map(|s| s.ranges().to_vec()));
    (total - 1.0).abs() < 1e-9 && union.is_full() && sets.iter().all(|s| !s.is_empty())
}

async fn settle(what: &str, replicas: &[&Replica]) {
    eventually(Duration::from_secs(60), what, || async {
        if let Some(r) = replicas.iter().find(|r| r.task.is_finished()) {
            panic!("replica {} stopped while waiting for {what}", r.name);
        }
        settled(replicas)
    })
    .await;
}

/// Keys reconciled by `replica` (any replica if `None`) since `since`.
fn reconciled_since(tracker: &Tracker, since: Instant, replica: Option<&str>) -> HashSet<String> {
    tracker
        .log
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, runs)| {
            runs.iter()
                .any(|(r, at)| *at >= since && replica.is_none_or(|x| x == *r))
        })
        .map(|(k, _)| k.clone())
        .collect()
}

/// Whether every key of `keys` was reconciled by `replica` (any if `None`) since `since`.
fn all_reconciled(
    tracker: &Tracker,
    keys: &HashSet<String>,
    since: Instant,
    replica: Option<&str>,
) -> bool {
    count_reconciled(tracker, keys, since, replica) == keys.len()
}

/// How many keys of `keys` were reconciled by `replica` (any if `None`) since `since`.
fn count_reconciled(
    tracker: &Tracker,
    keys: &HashSet<String>,
    since: Instant,
    replica: Option<&str>,
) -> usize {
    let log = tracker.log.lock().unwrap();
    keys.iter()
        .filter(|k| {
            log.get(*k).is_some_and(|runs| {
                runs.iter()
                    .any(|(r, at)| *at >= since && replica.is_none_or(|x| x == *r))
            })
        })
        .count()
}

fn assert_no_overlaps(tracker: &Tracker, phase: &str) {
    let overlaps = tracker.overlaps.lock().unwrap();
    assert!(
        overlaps.is_empty(),
        "{phase}: {} overlapping reconciles, first {:?}",
        overlaps.len(),
        overlaps.first()
    );
}

/// Patches every widget whose key is in `keys` (spec.size + 1), 32 at a time.
async fn touch(api: &Api<Widget>, names: &[String], size: i32) {
    use futures::StreamExt;
    futures::stream::iter(names.iter().cloned())
        .for_each_concurrent(32, |name| async move {
            api.patch(
                &name,
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"size": size}})),
            )
            .await
            .unwrap();
        })
        .await;
}

/// Creates `count` widgets named `<prefix>-<i>`; returns each one's key and shard hash.
async fn create_widgets(api: &Api<Widget>, prefix: &str, count: usize) -> HashMap<String, u64> {
    let mut hashes = HashMap::new();
    for i in 0..count {
        let w = Widget {
            metadata: ObjectMeta {
                name: Some(format!("{prefix}-{i}")),
                ..Default::default()
            },
            spec: WidgetSpec { size: 0 },
            status: None,
        };
        let w = api.create(&PostParams::default(), &w).await.unwrap();
        hashes.insert(key(&w), kubeforge::shard::ShardKey::Uid.hash(&w));
    }
    hashes
}

/// Changes every ConfigMap of `names` and waits until `widgets` widgets were reconciled since;
/// returns when the changes began.
async fn change_config_maps(
    cms: &Api<ConfigMap>,
    names: impl IntoIterator<Item = String>,
    tracker: &Tracker,
    widgets: usize,
) -> Instant {
    let since = Instant::now();
    for name in names {
        cms.patch(
            &name,
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"k": "v"}})),
        )
        .await
        .unwrap();
    }
    eventually(
        Duration::from_secs(60),
        "widgets reconciled after their ConfigMaps changed",
        || async { reconciled_since(tracker, since, None).len() == widgets },
    )
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    since
}
