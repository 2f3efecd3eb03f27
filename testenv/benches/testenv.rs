//! One-run benchmark of the embedded API server: start-to-ready time and create / get / list /
//! watch-event throughput through kube::Client over HTTPS on 127.0.0.1. With
//! `KUBEBUILDER_ASSETS` set, also the start-to-ready time of binaries mode (a private
//! control plane of real etcd and kube-apiserver), as a ratio against the embedded server's.
//!
//! Run with `cargo bench -p kubeforge-testenv --bench testenv`; the figures go in the README.

use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, ListParams, ObjectMeta, PostParams, WatchEvent, WatchParams};
use kubeforge_testenv::{Binaries, Mode, TestEnv};

fn cm(name: String) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name),
            ..Default::default()
        },
        data: Some([("key".to_string(), "value".to_string())].into()),
        ..Default::default()
    }
}

fn stats(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{label}: min {:.2} ms, median {:.2} ms, max {:.2} ms ({} runs)",
        ms(samples[0]),
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() - 1]),
        samples.len()
    );
}

fn rate(label: &str, n: usize, elapsed: Duration) {
    println!(
        "{label}: {n} in {:.1} ms = {:.0}/s",
        elapsed.as_secs_f64() * 1000.0,
        n as f64 / elapsed.as_secs_f64()
    );
}

/// Start-to-ready: `TestEnv::start()` returning plus the first successful request.
async fn start_to_ready() -> Duration {
    start_to_ready_in(Mode::Embedded, None).await
}

/// Start-to-ready of an environment in `mode`, with `crd` installed if given.
async fn start_to_ready_in(mode: Mode, crd: Option<&str>) -> Duration {
    let t = Instant::now();
    let mut builder = TestEnv::builder().mode(mode);
    if let Some(crd) = crd {
        builder = builder.crd_yaml(crd);
    }
    let env = builder.start().await.expect("start");
    let namespaces: Api<Namespace> = Api::all(env.client());
    namespaces
        .list(&ListParams::default().limit(1))
        .await
        .expect("ready");
    let elapsed = t.elapsed();
    // Dropped outside the measure (in real-cluster modes this deletes the namespace).
    drop(env);
    elapsed
}

const BENCH_CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.bench.kubeforge.dev
spec:
  group: bench.kubeforge.dev
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
"#;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Binaries mode's start-to-ready, against the embedded server's `embedded` median.
async fn binaries_rows(embedded: Duration) {
    let binaries = Binaries::from_env();
    if let Err(e) = binaries.available() {
        println!("binaries mode: skipped ({e})");
        return;
    }
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let ratio = |d: Duration| d.as_secs_f64() / embedded.as_secs_f64();
    let row = |label: &str, d: Duration| {
        println!(
            "binaries: {label}: {:.0} ms ({:.0}x the embedded server's {:.2} ms)",
            ms(d),
            ratio(d),
            ms(embedded)
        );
    };
    let without_kcm = Mode::Binaries(binaries.clone().controller_manager(false));
    row(
        "start-to-ready, first in process (certificates, etcd, kube-apiserver, a namespace)",
        start_to_ready_in(without_kcm, None).await,
    );
    let with_kcm = Mode::Binaries(binaries);
    row(
        "start-to-ready, first in process, kube-controller-manager started too (when present)",
        start_to_ready_in(with_kcm.clone(), None).await,
    );
    let mut later = Vec::new();
    for _ in 0..5 {
        later.push(start_to_ready_in(with_kcm.clone(), None).await);
    }
    row(
        "start-to-ready, later environment (a namespace; median of 5)",
        median(later),
    );
    let mut with_crd = Vec::new();
    for _ in 0..3 {
        with_crd.push(start_to_ready_in(with_kcm.clone(), Some(BENCH_CRD)).await);
    }
    row(
        "start-to-ready, later environment with a CRD to install (median of 3)",
        median(with_crd),
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // The CA and server certificate are generated once per process; the first start pays it.
    let first = start_to_ready().await;
    println!(
        "start-to-ready, first in process (includes certificate generation): {:.2} ms",
        first.as_secs_f64() * 1000.0
    );
    let mut samples = Vec::new();
    for _ in 0..20 {
        samples.push(start_to_ready().await);
    }
    let embedded = median(samples.clone());
    stats("start-to-ready", samples);

    let env = TestEnv::builder()
        .mode(Mode::Embedded)
        .start()
        .await
        .expect("start");
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let n = 2000;

    let list = cms.list(&ListParams::default()).await.unwrap();
    let rv = list.metadata.resource_version.unwrap();
    let mut watch = cms
        .watch(&WatchParams::default(), &rv)
        .await
        .unwrap()
        .boxed();

    let t = Instant::now();
    for i in 0..n {
        cms.create(&PostParams::default(), &cm(format!("seq-{i}")))
            .await
            .unwrap();
    }
    rate("create, sequential", n, t.elapsed());

    let t = Instant::now();
    let mut received = 0;
    while received < n {
        if let Some(Ok(WatchEvent::Added(_))) = watch.next().await {
            received += 1;
        }
    }
    println!(
        "watch: all {n} ADDED events delivered {:.1} ms after the last create returned",
        t.elapsed().as_secs_f64() * 1000.0
    );

    let t = Instant::now();
    let tasks: Vec<_> = (0..8)
        .map(|w| {
            let cms = cms.clone();
            tokio::spawn(async move {
                for i in 0..n / 8 {
                    cms.create(&PostParams::default(), &cm(format!("par-{w}-{i}")))
                        .await
                        .unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    rate("create, 8 concurrent clients", n, t.elapsed());

    let t = Instant::now();
    for i in 0..n {
        cms.get(&format!("seq-{i}")).await.unwrap();
    }
    rate("get, sequential", n, t.elapsed());

    let mut samples = Vec::new();
    for _ in 0..10 {
        let t = Instant::now();
        let l = cms.list(&ListParams::default()).await.unwrap();
        // The namespace also holds its `kube-root-ca.crt`, as on a real cluster.
        let ours = l
            .items
            .iter()
            .filter(|c| c.metadata.name.as_deref() != Some("kube-root-ca.crt"))
            .count();
        assert_eq!(ours, 2 * n);
        samples.push(t.elapsed());
    }
    stats(&format!("list of {} objects", 2 * n), samples);

    // Watch-event throughput: events from one watch while one writer creates objects.
    let rv = cms
        .list(&ListParams::default().limit(1))
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let mut watch = cms
        .watch(&WatchParams::default(), &rv)
        .await
        .unwrap()
        .boxed();
    let writer = {
        let cms = cms.clone();
        tokio::spawn(async move {
            for i in 0..n {
                cms.create(&PostParams::default(), &cm(format!("w-{i}")))
                    .await
                    .unwrap();
            }
        })
    };
    let t = Instant::now();
    let mut received = 0;
    while received < n {
        if let Some(Ok(WatchEvent::Added(_))) = watch.next().await {
            received += 1;
        }
    }
    writer.await.unwrap();
    rate("watch events (concurrent writer)", n, t.elapsed());
    drop(env);

    // Last, so that the control planes' idle load does not weigh on the figures above.
    binaries_rows(embedded).await;
}
