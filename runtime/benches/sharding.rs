//! Sharding benchmark: one replica vs three sharded replicas of the same controller over the
//! same objects on the embedded API server.
//!
//! The API server runs in this process; every replica runs in a process of its own (so its
//! memory is its own), connecting through the server's kubeconfig. `BENCH_OBJECTS` (default
//! 30,000) `Item` objects exist before the replicas start; the reconcile patches
//! `status.observed` once. Variants: one unsharded replica; three replicas with `--shards auto`
//! on a server with the `ShardedListAndWatch` feature gate (server-side filtering); the same
//! without the gate (the default of a real server: every replica receives everything and keeps
//! its share). Reported per variant: time from starting the replicas until every object is
//! reconciled (watched from here), and per replica the watch events and response bytes it
//! received, the objects it cached and its resident memory; for the sharded variants, the
//! failover time after one replica is killed (SIGKILL): from the kill until an update of each of
//! 200 of its objects, made right after the kill, has been reconciled by a survivor. Lease
//! timings are the defaults (15 s lease, 10 s renew deadline, 2 s retry period).
//!
//! Run: `cargo bench -p kubeforge --bench sharding`.

use futures::{StreamExt, TryStreamExt};
use kube::{
    Api, CustomResource, CustomResourceExt, ResourceExt,
    api::{ObjectMeta, Patch, PatchParams, PostParams},
    runtime::{WatchStreamExt, controller::Action, watcher},
};
use kubeforge::{Controller, Manager, ManagerOptions, shard::ShardingOptions};
use kubeforge_testenv::TestEnv;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::{
    collections::HashMap,
    io::{BufRead, BufReader},
    process::{Child, Command, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
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

#[derive(Debug, thiserror::Error)]
#[error(transparent)]
struct BenchError(#[from] kube::Error);

async fn reconcile(item: Arc<Item>, client: Arc<kube::Client>) -> Result<Action, BenchError> {
    if item.status.as_ref().and_then(|s| s.observed) == Some(item.spec.size) {
        return Ok(Action::await_change());
    }
    let api: Api<Item> = Api::namespaced((*client).clone(), &item.namespace().unwrap());
    api.patch_status(
        &item.name_any(),
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"observed": item.spec.size}})),
    )
    .await?;
    Ok(Action::await_change())
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

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A client through `kubeconfig` that counts the bytes of every response body it receives.
async fn counting_client(kubeconfig: &str, bytes: Arc<AtomicU64>) -> kube::Client {
    let kc = kube::config::Kubeconfig::read_from(kubeconfig).expect("kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(kc, &Default::default())
        .await
        .expect("config");
    let namespace = config.default_namespace.clone();
    let base = kube::Client::try_from(config).expect("client");
    let service = tower::service_fn(move |request: http::Request<kube::client::Body>| {
        let (base, bytes) = (base.clone(), bytes.clone());
        async move {
            let response = base.send(request).await?;
            Ok::<_, kube::Error>(response.map(move |body| {
                http_body_util::BodyExt::map_frame(body, move |frame| {
                    if let Some(data) = frame.data_ref() {
                        bytes.fetch_add(data.len() as u64, Ordering::Relaxed);
                    }
                    frame
                })
            }))
        }
    });
    kube::Client::new(service, namespace)
}

/// One replica in this process: runs until killed, printing a JSON stats line twice a second.
async fn run_replica(kubeconfig: String, index: usize, sharded: bool) {
    let bytes = Arc::new(AtomicU64::new(0));
    let client = counting_client(&kubeconfig, bytes.clone()).await;
    let mut options = ManagerOptions {
        handle_signals: false,
        ..Default::default()
    };
    if sharded {
        let mut sharding = ShardingOptions::auto("bench");
        sharding.identity = format!("replica-{index}");
        options.sharding = Some(sharding);
    }
    let mut manager = Manager::new(client.clone(), options);
    let informer = manager.cache().informer::<Item>();
    let gate = manager.cache().shards().cloned();
    manager.add(
        Controller::<Item>::new(&manager, "item")
            .max_concurrent_reconciles(16)
            .reconcile(reconcile, Arc::new(client)),
    );
    tokio::spawn(async move { manager.run().await.expect("manager runs") });
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let ranges: Vec<(String, String)> = gate.as_ref().map_or_else(
            || vec![("0".into(), (1u128 << 64).to_string())],
            |g| {
                g.active()
                    .ranges()
                    .iter()
                    .map(|r| (r.start.to_string(), r.end.to_string()))
                    .collect()
            },
        );
        println!(
            "{}",
            json!({
                "events": informer.received(),
                "bytes": bytes.load(Ordering::Relaxed),
                "cached": informer.store().len(),
                "rss_mib": rss_mib(),
                "ranges": ranges,
            })
        );
    }
}

/// A replica process and the last stats line it printed.
struct Replica {
    child: Child,
    stats: Arc<Mutex<serde_json::Value>>,
}

fn spawn_replica(kubeconfig: &str, index: usize, sharded: bool) -> Replica {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--replica",
            kubeconfig,
            &index.to_string(),
            if sharded { "sharded" } else { "plain" },
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("replica process");
    let stats = Arc::new(Mutex::new(serde_json::Value::Null));
    let out = child.stdout.take().unwrap();
    let sink = stats.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str(&line) {
                *sink.lock().unwrap() = v;
            }
        }
    });
    Replica { child, stats }
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Each object's size and the size its status says was reconciled, by name.
type Seen = Mutex<HashMap<String, (i32, Option<i32>)>>;

/// Objects whose status shows they were reconciled at their current size, kept current by a
/// watch from this process.
fn track_reconciled(api: Api<Item>) -> Arc<Seen> {
    let state: Arc<Seen> = Arc::new(Mutex::new(HashMap::new()));
    let sink = state.clone();
    tokio::spawn(async move {
        let stream = watcher::watcher(api, watcher::Config::default()).applied_objects();
        let mut stream = std::pin::pin!(stream);
        while let Ok(Some(item)) = stream.try_next().await {
            let observed = item.status.as_ref().and_then(|s| s.observed);
            sink.lock()
                .unwrap()
                .insert(item.name_any(), (item.spec.size, observed));
        }
    });
    state
}

fn reconciled(state: &Seen) -> usize {
    state
        .lock()
        .unwrap()
        .values()
        .filter(|(size, observed)| Some(*size) == *observed)
        .count()
}

async fn run_variant(name: &str, replicas: usize, gate: bool) -> serde_json::Value {
    let objects = env_usize("BENCH_OBJECTS", 30_000);
    let env = TestEnv::builder()
        .crd(Item::crd())
        .watch_history(objects * 4 + 50_000)
        .feature_gate("ShardedListAndWatch", gate)
        .start()
        .await
        .expect("test API server");
    let api: Api<Item> = Api::namespaced(env.client(), env.namespace());
    let setup = Instant::now();
    let uids: HashMap<String, u64> = futures::stream::iter(0..objects)
        .map(|i| {
            let api = api.clone();
            async move {
                let item = Item {
                    metadata: ObjectMeta {
                        name: Some(format!("item-{i:05}")),
                        ..Default::default()
                    },
                    spec: ItemSpec { size: 1 },
                    status: None,
                };
                let created = api
                    .create(&PostParams::default(), &item)
                    .await
                    .expect("create");
                (
                    created.name_any(),
                    fnv1a64(created.uid().unwrap().as_bytes()),
                )
            }
        })
        .buffer_unordered(32)
        .collect()
        .await;
    eprintln!("{name}: created {objects} objects in {:?}", setup.elapsed());
    let state = track_reconciled(api.clone());
    let kubeconfig = env.kubeconfig_path().display().to_string();
    let started = Instant::now();
    let mut procs: Vec<Replica> = (0..replicas)
        .map(|i| spawn_replica(&kubeconfig, i, replicas > 1))
        .collect();
    while reconciled(&state) < objects {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let all_reconciled = started.elapsed();
    // Let the last stats lines come in (printed every 500 ms).
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let per_replica: Vec<serde_json::Value> = procs
        .iter()
        .map(|r| {
            let s = r.stats.lock().unwrap().clone();
            json!({"events": s["events"], "bytes": s["bytes"], "cached": s["cached"], "rss_mib": s["rss_mib"]})
        })
        .collect();
    eprintln!("{name}: all reconciled after {all_reconciled:?}: {per_replica:?}");

    let mut failover = serde_json::Value::Null;
    if replicas > 1 {
        // Kill replica 0, then update 200 of its objects at once: how long until survivors
        // reconciled them.
        let ranges: Vec<(u128, u128)> = procs[0].stats.lock().unwrap()["ranges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r[0].as_str().unwrap().parse().unwrap(),
                    r[1].as_str().unwrap().parse().unwrap(),
                )
            })
            .collect();
        let orphans: Vec<String> = uids
            .iter()
            .filter(|(_, h)| {
                ranges
                    .iter()
                    .any(|(s, e)| *s <= u128::from(**h) && u128::from(**h) < *e)
            })
            .map(|(n, _)| n.clone())
            .take(200)
            .collect();
        procs[0].child.kill().expect("kill replica 0");
        let killed = Instant::now();
        for n in &orphans {
            api.patch(
                n,
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"size": 2}})),
            )
            .await
            .expect("update");
        }
        let done = |state: &Seen| {
            let s = state.lock().unwrap();
            orphans
                .iter()
                .all(|n| s.get(n).is_some_and(|(_, o)| *o == Some(2)))
        };
        while !done(&state) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let took = killed.elapsed();
        eprintln!(
            "{name}: failover after {took:?} ({} orphaned objects updated)",
            orphans.len()
        );
        failover = json!(took.as_secs_f64());
    }
    for r in &mut procs {
        let _ = r.child.kill();
        let _ = r.child.wait();
    }
    json!({
        "variant": name,
        "objects": objects,
        "replicas": replicas,
        "all_reconciled_seconds": all_reconciled.as_secs_f64(),
        "per_replica": per_replica,
        "failover_seconds": failover,
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    if let Some(pos) = args.iter().position(|a| a == "--replica") {
        let (kubeconfig, index, mode) = (
            args[pos + 1].clone(),
            args[pos + 2].parse().unwrap(),
            args[pos + 3].clone(),
        );
        runtime.block_on(run_replica(kubeconfig, index, mode == "sharded"));
        return;
    }
    if args.iter().any(|a| a == "--list") {
        return;
    }
    let results = runtime.block_on(async {
        vec![
            run_variant("1 replica", 1, false).await,
            run_variant("3 replicas, server-side shardSelector", 3, true).await,
            run_variant("3 replicas, client-side filtering", 3, false).await,
        ]
    });
    println!(
        "\n| variant | objects | all reconciled (s) | per replica: events received | bytes received (MiB) | objects cached | RSS (MiB) | failover (s) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for r in &results {
        let per = r["per_replica"].as_array().unwrap();
        let col = |f: &dyn Fn(&serde_json::Value) -> String| {
            per.iter().map(f).collect::<Vec<_>>().join(" / ")
        };
        println!(
            "| {} | {} | {:.2} | {} | {} | {} | {} | {} |",
            r["variant"].as_str().unwrap(),
            r["objects"],
            r["all_reconciled_seconds"].as_f64().unwrap(),
            col(&|p| p["events"].to_string()),
            col(&|p| format!("{:.1}", p["bytes"].as_f64().unwrap_or(0.0) / 1048576.0)),
            col(&|p| p["cached"].to_string()),
            col(&|p| format!("{:.1}", p["rss_mib"].as_f64().unwrap_or(0.0))),
            r["failover_seconds"]
                .as_f64()
                .map_or("-".to_string(), |s| format!("{s:.2}")),
        );
    }
    for r in &results {
        println!("{r}");
    }
}
