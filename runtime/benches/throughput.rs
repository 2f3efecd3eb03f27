//! Throughput benchmark: kubeforge's Controller vs a raw kube-runtime Controller against the
//! same embedded API server.
//!
//! One run per variant, each in its own process (so resident memory is not shared):
//! N custom objects (default 10,000; `BENCH_OBJECTS` overrides) exist before the controller
//! starts; the reconcile patches `status.observed` once. Reported: time until every object has
//! been reconciled, resident memory growth from before the controller started until then, and
//! event-to-reconcile latency (p50/p99) for `BENCH_LATENCY_OBJECTS` (default 500) objects
//! created one by one while the controller runs. `BENCH_CONTROLLERS` (default 1) runs that many
//! controllers on the same kind: kubeforge's share one watch and cache, raw kube-runtime
//! controllers each have their own.
//!
//! The driver runs `BENCH_ROUNDS` rounds (default 15), each one process per variant, the two
//! back to back with the first alternating, and reports the median of each figure and the
//! median of the per-round throughput ratios (each round's two processes meet the same load
//! on a shared machine, so a round's ratio is less noisy than separate medians).
//!
//! Run: `cargo bench -p kubeforge --bench throughput`.

use futures::StreamExt;
use kube::{
    Api, CustomResource, CustomResourceExt, ResourceExt,
    api::{ObjectMeta, Patch, PatchParams, PostParams},
    runtime::{Controller as RawController, controller::Action, watcher},
};
use kubeforge::{Controller, Manager, ManagerOptions};
use kubeforge_testenv::TestEnv;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::{
    collections::{HashMap, HashSet},
    process::Command,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[kube(
    group = "bench.kubeforge.dev",
    version = "v1",
    kind = "Item",
    namespaced,
    status = "ItemStatus"
)]
struct ItemSpec {
    size: i32,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
struct ItemStatus {
    observed: Option<i32>,
}

const CONCURRENCY: u16 = 16;

struct Ctx {
    client: kube::Client,
    /// Objects whose status patch succeeded (a set: several controllers may patch one).
    reconciled: Mutex<HashSet<String>>,
    /// When each latency-phase object was created, and when its first reconcile started.
    created: Mutex<HashMap<String, Instant>>,
    latencies: Mutex<Vec<Duration>>,
    /// Reconcile calls and status patches sent, until every object was reconciled.
    calls: std::sync::atomic::AtomicU64,
    patches: std::sync::atomic::AtomicU64,
}

#[derive(Debug, thiserror::Error)]
#[error(transparent)]
struct BenchError(#[from] kube::Error);

async fn reconcile(item: Arc<Item>, ctx: Arc<Ctx>) -> Result<Action, BenchError> {
    let started = Instant::now();
    ctx.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if let Some(created) = ctx.created.lock().unwrap().remove(&item.name_any()) {
        ctx.latencies.lock().unwrap().push(started - created);
    }
    if item.status.as_ref().and_then(|s| s.observed) == Some(item.spec.size) {
        return Ok(Action::await_change());
    }
    let api: Api<Item> = Api::namespaced(ctx.client.clone(), &item.namespace().unwrap());
    ctx.patches
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    api.patch_status(
        &item.name_any(),
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"observed": item.spec.size}})),
    )
    .await?;
    ctx.reconciled.lock().unwrap().insert(item.name_any());
    Ok(Action::await_change())
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// CPU time (user + system) this process has used, in seconds (Linux, 100 ticks/s).
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // Fields after the parenthesised command name; utime and stime are 14th and 15th.
            let rest = s.rsplit_once(')')?.1;
            let f: Vec<&str> = rest.split_whitespace().collect();
            let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
            Some(ticks as f64 / 100.0)
        })
        .unwrap_or(0.0)
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn create(api: &Api<Item>, name: String) {
    let item = Item {
        metadata: ObjectMeta {
            name: Some(name),
            ..Default::default()
        },
        spec: ItemSpec { size: 1 },
        status: None,
    };
    api.create(&PostParams::default(), &item)
        .await
        .expect("create item");
}

/// One variant in this process; prints one JSON line.
async fn run_variant(variant: &str) {
    let objects = env_usize("BENCH_OBJECTS", 10_000);
    let latency_objects = env_usize("BENCH_LATENCY_OBJECTS", 500);
    let controllers = env_usize("BENCH_CONTROLLERS", 1).max(1);
    let env = TestEnv::builder()
        .crd(Item::crd())
        .watch_history(objects * 4 + 10_000)
        .start()
        .await
        .expect("test API server");
    let api: Api<Item> = Api::namespaced(env.client(), env.namespace());
    let setup = Instant::now();
    futures::stream::iter(0..objects)
        .for_each_concurrent(32, |i| create(&api, format!("item-{i:05}")))
        .await;
    let setup = setup.elapsed();

    let ctx = Arc::new(Ctx {
        client: env.client(),
        reconciled: Mutex::new(HashSet::new()),
        created: Mutex::new(HashMap::new()),
        latencies: Mutex::new(Vec::new()),
        calls: 0.into(),
        patches: 0.into(),
    });
    let rss_before = rss_kib();
    let cpu_before = cpu_seconds();
    let started = Instant::now();
    let stop = tokio_util::sync::CancellationToken::new();
    let task = match variant {
        "kubeforge" => {
            let mut manager = Manager::new(
                env.client(),
                ManagerOptions {
                    handle_signals: false,
                    ..Default::default()
                },
            );
            for c in 0..controllers {
                manager.add(
                    Controller::<Item>::new(&manager, &format!("item-{c}"))
                        .max_concurrent_reconciles(CONCURRENCY)
                        .reconcile(reconcile, ctx.clone()),
                );
            }
            let handle = manager.shutdown_handle();
            let stop = stop.clone();
            tokio::spawn(async move {
                tokio::spawn(async move {
                    stop.cancelled().await;
                    handle.shutdown();
                });
                manager.run().await.expect("manager runs");
            })
        }
        _ => {
            let ctx = ctx.clone();
            let stop = stop.clone();
            let client = env.client();
            tokio::spawn(async move {
                // Each raw controller runs its own watch and store.
                let runs = (0..controllers).map(|_| {
                    let stop = stop.clone();
                    RawController::new(Api::<Item>::all(client.clone()), watcher::Config::default())
                        .with_config(
                            kube::runtime::controller::Config::default().concurrency(CONCURRENCY),
                        )
                        .graceful_shutdown_on(async move { stop.cancelled().await })
                        .run(
                            reconcile,
                            |_, _: &BenchError, _| Action::requeue(Duration::from_millis(5)),
                            ctx.clone(),
                        )
                        .for_each(|_| async {})
                });
                futures::future::join_all(runs).await;
            })
        }
    };
    while ctx.reconciled.lock().unwrap().len() < objects {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let all_reconciled = started.elapsed();
    let rss_after = rss_kib();
    let cpu = cpu_seconds() - cpu_before;
    let calls = ctx.calls.load(std::sync::atomic::Ordering::Relaxed);
    let patches = ctx.patches.load(std::sync::atomic::Ordering::Relaxed);

    for i in 0..latency_objects {
        let name = format!("late-{i:05}");
        ctx.created
            .lock()
            .unwrap()
            .insert(name.clone(), Instant::now());
        create(&api, name).await;
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    while ctx.latencies.lock().unwrap().len() < latency_objects {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let mut lat = ctx.latencies.lock().unwrap().clone();
    lat.sort();
    let pct = |p: f64| {
        lat.get(((lat.len() as f64 * p).ceil() as usize).saturating_sub(1))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    stop.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
    println!(
        "{}",
        json!({
            "variant": variant,
            "objects": objects,
            "controllers": controllers,
            "setup_seconds": setup.as_secs_f64(),
            "all_reconciled_seconds": all_reconciled.as_secs_f64(),
            "objects_per_second": objects as f64 / all_reconciled.as_secs_f64(),
            "cpu_seconds": cpu,
            "reconcile_calls": calls,
            "status_patches": patches,
            "latency_p50_ms": pct(0.50),
            "latency_p99_ms": pct(0.99),
            "rss_growth_mib": (rss_after.saturating_sub(rss_before)) as f64 / 1024.0,
            "rss_after_mib": rss_after as f64 / 1024.0,
        })
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
    let exe = std::env::current_exe().unwrap();
    let rounds = env_usize("BENCH_ROUNDS", 15).max(1);
    let variants = ["raw-kube-runtime", "kubeforge"];
    let mut runs: Vec<Vec<serde_json::Value>> = vec![Vec::new(), Vec::new()];
    // Interleave the variants (alternating which goes first) so background load on a shared
    // machine hits both alike; report the median of each figure.
    for round in 0..rounds {
        let order: [usize; 2] = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for v in order {
            let out = Command::new(&exe)
                .args(["--variant", variants[v]])
                .output()
                .expect("run variant");
            assert!(
                out.status.success(),
                "{} failed: {}",
                variants[v],
                String::from_utf8_lossy(&out.stderr)
            );
            let line = String::from_utf8_lossy(&out.stdout)
                .lines()
                .last()
                .unwrap_or("")
                .to_string();
            println!("{line}");
            runs[v].push(serde_json::from_str(&line).unwrap());
        }
    }
    let median = |v: usize, key: &str| {
        let mut xs: Vec<f64> = runs[v].iter().map(|r| r[key].as_f64().unwrap()).collect();
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    };
    let objects = runs[0][0]["objects"].clone();
    let controllers = runs[0][0]["controllers"].clone();
    println!("\nmedian of {rounds} interleaved runs per variant:\n");
    println!(
        "| variant | objects | controllers | all reconciled (s) | objects/s | p50 latency (ms) | p99 latency (ms) | RSS growth (MiB) | CPU (s) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (v, name) in variants.iter().enumerate() {
        println!(
            "| {name} | {objects} | {controllers} | {:.2} | {:.0} | {:.2} | {:.2} | {:.1} | {:.2} |",
            median(v, "all_reconciled_seconds"),
            median(v, "objects_per_second"),
            median(v, "latency_p50_ms"),
            median(v, "latency_p99_ms"),
            median(v, "rss_growth_mib"),
            median(v, "cpu_seconds"),
        );
    }
    let mut ratios: Vec<f64> = runs[0]
        .iter()
        .zip(&runs[1])
        .map(|(raw, ours)| {
            ours["objects_per_second"].as_f64().unwrap()
                / raw["objects_per_second"].as_f64().unwrap()
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    println!(
        "\nthroughput kubeforge/raw = {:.3}x (target >= 0.95; median of the {rounds} rounds' ratios, \
         which ranged {:.3}x to {:.3}x; ratio of the medians {:.3}x)",
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1],
        median(1, "objects_per_second") / median(0, "objects_per_second"),
    );
    println!(
        "memory growth kubeforge/raw = {:.3}x (target <= 1.1)",
        median(1, "rss_growth_mib") / median(0, "rss_growth_mib"),
    );
    println!(
        "CPU time until all reconciled kubeforge/raw = {:.3}x (less sensitive to other load than wall time)",
        median(1, "cpu_seconds") / median(0, "cpu_seconds"),
    );
}
