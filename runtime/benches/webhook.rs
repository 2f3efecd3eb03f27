//! Webhook server benchmark: admission round trips over HTTPS on loopback.
//!
//! One run per handler kind (a validating webhook that allows, a defaulting webhook that
//! answers with a patch): `BENCH_WEBHOOK_REQUESTS` (default 20,000) AdmissionReviews over
//! `BENCH_WEBHOOK_CONNECTIONS` (default 4) keep-alive HTTP/1.1 connections, each connection
//! sending its share one after another. Every run stops at 20 s whatever the count. Reported:
//! round-trip latency p50/p99 (request written to response body read) and sustained requests
//! per second over the whole run.
//!
//! Second table: the same webhooks installed with `kubeforge::webhook::local::start` into the
//! embedded API server (kubeforge-testenv), which calls them on every write. ConfigMap creates
//! through `kube::Client` over HTTPS, sequentially, `BENCH_WEBHOOK_API_REQUESTS` (default 2,000)
//! per row, 20 s cap: without webhooks (baseline), then with the defaulting and validating
//! webhook. The difference is what admission webhooks add to a write, end to end.
//!
//! Run: `cargo bench -p kubeforge --bench webhook`.

use std::{
    net::SocketAddr,
    sync::Arc,
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use k8s_openapi::api::core::v1::ConfigMap;
use kubeforge::webhook::{
    self, Defaulter, Denied, Validator, Warnings, WebhookOptions, WebhookServer,
};
use rustls_pki_types::{CertificateDer, ServerName, pem::PemObject};
use serde_json::json;
use tokio::net::TcpStream;

const TIME_LIMIT: Duration = Duration::from_secs(20);

struct LabelDefaulter;

impl Defaulter<ConfigMap> for LabelDefaulter {
    async fn default(&self, cm: &mut ConfigMap) -> Result<(), Denied> {
        cm.metadata
            .labels
            .get_or_insert_with(Default::default)
            .entry("defaulted".into())
            .or_insert_with(|| "true".into());
        Ok(())
    }
}

struct SizeValidator;

impl Validator<ConfigMap> for SizeValidator {
    async fn validate_create(&self, cm: &ConfigMap) -> Result<Warnings, Denied> {
        let entries = cm.data.as_ref().map_or(0, std::collections::BTreeMap::len);
        if entries > 100 {
            return Err(Denied::new("too many entries"));
        }
        Ok(Vec::new())
    }
    async fn validate_update(&self, _old: &ConfigMap, new: &ConfigMap) -> Result<Warnings, Denied> {
        self.validate_create(new).await
    }
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn review_body() -> Bytes {
    let data: serde_json::Map<String, serde_json::Value> = (0..10)
        .map(|i| (format!("key-{i}"), json!(format!("value number {i}"))))
        .collect();
    Bytes::from(
        serde_json::to_vec(&json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": "3f2b1c9e-0000-4000-8000-000000000000",
                "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
                "resource": {"group": "", "version": "v1", "resource": "configmaps"},
                "name": "bench", "namespace": "default",
                "operation": "CREATE",
                "userInfo": {"username": "bench"},
                "object": {"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "bench", "namespace": "default", "labels": {"app": "bench"}},
                    "data": data},
                "dryRun": false
            }
        }))
        .expect("serializes"),
    )
}

async fn connect(
    addr: SocketAddr,
    config: Arc<rustls::ClientConfig>,
) -> hyper::client::conn::http1::SendRequest<Full<Bytes>> {
    let tcp = TcpStream::connect(addr).await.expect("connect");
    tcp.set_nodelay(true).expect("nodelay");
    let tls = tokio_rustls::TlsConnector::from(config)
        .connect(ServerName::try_from("localhost").expect("name"), tcp)
        .await
        .expect("handshake");
    let (send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .expect("http handshake");
    tokio::spawn(conn);
    send
}

struct Run {
    latencies: Vec<Duration>,
    elapsed: Duration,
}

async fn run(
    addr: SocketAddr,
    config: Arc<rustls::ClientConfig>,
    path: &'static str,
    requests: usize,
    connections: usize,
) -> Run {
    let body = review_body();
    let start = Instant::now();
    let deadline = start + TIME_LIMIT;
    let mut tasks = Vec::new();
    for c in 0..connections {
        let share = requests / connections + usize::from(c < requests % connections);
        let config = config.clone();
        let body = body.clone();
        tasks.push(tokio::spawn(async move {
            let mut send = connect(addr, config).await;
            let mut latencies = Vec::with_capacity(share);
            for _ in 0..share {
                if Instant::now() > deadline {
                    break;
                }
                let request = http::Request::post(path)
                    .header("host", "localhost")
                    .header("content-type", "application/json")
                    .body(Full::new(body.clone()))
                    .expect("request");
                let sent = Instant::now();
                let response = send.send_request(request).await.expect("response");
                assert_eq!(response.status(), 200);
                let answer = response
                    .into_body()
                    .collect()
                    .await
                    .expect("body")
                    .to_bytes();
                latencies.push(sent.elapsed());
                assert!(answer.starts_with(b"{\"apiVersion\""));
            }
            latencies
        }));
    }
    let mut latencies = Vec::with_capacity(requests);
    for task in tasks {
        latencies.extend(task.await.expect("client task"));
    }
    Run {
        latencies,
        elapsed: start.elapsed(),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn main() {
    let requests = env("BENCH_WEBHOOK_REQUESTS", 20_000);
    let connections = env("BENCH_WEBHOOK_CONNECTIONS", 4).max(1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let ca = webhook::generate_self_signed(dir.path(), &["localhost"]).expect("certs");
        let server = WebhookServer::builder()
            .options(WebhookOptions {
                bind_address: "127.0.0.1:0".parse().expect("addr"),
                cert_dir: dir.path().to_path_buf(),
                ..WebhookOptions::default()
            })
            .defaulter::<ConfigMap>(LabelDefaulter)
            .validator::<ConfigMap>(SizeValidator)
            .build()
            .expect("server");
        let bound = server.bind().await.expect("bind");
        let addr = bound.local_addr();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(bound.serve(async {
            let _ = stopped.await;
        }));

        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(ca.ca_pem.as_bytes()) {
            roots.add(cert.expect("ca pem")).expect("ca");
        }
        let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let config = Arc::new(config);

        // Warm-up: connection set-up paths and allocator.
        run(addr, config.clone(), "/validate--v1-configmap", 200, connections).await;

        println!(
            "webhook server, loopback HTTPS, {connections} keep-alive connections, {requests} requests per row (20 s cap)"
        );
        println!(
            "| handler | requests | p50 | p99 | req/s |\n|---|---:|---:|---:|---:|"
        );
        for (name, path) in [
            ("validating (allow)", "/validate--v1-configmap"),
            ("defaulting (patch)", "/mutate--v1-configmap"),
        ] {
            let result = run(addr, config.clone(), path, requests, connections).await;
            let mut sorted = result.latencies.clone();
            sorted.sort();
            println!(
                "| {name} | {} | {:.0} µs | {:.0} µs | {:.0} |",
                sorted.len(),
                percentile(&sorted, 0.50).as_secs_f64() * 1e6,
                percentile(&sorted, 0.99).as_secs_f64() * 1e6,
                sorted.len() as f64 / result.elapsed.as_secs_f64(),
            );
        }
        let _ = stop.send(());
        let _ = tokio::time::timeout(Duration::from_secs(5), serving).await;

        let creates = env("BENCH_WEBHOOK_API_REQUESTS", 2_000);
        println!(
            "\nConfigMap creates through the embedded API server, sequential, {creates} per row (20 s cap)"
        );
        println!("| webhooks | creates | p50 | p99 | creates/s |\n|---|---:|---:|---:|---:|");
        let testenv = kubeforge_testenv::TestEnv::start().await.expect("test env");
        let api: kube::Api<ConfigMap> = kube::Api::namespaced(testenv.client(), testenv.namespace());
        // Warm-up: connection pool and first-write paths.
        api_run(&api, "warm", 50).await;
        let baseline = api_run(&api, "plain", creates).await;
        print_row("none (baseline)", &baseline);
        let local = webhook::local::start(
            testenv.client(),
            WebhookServer::builder()
                .defaulter::<ConfigMap>(LabelDefaulter)
                .validator::<ConfigMap>(SizeValidator),
        )
        .await
        .expect("local webhooks");
        let hooked = api_run(&api, "hooked", creates).await;
        let defaulted = api.get("hooked-0").await.expect("created");
        assert_eq!(
            defaulted.metadata.labels.unwrap_or_default().get("defaulted").map(String::as_str),
            Some("true"),
            "the API server called the defaulting webhook"
        );
        print_row("defaulting + validating", &hooked);
        local.stop().await.expect("stop");
    });
}

async fn api_run(api: &kube::Api<ConfigMap>, prefix: &str, count: usize) -> Run {
    let start = Instant::now();
    let deadline = start + TIME_LIMIT;
    let mut latencies = Vec::with_capacity(count);
    for i in 0..count {
        if Instant::now() > deadline {
            break;
        }
        let cm: ConfigMap = serde_json::from_value(json!({
            "metadata": {"name": format!("{prefix}-{i}"), "labels": {"app": "bench"}},
            "data": {"key": "value"}
        }))
        .expect("configmap");
        let sent = Instant::now();
        api.create(&kube::api::PostParams::default(), &cm)
            .await
            .expect("create");
        latencies.push(sent.elapsed());
    }
    Run {
        latencies,
        elapsed: start.elapsed(),
    }
}

fn print_row(name: &str, run: &Run) {
    let mut sorted = run.latencies.clone();
    sorted.sort();
    println!(
        "| {name} | {} | {:.0} µs | {:.0} µs | {:.0} |",
        sorted.len(),
        percentile(&sorted, 0.50).as_secs_f64() * 1e6,
        percentile(&sorted, 0.99).as_secs_f64() * 1e6,
        sorted.len() as f64 / run.elapsed.as_secs_f64(),
    );
}
