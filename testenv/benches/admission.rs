//! One-run benchmark of admission webhooks: sequential ConfigMap creates through kube::Client
//! with no webhook configuration, with a configuration whose rules do not cover the request
//! (the fast path), with a validating webhook, and with a mutating plus a validating webhook
//! (webhooks answer from an HTTPS server in this process).
//!
//! Run with `cargo bench -p kubeforge-testenv --bench admission`; the figures go in the README.

#[path = "../tests/conformance/support/webhook_server.rs"]
mod webhook_server;

use std::time::{Duration, Instant};

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kubeforge_testenv::TestEnv;
use serde_json::{Value, json};
use webhook_server::WebhookServer;

const CREATES: usize = 300;

fn hook(name: &str, server: &WebhookServer, resource: &str) -> Value {
    json!({
        "name": name, "sideEffects": "None", "admissionReviewVersions": ["v1"],
        "clientConfig": server.client_config("/"),
        "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "resources": [resource], "operations": ["CREATE"]}],
    })
}

async fn creates_per_second(env: &TestEnv, label: &str) -> f64 {
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let t = Instant::now();
    for i in 0..CREATES {
        let cm: ConfigMap = serde_json::from_value(
            json!({"metadata": {"name": format!("{label}-{i}")}, "data": {"k": "v"}}),
        )
        .unwrap();
        cms.create(&PostParams::default(), &cm)
            .await
            .expect("create");
    }
    let elapsed: Duration = t.elapsed();
    let rate = CREATES as f64 / elapsed.as_secs_f64();
    println!(
        "{label}: {CREATES} creates in {:.1} ms = {rate:.0}/s ({:.2} ms each)",
        elapsed.as_secs_f64() * 1000.0,
        elapsed.as_secs_f64() * 1000.0 / CREATES as f64
    );
    rate
}

/// The median of three measures of `label`.
async fn median_of_three(env: &TestEnv, label: &str) -> f64 {
    let mut rates = Vec::new();
    for round in 0..3 {
        rates.push(creates_per_second(env, &format!("{label}-{round}")).await);
    }
    rates.sort_by(f64::total_cmp);
    rates[1]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let server = WebhookServer::start(
        &[],
        |_, review| async move { webhook_server::allow(&review) },
    )
    .await;
    let env = TestEnv::start().await.expect("start");
    let baseline = median_of_three(&env, "none").await;

    let validating: Api<ValidatingWebhookConfiguration> = Api::all(env.client());
    let other = serde_json::from_value(json!({"metadata": {"name": "secrets-only"},
        "webhooks": [hook("secrets.bench.kubeforge.dev", &server, "secrets")]}))
    .unwrap();
    validating
        .create(&PostParams::default(), &other)
        .await
        .unwrap();
    let fast = median_of_three(&env, "uncovered").await;
    validating
        .delete("secrets-only", &Default::default())
        .await
        .unwrap();
    let baseline_again = median_of_three(&env, "none-again").await;

    let covering = serde_json::from_value(json!({"metadata": {"name": "configmaps"},
        "webhooks": [hook("cm.bench.kubeforge.dev", &server, "configmaps")]}))
    .unwrap();
    validating
        .create(&PostParams::default(), &covering)
        .await
        .unwrap();
    let one = median_of_three(&env, "validating").await;

    let mutating: Api<MutatingWebhookConfiguration> = Api::all(env.client());
    let m = serde_json::from_value(json!({"metadata": {"name": "configmaps"},
        "webhooks": [hook("mcm.bench.kubeforge.dev", &server, "configmaps")]}))
    .unwrap();
    mutating.create(&PostParams::default(), &m).await.unwrap();
    let two = median_of_three(&env, "mutating-and-validating").await;

    let base = (baseline + baseline_again) / 2.0;
    println!(
        "medians relative to no configuration ({base:.0}/s): uncovered {:.3}x, validating {:.3}x, mutating+validating {:.3}x",
        fast / base,
        one / base,
        two / base
    );
}
