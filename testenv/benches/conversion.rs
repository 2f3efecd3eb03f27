//! One-run benchmark of CRD conversion webhooks: the same requests on the storage version
//! (no webhook call, the baseline) and on a non-storage version (every object converted by an
//! HTTPS webhook on 127.0.0.1), through kube::Client.
//!
//! Run with `cargo bench -p kubeforge-testenv --bench conversion`; the figures go in the report.

#[path = "../tests/conformance/support/webhook_server.rs"]
mod webhook_server;

use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams, PostParams,
};
use kubeforge_testenv::TestEnv;
use serde_json::{Value, json};
use webhook_server::WebhookServer;

const GROUP: &str = "bench.kubeforge.dev";

/// Renames `spec.host` (v1beta1) and `spec.hostname` (v1) into each other.
fn convert(review: &Value) -> Value {
    let desired = review["request"]["desiredAPIVersion"]
        .as_str()
        .unwrap_or_default();
    let (from, to) = if desired.ends_with("/v1") {
        ("host", "hostname")
    } else {
        ("hostname", "host")
    };
    let objects: Vec<Value> = review["request"]["objects"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| {
            let mut o = o.clone();
            if let Some(spec) = o["spec"].as_object_mut()
                && let Some(v) = spec.remove(from)
            {
                spec.insert(to.into(), v);
            }
            o["apiVersion"] = json!(desired);
            o
        })
        .collect();
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "response": {"uid": review["request"]["uid"], "result": {"status": "Success"},
                     "convertedObjects": objects}})
}

fn crd(client_config: Value) -> CustomResourceDefinition {
    let schema = |field: &str| {
        json!({"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {field: {"type": "string"}}}}}})
    };
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("gadgets.{GROUP}")},
        "spec": {"group": GROUP, "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [
                {"name": "v1beta1", "served": true, "storage": false, "schema": schema("host")},
                {"name": "v1", "served": true, "storage": true, "schema": schema("hostname")}],
            "conversion": {"strategy": "Webhook", "webhook": {
                "conversionReviewVersions": ["v1"], "clientConfig": client_config}}},
    }))
    .unwrap()
}

fn api(env: &TestEnv, version: &str) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk(GROUP, version, "Gadget");
    Api::namespaced_with(
        env.client(),
        env.namespace(),
        &ApiResource::from_gvk_with_plural(&gvk, "gadgets"),
    )
}

fn object(version: &str, name: &str, field: &str) -> DynamicObject {
    serde_json::from_value(
        json!({"apiVersion": format!("{GROUP}/{version}"), "kind": "Gadget",
        "metadata": {"name": name}, "spec": {field: "example.org"}}),
    )
    .unwrap()
}

fn rate(label: &str, n: usize, elapsed: Duration) -> f64 {
    let per_second = n as f64 / elapsed.as_secs_f64();
    println!(
        "{label}: {n} in {:.1} ms = {per_second:.0}/s",
        elapsed.as_secs_f64() * 1000.0
    );
    per_second
}

fn median_ms(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let hook = WebhookServer::start(&[], |_path, review: Value| {
        let answer = convert(&review);
        async move { answer }
    })
    .await;
    let client_config = json!({"url": hook.url("/convert"), "caBundle": hook.ca_bundle()});
    let env = TestEnv::builder()
        .crd(crd(client_config))
        .start()
        .await
        .expect("start");
    let (v1, beta) = (api(&env, "v1"), api(&env, "v1beta1"));
    let n = 300;
    let pp = PostParams::default();

    let t = Instant::now();
    for i in 0..n {
        v1.create(&pp, &object("v1", &format!("stored-{i}"), "hostname"))
            .await
            .unwrap();
    }
    let create_base = rate("create, storage version (baseline)", n, t.elapsed());
    let t = Instant::now();
    for i in 0..n {
        beta.create(&pp, &object("v1beta1", &format!("converted-{i}"), "host"))
            .await
            .unwrap();
    }
    let create_conv = rate("create, converted version (2 reviews each)", n, t.elapsed());

    let t = Instant::now();
    for i in 0..n {
        v1.get(&format!("stored-{i}")).await.unwrap();
    }
    let get_base = rate("get, storage version (baseline)", n, t.elapsed());
    let t = Instant::now();
    for i in 0..n {
        let o = beta.get(&format!("stored-{i}")).await.unwrap();
        assert_eq!(o.data["spec"]["host"], "example.org", "converted");
    }
    let get_conv = rate("get, converted version (1 review each)", n, t.elapsed());

    let patch = Patch::Merge(json!({"metadata": {"labels": {"touched": "yes"}}}));
    let t = Instant::now();
    for i in 0..n {
        v1.patch(&format!("stored-{i}"), &PatchParams::default(), &patch)
            .await
            .unwrap();
    }
    let patch_base = rate("merge patch, storage version (baseline)", n, t.elapsed());
    let patch = Patch::Merge(json!({"metadata": {"labels": {"touched": "again"}}}));
    let t = Instant::now();
    for i in 0..n {
        beta.patch(&format!("stored-{i}"), &PatchParams::default(), &patch)
            .await
            .unwrap();
    }
    let patch_conv = rate(
        "merge patch, converted version (3 reviews each)",
        n,
        t.elapsed(),
    );

    let mut base = Vec::new();
    let mut conv = Vec::new();
    for _ in 0..10 {
        let t = Instant::now();
        let l = v1.list(&ListParams::default()).await.unwrap();
        base.push(t.elapsed());
        assert_eq!(l.items.len(), 2 * n);
        let t = Instant::now();
        beta.list(&ListParams::default()).await.unwrap();
        conv.push(t.elapsed());
    }
    let (list_base, list_conv) = (median_ms(base), median_ms(conv));
    println!(
        "list of {} objects, median of 10: storage {list_base:.1} ms, converted {list_conv:.1} ms (1 review)",
        2 * n
    );
    println!(
        "converted / baseline: create {:.2}x, get {:.2}x, patch {:.2}x throughput; list {:.2}x time",
        create_conv / create_base,
        get_conv / get_base,
        patch_conv / patch_base,
        list_conv / list_base
    );
}
