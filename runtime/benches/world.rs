//! State-of-world benchmark: 10,000 objects across three kinds (a custom kind, ConfigMaps,
//! Secrets) exist before the controller starts.
//!
//! Two variants, each in its own process so heap and resident memory are not shared:
//! - `world`: one `WorldController` watching the three kinds (debounce 0);
//! - `per-object`: three `Controller`s, one per kind, over the same objects and cache.
//!
//! Reported per variant: time from cache sync to the first world call (the initial snapshot
//! built from every cached object) or until every object was reconciled once; heap growth
//! (a counting allocator: live bytes) and RSS growth from before the manager starts until
//! then; and reconcile latency after a single change (one ConfigMap patched, time from the
//! patch request until the reconcile sees the new version; 30 changes, one at a time). Also,
//! in-process: building a `Snapshot` from 10,000 objects with `Snapshot::builder`.
//!
//! Run: `cargo bench -p kubeforge --bench world` (`BENCH_OBJECTS` overrides the total).

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::{
    Api, CustomResource, CustomResourceExt, ResourceExt,
    api::{ObjectMeta, Patch, PatchParams, PostParams},
};
use kubeforge::{
    Action, Controller, Manager, ManagerOptions, ReconcileError,
    world::{Changes, Snapshot, WorldController},
};
use kubeforge_testenv::TestEnv;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::{
    alloc::{GlobalAlloc, Layout, System},
    collections::HashSet,
    process::Command,
    sync::{
        Arc, Mutex,
        atomic::{AtomicIsize, Ordering},
    },
    time::{Duration, Instant},
};

/// Counts live heap bytes.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live_mib() -> f64 {
    LIVE.load(Ordering::Relaxed) as f64 / (1024.0 * 1024.0)
}

fn rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .unwrap_or(0.0)
        / 1024.0
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[kube(
    group = "bench.kubeforge.dev",
    version = "v1",
    kind = "Item",
    namespaced
)]
struct ItemSpec {
    size: i32,
}

const PROBE: &str = "cm-00000";

/// What the reconciles report to the driver.
#[derive(Default)]
struct Probe {
    /// Objects reconciled at least once (per-object variant).
    reconciled: Mutex<HashSet<(String, String)>>,
    /// Objects in the first world snapshot.
    first_world: Mutex<Option<(usize, Instant)>>,
    /// The ConfigMap value being waited for, when its change was sent.
    expected: Mutex<Option<(String, Instant)>>,
    latencies: Mutex<Vec<Duration>>,
}

impl Probe {
    fn saw(&self, cm: &ConfigMap) {
        if cm.name_any() != PROBE {
            return;
        }
        let value = cm.data.as_ref().and_then(|d| d.get("v")).cloned();
        let mut expected = self.expected.lock().unwrap();
        if let Some((want, sent)) = expected.as_ref()
            && value.as_ref() == Some(want)
        {
            self.latencies.lock().unwrap().push(sent.elapsed());
            *expected = None;
        }
    }
}

async fn world_reconcile(
    snapshot: Arc<Snapshot>,
    changes: Changes,
    probe: Arc<Probe>,
) -> Result<(), ReconcileError> {
    probe
        .first_world
        .lock()
        .unwrap()
        .get_or_insert((snapshot.len(), Instant::now()));
    for change in changes.of::<ConfigMap>() {
        probe.saw(change.object());
    }
    Ok(())
}

async fn object_reconcile<K: kube::Resource<DynamicType = ()> + 'static>(
    obj: Arc<K>,
    probe: Arc<Probe>,
) -> Result<Action, ReconcileError> {
    if let Some(cm) = (obj.as_ref() as &dyn std::any::Any).downcast_ref::<ConfigMap>() {
        probe.saw(cm);
    }
    probe
        .reconciled
        .lock()
        .unwrap()
        .insert((K::kind(&()).to_string(), obj.name_any()));
    Ok(Action::await_change())
}

fn meta(name: String) -> ObjectMeta {
    ObjectMeta {
        name: Some(name),
        ..Default::default()
    }
}

async fn populate(env: &TestEnv, total: usize) {
    let per_kind = total / 3;
    let items: Api<Item> = Api::namespaced(env.client(), env.namespace());
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let secrets: Api<Secret> = Api::namespaced(env.client(), env.namespace());
    let pp = PostParams::default();
    futures::stream::iter(0..total)
        .for_each_concurrent(16, |i| {
            let (items, cms, secrets, pp) = (&items, &cms, &secrets, &pp);
            async move {
                let n = i / 3;
                match i % 3 {
                    0 => {
                        let item = Item::new(&format!("item-{n:05}"), ItemSpec { size: 1 });
                        items.create(pp, &item).await.map(drop)
                    }
                    1 => {
                        let cm = ConfigMap {
                            metadata: meta(format!("cm-{n:05}")),
                            data: Some([("v".to_string(), "0".to_string())].into()),
                            ..Default::default()
                        };
                        cms.create(pp, &cm).await.map(drop)
                    }
                    _ => {
                        let secret = Secret {
                            metadata: meta(format!("secret-{n:05}")),
                            string_data: Some([("k".to_string(), "value".to_string())].into()),
                            ..Default::default()
                        };
                        secrets.create(pp, &secret).await.map(drop)
                    }
                }
                .expect("create object");
            }
        })
        .await;
    let _ = per_kind;
}

async fn run_variant(variant: &str) {
    let total = std::env::var("BENCH_OBJECTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000usize);
    let env = TestEnv::builder()
        .crd(Item::crd())
        .watch_history(total * 2 + 10_000)
        .start()
        .await
        .expect("test API server");
    populate(&env, total).await;

    let options = ManagerOptions {
        handle_signals: false,
        ..Default::default()
    };
    let (heap_before, rss_before) = (live_mib(), rss_mib());
    let mut manager = Manager::new(env.client(), options);
    let probe = Arc::new(Probe::default());
    match variant {
        "world" => manager.add(
            WorldController::new(&manager, "world")
                .watches::<Item>()
                .watches::<ConfigMap>()
                .watches::<Secret>()
                .debounce(Duration::ZERO)
                .reconcile(world_reconcile, probe.clone()),
        ),
        _ => {
            manager.add(
                Controller::<Item>::new(&manager, "items")
                    .reconcile(object_reconcile::<Item>, probe.clone()),
            );
            manager.add(
                Controller::<ConfigMap>::new(&manager, "configmaps")
                    .reconcile(object_reconcile::<ConfigMap>, probe.clone()),
            );
            manager.add(
                Controller::<Secret>::new(&manager, "secrets")
                    .reconcile(object_reconcile::<Secret>, probe.clone()),
            );
        }
    }
    let cache = manager.cache();
    let shutdown = manager.shutdown_handle();
    let started = Instant::now();
    let running = tokio::spawn(manager.run());
    while !cache.is_synced() {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let synced = Instant::now();
    let ready = loop {
        let done = match variant {
            "world" => probe
                .first_world
                .lock()
                .unwrap()
                .map(|(n, at)| (n >= total - total % 3).then_some(at))
                .flatten(),
            _ => (probe.reconciled.lock().unwrap().len() >= total - total % 3).then(Instant::now),
        };
        if let Some(at) = done {
            break at;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    };
    let (heap_after, rss_after) = (live_mib(), rss_mib());

    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    for round in 1..=30 {
        let value = round.to_string();
        *probe.expected.lock().unwrap() = Some((value.clone(), Instant::now()));
        cms.patch(
            PROBE,
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"v": value}})),
        )
        .await
        .expect("patch probe");
        let deadline = Instant::now() + Duration::from_secs(10);
        while probe.expected.lock().unwrap().is_some() {
            assert!(Instant::now() < deadline, "change {round} never reconciled");
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
    }
    let mut latencies = probe.latencies.lock().unwrap().clone();
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    shutdown.shutdown();
    let _ = running.await;
    println!(
        "{}",
        json!({
            "variant": variant,
            "objects": total - total % 3,
            "start_to_cache_sync_ms": ms(synced - started),
            "sync_to_ready_ms": ms(ready.saturating_duration_since(synced)),
            "heap_growth_mib": heap_after - heap_before,
            "rss_growth_mib": rss_after - rss_before,
            "latency_p50_ms": ms(latencies[latencies.len() / 2]),
            "latency_max_ms": ms(*latencies.last().unwrap()),
        })
    );
}

/// Builds a snapshot of `total` objects in memory (no API server): time and heap.
fn snapshot_builder(total: usize) {
    let heap_before = live_mib();
    let started = Instant::now();
    let mut builder = Snapshot::builder();
    for i in 0..total / 3 {
        builder = builder
            .object(Item::new(&format!("item-{i:05}"), ItemSpec { size: 1 }))
            .object(ConfigMap {
                metadata: ObjectMeta {
                    name: Some(format!("cm-{i:05}")),
                    namespace: Some("default".into()),
                    ..Default::default()
                },
                ..Default::default()
            })
            .object(Secret {
                metadata: ObjectMeta {
                    name: Some(format!("secret-{i:05}")),
                    namespace: Some("default".into()),
                    ..Default::default()
                },
                ..Default::default()
            });
    }
    let snapshot = builder.build();
    let built = started.elapsed();
    let heap = live_mib() - heap_before;
    let started = Instant::now();
    let listed = snapshot.list::<ConfigMap>().len()
        + snapshot.list::<Item>().len()
        + snapshot.list::<Secret>().len();
    let list = started.elapsed();
    println!(
        "in-process Snapshot::builder, {listed} objects: build {:.1} ms, heap {:.2} MiB (objects included); typed list of all three kinds {:.2} ms",
        built.as_secs_f64() * 1000.0,
        heap,
        list.as_secs_f64() * 1000.0
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(pos) = args.iter().position(|a| a == "--variant") {
        let variant = args[pos + 1].clone();
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(run_variant(&variant));
        return;
    }
    let total = std::env::var("BENCH_OBJECTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000usize);
    snapshot_builder(total);
    let exe = std::env::current_exe().unwrap();
    let mut rows = Vec::new();
    for variant in ["per-object", "world"] {
        let out = Command::new(&exe)
            .args(["--variant", variant])
            .output()
            .expect("run variant");
        assert!(
            out.status.success(),
            "{variant} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let line = String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .unwrap_or("")
            .to_string();
        println!("{line}");
        rows.push(serde_json::from_str::<serde_json::Value>(&line).unwrap());
    }
    println!("\none run per variant:\n");
    println!(
        "| variant | objects | cache sync (ms) | sync to first world call / all reconciled (ms) | heap growth (MiB) | RSS growth (MiB) | single-change latency p50 (ms) | max (ms) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.1} | {:.1} | {:.2} | {:.2} |",
            r["variant"].as_str().unwrap(),
            r["objects"],
            r["start_to_cache_sync_ms"].as_f64().unwrap(),
            r["sync_to_ready_ms"].as_f64().unwrap(),
            r["heap_growth_mib"].as_f64().unwrap(),
            r["rss_growth_mib"].as_f64().unwrap(),
            r["latency_p50_ms"].as_f64().unwrap(),
            r["latency_max_ms"].as_f64().unwrap(),
        );
    }
}
