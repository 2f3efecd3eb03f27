//! One-run benchmark of server-side apply against JSON merge patch: the same documents sent
//! to the same Deployments through kube::Client over HTTPS on 127.0.0.1, sequentially.
//! Prints throughput and per-request latency (p50 / p99) of each, and their ratio.
//!
//! Run with `cargo bench -p kubeforge-testenv --bench apply` (bounded: a few thousand
//! requests).

use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams};
use kubeforge_testenv::TestEnv;
use serde_json::{Value, json};

/// Objects patched in turn.
const OBJECTS: usize = 50;
/// Requests per measured pass.
const REQUESTS: usize = 1000;

/// A Deployment as a controller would apply it, with `replicas` varying so that every
/// request changes the object.
fn desired(name: &str, replicas: usize) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{
                    "name": "app", "image": "nginx:1.27",
                    "env": [{"name": "MODE", "value": "bench"}, {"name": "LEVEL", "value": "2"}],
                    "ports": [{"containerPort": 80}],
                    "args": ["--serve", "--port=80"]
                }]}
            }
        }
    })
}

/// Throughput (requests/s), p50 and p99 latency (ms) of one pass.
struct Figures {
    per_second: f64,
    p50: f64,
    p99: f64,
}

async fn pass(api: &Api<Deployment>, apply: bool, round: usize) -> Figures {
    let mut samples = Vec::with_capacity(REQUESTS);
    let start = Instant::now();
    for i in 0..REQUESTS {
        let name = format!("d-{}", i % OBJECTS);
        let doc = desired(&name, round * REQUESTS + i);
        let t = Instant::now();
        if apply {
            api.patch(
                &name,
                &PatchParams::apply("bench").force(),
                &Patch::Apply(&doc),
            )
            .await
            .expect("apply");
        } else {
            let params = PatchParams {
                field_manager: Some("bench-merge".into()),
                ..Default::default()
            };
            api.patch(&name, &params, &Patch::Merge(&doc))
                .await
                .expect("merge patch");
        }
        samples.push(t.elapsed());
    }
    let elapsed = start.elapsed();
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    Figures {
        per_second: REQUESTS as f64 / elapsed.as_secs_f64(),
        p50: ms(samples[samples.len() / 2]),
        p99: ms(samples[samples.len() * 99 / 100]),
    }
}

fn print(label: &str, f: &Figures) {
    println!(
        "{label}: {:.0} requests/s, p50 {:.2} ms, p99 {:.2} ms ({REQUESTS} requests on {OBJECTS} Deployments)",
        f.per_second, f.p50, f.p99
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let env = TestEnv::start().await.expect("start");
    let api: Api<Deployment> = Api::namespaced(env.client(), env.namespace());
    for i in 0..OBJECTS {
        let name = format!("d-{i}");
        api.patch(
            &name,
            &PatchParams::apply("bench"),
            &Patch::Apply(&desired(&name, 1)),
        )
        .await
        .expect("create by apply");
    }
    // Warm-up of both paths, then two alternating measured passes each.
    pass(&api, false, 0).await;
    pass(&api, true, 1).await;
    let mut merge = Vec::new();
    let mut apply = Vec::new();
    for round in 0..2 {
        merge.push(pass(&api, false, 2 + 2 * round).await);
        apply.push(pass(&api, true, 3 + 2 * round).await);
    }
    for (i, (m, a)) in merge.iter().zip(&apply).enumerate() {
        print(&format!("merge patch, pass {}", i + 1), m);
        print(&format!("apply patch, pass {}", i + 1), a);
    }
    let mean =
        |v: &[Figures], f: fn(&Figures) -> f64| v.iter().map(f).sum::<f64>() / v.len() as f64;
    println!(
        "apply / merge: throughput {:.2}x, p50 latency {:.2}x, p99 latency {:.2}x",
        mean(&apply, |f| f.per_second) / mean(&merge, |f| f.per_second),
        mean(&apply, |f| f.p50) / mean(&merge, |f| f.p50),
        mean(&apply, |f| f.p99) / mean(&merge, |f| f.p99),
    );
}
