//! Discovery and OpenAPI parity with a real kube-apiserver v1.34: the embedded server's
//! documents compared with a recording of the real server's (`tests/fixtures/kube-apiserver/`,
//! written by `scripts/record-discovery.sh`). Every difference fails the test, one line each.
//!
//! What is compared (README "Discovery and OpenAPI parity" says the same):
//! - legacy discovery: `/api`, `/api/v1`, `/apis`, every `/apis/<group>` and
//!   `/apis/<group>/<version>`, in full (groups, versions and resources in order; names,
//!   kinds, verbs, short names, categories, scope, storage version hashes, subresources), the
//!   server address of `/api` aside (it is where each server listens);
//! - aggregated discovery (`apidiscovery.k8s.io/v2`) of `/api` and `/apis`, in full;
//! - OpenAPI v3: the keys of the `/openapi/v3` index and, per document, every path with its
//!   operations reduced as [`openapi::reduce`] says (descriptions left out), the names of
//!   the component schemas and of their properties, and the security schemes.
//!
//! In a real-cluster mode the same comparison runs against that cluster, ignoring groups the
//! recording does not have (other tests' CRDs).

mod diff;
mod openapi;
mod readme;

use serde_json::{Value, json};

use kubeforge_testenv::TestEnv;

const DISCOVERY: &str = include_str!("../../fixtures/kube-apiserver/discovery.json");
const OPENAPI: &str = include_str!("../../fixtures/kube-apiserver/openapi.json");
const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// GET `path` with `accept`; an error answer becomes `{"error": <code or message>}`.
async fn get(client: &kube::Client, path: &str, accept: &str) -> Value {
    let request = http::Request::get(path)
        .header("Accept", accept)
        .body(Vec::new())
        .unwrap();
    match client.request_text(request).await {
        Ok(text) => serde_json::from_str(&text).unwrap_or_else(|e| json!({"error": e.to_string()})),
        Err(kube::Error::Api(s)) => json!({"error": s.code}),
        Err(e) => json!({"error": e.to_string()}),
    }
}

/// The server address of `/api` is where a server listens; it is not compared.
fn without_address(mut doc: Value) -> Value {
    for a in doc["serverAddressByClientCIDRs"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        a["serverAddress"] = json!("<address>");
    }
    doc
}

/// Drops the groups the recording does not list (a real cluster's CRDs).
fn known_groups_only(mut doc: Value, real: &Value, list: &str, name: &str) -> Value {
    let known: Vec<Value> = real[list]
        .as_array()
        .into_iter()
        .flatten()
        .map(|g| g.pointer(name).cloned().unwrap_or_default())
        .collect();
    if let Some(items) = doc[list].as_array_mut() {
        items.retain(|g| known.contains(&g.pointer(name).cloned().unwrap_or_default()));
    }
    doc
}

/// Every difference between the recorded discovery and the server's.
async fn discovery_differences(env: &TestEnv) -> Vec<String> {
    let fixture: Value = serde_json::from_str(DISCOVERY).unwrap();
    let client = env.client();
    let real_cluster = env.is_real_cluster();
    let mut out = Vec::new();
    for (path, real) in fixture["legacy"].as_object().unwrap() {
        let mut ours = get(&client, path, "application/json").await;
        let mut real = real.clone();
        if path == "/api" {
            (real, ours) = (without_address(real), without_address(ours));
        }
        if path == "/apis" && real_cluster {
            ours = known_groups_only(ours, &real, "groups", "/name");
        }
        diff::diff(path, &real, &ours, &mut out);
    }
    for (path, real) in fixture["aggregated"].as_object().unwrap() {
        let mut ours = get(&client, path, AGGREGATED).await;
        if real_cluster {
            ours = known_groups_only(ours, real, "items", "/metadata/name");
        }
        diff::diff(&format!("aggregated {path}"), real, &ours, &mut out);
    }
    out
}

/// Every difference between the recorded OpenAPI documents and the server's.
async fn openapi_differences(env: &TestEnv) -> Vec<String> {
    let fixture: Value = serde_json::from_str(OPENAPI).unwrap();
    let client = env.client();
    let mut out = Vec::new();
    let index = get(&client, "/openapi/v3", "application/json").await;
    let served: Vec<String> = index["paths"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let recorded: Vec<String> = serde_json::from_value(fixture["index"].clone()).unwrap();
    for key in &recorded {
        if !served.contains(key) {
            out.push(format!("/openapi/v3: {key} missing from the index"));
        }
    }
    if !env.is_real_cluster() {
        for key in served.iter().filter(|k| !recorded.contains(k)) {
            out.push(format!("/openapi/v3: {key} not served by the real server"));
        }
    }
    for (key, real) in fixture["documents"].as_object().unwrap() {
        let doc = get(&client, &format!("/openapi/v3/{key}"), "application/json").await;
        if doc.get("error").is_some() {
            out.push(format!("/openapi/v3/{key}: {doc}"));
            continue;
        }
        diff::diff(
            &format!("/openapi/v3/{key}"),
            real,
            &openapi::reduce(&doc),
            &mut out,
        );
    }
    out
}

fn report(what: &str, differences: &[String]) {
    assert!(
        differences.is_empty(),
        "{} difference(s) between the {what} of this server and kube-apiserver v1.34 \
         (tests/fixtures/kube-apiserver/):\n{}",
        differences.len(),
        differences.join("\n")
    );
}

#[tokio::test]
async fn discovery_is_the_real_servers() {
    let env = TestEnv::start().await.unwrap();
    report("discovery", &discovery_differences(&env).await);
}

#[tokio::test]
async fn openapi_is_the_real_servers() {
    let env = TestEnv::start().await.unwrap();
    report("OpenAPI v3 documents", &openapi_differences(&env).await);
}
