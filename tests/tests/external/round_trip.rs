//! Round-trips kubeforge's example objects of every external kind through the embedded API
//! server. (The end-to-end test `external` of kubeforge writes this file into the project it
//! generates, with the examples under tests/fixtures/.)
//!
//! For every kind:
//! 1. each example deserializes into the generated type and serializes back to the same JSON,
//!    and so does the example with an enum value the CRD does not list (what a newer server
//!    may write);
//! 2. with the CRD `create api --external` read installed (config/crd/external/), the typed
//!    client creates the example (its status through the status subresource when the CRD has
//!    one); the server keeps every field the example set, and the typed read of the stored
//!    object serializes to exactly the JSON the server sends;
//! 3. with the CRD regenerated from the Rust types (`K::crd()`) installed instead, the server
//!    accepts the same objects and stores them exactly as under the original CRD.

use std::fmt::Debug;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::ApiResource;
use kube::{Client, CustomResourceExt, Resource};
use kubeforge_testenv::TestEnv;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crd_consumer::external::apiextensions_crossplane_io::v1::Composition;
use crd_consumer::external::argoproj_io::v1alpha1::Application;
use crd_consumer::external::cert_manager_io::v1::{Certificate, Issuer};
use crd_consumer::external::gateway_networking_k8s_io::v1::{Gateway, HTTPRoute};
use crd_consumer::external::monitoring_coreos_com::v1::{PrometheusRule, ServiceMonitor};
use crd_consumer::external::typegen_kubeforge_dev::v1::{Bare, Exotic};

/// The examples, copied here by the end-to-end test.
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
/// The CRDs as `create api --external` read them.
const CRDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/external");

/// The documents of a YAML text (deep enough for the deep test schema).
fn documents(text: &str) -> Vec<Value> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! { max_depth: 512 },
    };
    serde_saphyr::from_multiple_with_options::<Value>(text, options)
        .expect("YAML")
        .into_iter()
        .filter(|d| !d.is_null())
        .collect()
}

/// Every CRD of config/crd/external.
fn vendored_crds() -> Vec<CustomResourceDefinition> {
    let mut crds = Vec::new();
    for entry in std::fs::read_dir(CRDS).expect("config/crd/external") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("CRD");
        for doc in documents(&text) {
            crds.push(serde_json::from_value(doc).expect("a CustomResourceDefinition"));
        }
    }
    crds
}

/// The examples of `K` in tests/fixtures/<file>.
fn examples<K: Resource<DynamicType = ()>>(file: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(format!("{FIXTURES}/{file}")).expect("examples");
    let kind = K::kind(&());
    let examples: Vec<Value> = documents(&text)
        .into_iter()
        .filter(|d| d["kind"] == kind.as_ref())
        .collect();
    assert!(!examples.is_empty(), "no {kind} in {file}");
    examples
}

/// Whether `a` and `b` are the same JSON. Integers compare exactly; other numbers by value, as
/// the API server reads them (`1.0` is `1`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Every field `expected` sets is in `actual` with the same value (the server may add
/// defaults); the path of the first difference otherwise.
fn holds(actual: &Value, expected: &Value, path: &str) -> Result<(), String> {
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => {
            for (key, value) in e {
                let inner = format!("{path}.{key}");
                match a.get(key) {
                    Some(found) => holds(found, value, &inner)?,
                    None => return Err(format!("{inner} is missing")),
                }
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(e)) if a.len() == e.len() => {
            for (i, (a, e)) in a.iter().zip(e).enumerate() {
                holds(a, e, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        _ if same(actual, expected) => Ok(()),
        _ => Err(format!("{path} is {actual}, not {expected}")),
    }
}

/// The object without what the server writes into metadata.
fn without_metadata(mut object: Value) -> Value {
    if let Some(map) = object.as_object_mut() {
        map.remove("metadata");
    }
    object
}

/// Whether the storage version of `crd` has the status subresource.
fn has_status_subresource(crd: &CustomResourceDefinition) -> bool {
    crd.spec
        .versions
        .iter()
        .any(|v| v.storage && v.subresources.as_ref().is_some_and(|s| s.status.is_some()))
}

/// Step 1: the examples (and one with `unknown_enum` set to a value the CRD does not list)
/// deserialize and serialize back unchanged.
fn round_trip_locally<K: DeserializeOwned + Serialize>(
    examples: &[Value],
    unknown_enum: Option<&str>,
) {
    let mut cases = examples.to_vec();
    if let Some(pointer) = unknown_enum {
        let mut newer = examples[0].clone();
        *newer.pointer_mut(pointer).expect("the enum field") = json!("SomethingNewer");
        cases.push(newer);
    }
    for example in cases {
        let typed: K = serde_json::from_value(example.clone())
            .unwrap_or_else(|e| panic!("{e}: does not deserialize: {example}"));
        let back = serde_json::to_value(&typed).expect("serializes");
        assert!(
            same(&back, &example),
            "lost in the round trip:\n{example}\nbecame\n{back}"
        );
    }
}

/// Steps 2 and 3 on one server: creates every example through `api`, checks what is stored,
/// and returns the stored objects without metadata.
async fn round_trip_through<K>(
    client: Client,
    api: &Api<K>,
    namespace: Option<&str>,
    status_subresource: bool,
    examples: &[Value],
) -> anyhow::Result<Vec<Value>>
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
{
    let resource = ApiResource::erase::<K>(&());
    let raw: Api<DynamicObject> = match namespace {
        Some(ns) => Api::namespaced_with(client, ns, &resource),
        None => Api::all_with(client, &resource),
    };
    let mut stored = Vec::new();
    for example in examples {
        let typed: K = serde_json::from_value(example.clone())?;
        let name = example["metadata"]["name"].as_str().expect("a name");
        api.create(&PostParams::default(), &typed).await?;
        let status = serde_json::to_value(&typed)?["status"].clone();
        if status_subresource && !status.is_null() {
            let patch = json!({ "status": status });
            api.patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
                .await?;
        }
        let from_server = serde_json::to_value(raw.get(name).await?)?;
        let read = serde_json::to_value(api.get(name).await?)?;
        anyhow::ensure!(
            same(&read, &from_server),
            "{name}: the typed read differs from what the server sent:\n{from_server}\n{read}"
        );
        let object = without_metadata(from_server);
        holds(&object, &without_metadata(example.clone()), name).map_err(anyhow::Error::msg)?;
        stored.push(object);
    }
    Ok(stored)
}

/// Every step for one kind: `vendored` has the CRDs of config/crd/external, `regenerated` the
/// CRDs of the Rust types.
async fn kind<K>(
    servers: &Servers,
    file: &str,
    api: fn(Client, &str) -> Api<K>,
    namespaced: bool,
    unknown_enum: Option<&str>,
) -> anyhow::Result<()>
where
    K: Resource<DynamicType = ()>
        + CustomResourceExt
        + Clone
        + Debug
        + Serialize
        + DeserializeOwned,
{
    let examples = examples::<K>(file);
    round_trip_locally::<K>(&examples, unknown_enum);
    let crd_name = K::crd_name();
    let original = servers
        .crds
        .iter()
        .find(|c| c.metadata.name.as_deref() == Some(crd_name))
        .expect("the vendored CRD");
    let mut stored = Vec::new();
    for (env, status) in [
        (&servers.vendored, has_status_subresource(original)),
        (&servers.regenerated, has_status_subresource(&K::crd())),
    ] {
        let namespace = namespaced.then(|| env.namespace());
        let api = api(env.client(), env.namespace());
        stored.push(round_trip_through(env.client(), &api, namespace, status, &examples).await?);
    }
    for (original, regenerated) in stored[0].iter().zip(&stored[1]) {
        anyhow::ensure!(
            same(original, regenerated),
            "{} is stored differently under the regenerated CRD:\n{original}\n{regenerated}",
            K::kind(&())
        );
    }
    println!("round-tripped {} {} objects", examples.len(), K::kind(&()));
    Ok(())
}

/// The two API servers: one with the vendored CRDs, one with the regenerated ones.
struct Servers {
    crds: Vec<CustomResourceDefinition>,
    vendored: TestEnv,
    regenerated: TestEnv,
}

#[tokio::test]
async fn external_kinds_round_trip() -> anyhow::Result<()> {
    let crds = vendored_crds();
    let mut vendored = TestEnv::builder();
    for crd in &crds {
        vendored = vendored.crd(crd.clone());
    }
    let regenerated = TestEnv::builder()
        .crd(Certificate::crd())
        .crd(Issuer::crd())
        .crd(ServiceMonitor::crd())
        .crd(PrometheusRule::crd())
        .crd(HTTPRoute::crd())
        .crd(Gateway::crd())
        .crd(Composition::crd())
        .crd(Application::crd())
        .crd(Exotic::crd())
        .crd(Bare::crd());
    let servers = Servers {
        crds,
        vendored: vendored.start().await?,
        regenerated: regenerated.start().await?,
    };
    let cert_manager = "cert-manager/examples.yaml";
    kind::<Certificate>(
        &servers,
        cert_manager,
        |c, ns| Api::namespaced(c, ns),
        true,
        Some("/spec/privateKey/algorithm"),
    )
    .await?;
    kind::<Issuer>(
        &servers,
        cert_manager,
        |c, ns| Api::namespaced(c, ns),
        true,
        None,
    )
    .await?;
    let prometheus = "prometheus-operator/examples.yaml";
    kind::<ServiceMonitor>(
        &servers,
        prometheus,
        |c, ns| Api::namespaced(c, ns),
        true,
        Some("/spec/endpoints/0/scheme"),
    )
    .await?;
    kind::<PrometheusRule>(
        &servers,
        prometheus,
        |c, ns| Api::namespaced(c, ns),
        true,
        None,
    )
    .await?;
    let gateway = "gateway-api/examples.yaml";
    kind::<Gateway>(
        &servers,
        gateway,
        |c, ns| Api::namespaced(c, ns),
        true,
        Some("/spec/listeners/0/allowedRoutes/namespaces/from"),
    )
    .await?;
    kind::<HTTPRoute>(
        &servers,
        gateway,
        |c, ns| Api::namespaced(c, ns),
        true,
        Some("/spec/rules/0/matches/0/path/type"),
    )
    .await?;
    kind::<Composition>(
        &servers,
        "crossplane/examples.yaml",
        |c, _| Api::all(c),
        false,
        None,
    )
    .await?;
    kind::<Application>(
        &servers,
        "argo-cd/examples.yaml",
        |c, ns| Api::namespaced(c, ns),
        true,
        None,
    )
    .await?;
    let kubeforge = "kubeforge/examples.yaml";
    kind::<Exotic>(
        &servers,
        kubeforge,
        |c, ns| Api::namespaced(c, ns),
        true,
        Some("/spec/color"),
    )
    .await?;
    kind::<Bare>(&servers, kubeforge, |c, _| Api::all(c), false, None).await?;
    Ok(())
}
