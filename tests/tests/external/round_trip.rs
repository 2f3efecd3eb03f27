//! Round-trips kubeforge's example objects of every external kind through the test
//! environment's API server (embedded, or real with `KUBEFORGE_TEST_CLUSTER=binaries`). (The
//! end-to-end test `external` of kubeforge writes this file into the project it generates, with
//! the examples under tests/fixtures/.)
//!
//! For every kind:
//! 1. each example deserializes into the generated type and serializes back to the same JSON,
//!    and so does the example with an enum value the CRD does not list (what a newer server
//!    may write);
//! 2. with the CRD `create api --external` read installed (config/crd/external/), the typed
//!    client creates the example (its status through the status subresource when the CRD has
//!    one); the server keeps every field the example set, and the typed read of the stored
//!    object serializes to exactly the JSON the server sends;
//! 3. with the CRD regenerated from the Rust types (`K::crd()`) installed instead (afterwards,
//!    in an environment of its own), the server accepts the same objects and stores them
//!    exactly as under the original CRD;
//! 4. when the CRD does not require `spec`, an object without one (and one with `spec: null`)
//!    reads as the default spec, locally and from the server that stored it without spec, and
//!    writes back with the default spec (as Go's typed clients do).
//!
//! `deep_schema_round_trips` does step 1, and compares the regenerated schema, for a kind whose
//! schema nests 200 objects: kube's client reads at most 128 JSON levels, so that CRD goes
//! through no API server here. Its types need a higher `recursion_limit` in every crate that
//! uses them, as `create api --external` said (this file's and lib.rs's).

#![recursion_limit = "512"]

use std::collections::BTreeMap;
use std::fmt::Debug;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::object::HasSpec;
use kube::core::{ApiResource, NamespaceResourceScope};
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
use crd_consumer::external::typegen_kubeforge_dev::v1::{Bare, Deep, Exotic};

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

/// The copy of the CRD whose schema nests 200 objects (written by the end-to-end test).
const DEEP_CRD: &str = "typegen.kubeforge.dev_deeps.yaml";
/// How deep its schema nests `child` objects below `spec`.
const DEEP_LEVELS: usize = 200;

/// Every CRD of config/crd/external but the deep one, which no API server reads here.
fn vendored_crds() -> Vec<CustomResourceDefinition> {
    let mut crds = Vec::new();
    for entry in std::fs::read_dir(CRDS).expect("config/crd/external") {
        let path = entry.expect("entry").path();
        if path.ends_with(DEEP_CRD) {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("CRD");
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

/// Whether the storage version of `crd` lets objects leave `spec` out.
fn spec_is_optional(crd: &CustomResourceDefinition) -> bool {
    crd.spec.versions.iter().any(|v| {
        let schema = v
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref());
        v.storage
            && schema.is_some_and(|s| {
                s.properties
                    .as_ref()
                    .is_some_and(|p| p.contains_key("spec"))
                    && !s.required.iter().flatten().any(|r| r == "spec")
            })
    })
}

/// Step 4 on the server with the vendored CRDs: an object without spec, created untyped, reads
/// as the default spec; the typed read writes back what the server sent, with that spec.
async fn without_spec<K>(
    client: Client,
    api: &Api<K>,
    namespace: Option<&str>,
) -> anyhow::Result<()>
where
    K: Resource<DynamicType = ()> + HasSpec + Clone + Debug + Serialize + DeserializeOwned,
    K::Spec: Default + PartialEq + Debug + Serialize,
{
    let bare = json!({
        "apiVersion": K::api_version(&()),
        "kind": K::kind(&()),
        "metadata": {"name": "without-spec"},
    });
    let default_spec = serde_json::to_value(K::Spec::default())?;
    let mut with_null = bare.clone();
    with_null["spec"] = Value::Null;
    for object in [&bare, &with_null] {
        let typed: K = serde_json::from_value(object.clone())?;
        anyhow::ensure!(
            *typed.spec() == K::Spec::default(),
            "{object} read {typed:?}"
        );
        let back = serde_json::to_value(&typed)?;
        anyhow::ensure!(
            back["spec"] == default_spec,
            "{object} wrote back {back}, not the default spec {default_spec}"
        );
    }
    let resource = ApiResource::erase::<K>(&());
    let raw: Api<DynamicObject> = match namespace {
        Some(ns) => Api::namespaced_with(client, ns, &resource),
        None => Api::all_with(client, &resource),
    };
    raw.create(&PostParams::default(), &serde_json::from_value(bare)?)
        .await?;
    let from_server = serde_json::to_value(raw.get("without-spec").await?)?;
    anyhow::ensure!(
        from_server.get("spec").is_none(),
        "the server stored a spec: {from_server}"
    );
    let typed = api.get("without-spec").await?;
    anyhow::ensure!(*typed.spec() == K::Spec::default(), "read {typed:?}");
    let mut read = serde_json::to_value(&typed)?;
    let spec = read
        .as_object_mut()
        .and_then(|o| o.remove("spec"))
        .unwrap_or_default();
    anyhow::ensure!(
        spec == default_spec && same(&read, &from_server),
        "the typed read of an object without spec is not what the server sent with the default spec:\n{from_server}\n{read}"
    );
    Ok(())
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
        // In the environment's namespace, whatever namespace the example names (a real API
        // server refuses an object whose namespace is not the request's).
        let mut example = example.clone();
        if let Some(ns) = namespace {
            example["metadata"]["namespace"] = json!(ns);
        }
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

/// Which CRDs the API server has: the vendored ones of config/crd/external (steps 1, 2 and 4),
/// or those regenerated from the Rust types (step 3). One after the other, not side by side:
/// in binaries mode (and on a cluster) every environment of the process shares one API server,
/// where a CRD has one schema at a time.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Vendored,
    Regenerated,
}

/// The steps of `phase` for one kind. Under the vendored CRDs, what the server stored goes into
/// `stored`; under the regenerated ones, it must be the same.
async fn kind<K>(
    env: &TestEnv,
    phase: Phase,
    stored: &mut BTreeMap<String, Vec<Value>>,
    file: &str,
    api: fn(Client, &str) -> Api<K>,
    namespaced: bool,
    unknown_enum: Option<&str>,
) -> anyhow::Result<()>
where
    K: Resource<DynamicType = ()>
        + CustomResourceExt
        + HasSpec
        + Clone
        + Debug
        + Serialize
        + DeserializeOwned,
    K::Spec: Default + PartialEq + Debug + Serialize,
{
    let kind = K::kind(&()).into_owned();
    let examples = examples::<K>(file);
    let namespace = namespaced.then(|| env.namespace());
    let typed = api(env.client(), env.namespace());
    if phase == Phase::Regenerated {
        let status = has_status_subresource(&K::crd());
        let objects =
            round_trip_through(env.client(), &typed, namespace, status, &examples).await?;
        for (original, regenerated) in stored[&kind].iter().zip(&objects) {
            anyhow::ensure!(
                same(original, regenerated),
                "{kind} is stored differently under the regenerated CRD:\n{original}\n{regenerated}"
            );
        }
        println!("round-tripped {} {kind} objects", examples.len());
        return Ok(());
    }
    round_trip_locally::<K>(&examples, unknown_enum);
    let crds = vendored_crds();
    let original = crds
        .iter()
        .find(|c| c.metadata.name.as_deref() == Some(K::crd_name()))
        .expect("the vendored CRD");
    let status = has_status_subresource(original);
    let objects = round_trip_through(env.client(), &typed, namespace, status, &examples).await?;
    stored.insert(kind.clone(), objects);
    if spec_is_optional(original) {
        without_spec(env.client(), &typed, namespace).await?;
        println!("read {kind} without spec");
    }
    Ok(())
}

/// The API of a namespaced kind in the environment's namespace.
fn namespaced<K>(client: Client, namespace: &str) -> Api<K>
where
    K: Resource<DynamicType = (), Scope = NamespaceResourceScope>,
{
    Api::namespaced(client, namespace)
}

/// The API of a cluster-scoped kind.
fn cluster<K: Resource<DynamicType = ()>>(client: Client, _: &str) -> Api<K> {
    Api::all(client)
}

/// Every kind's steps of `phase` on `env`.
async fn every_kind(
    env: &TestEnv,
    phase: Phase,
    stored: &mut BTreeMap<String, Vec<Value>>,
) -> anyhow::Result<()> {
    // Each kind's future on the heap: in a debug build, ten of them nested in this one take more
    // than the test thread's 2 MiB of stack.
    let cert_manager = "cert-manager/examples.yaml";
    let unknown = Some("/spec/privateKey/algorithm");
    Box::pin(kind::<Certificate>(
        env,
        phase,
        stored,
        cert_manager,
        namespaced,
        true,
        unknown,
    ))
    .await?;
    Box::pin(kind::<Issuer>(
        env,
        phase,
        stored,
        cert_manager,
        namespaced,
        true,
        None,
    ))
    .await?;
    let prometheus = "prometheus-operator/examples.yaml";
    let unknown = Some("/spec/endpoints/0/scheme");
    Box::pin(kind::<ServiceMonitor>(
        env, phase, stored, prometheus, namespaced, true, unknown,
    ))
    .await?;
    Box::pin(kind::<PrometheusRule>(
        env, phase, stored, prometheus, namespaced, true, None,
    ))
    .await?;
    let gateway = "gateway-api/examples.yaml";
    let unknown = Some("/spec/listeners/0/allowedRoutes/namespaces/from");
    Box::pin(kind::<Gateway>(
        env, phase, stored, gateway, namespaced, true, unknown,
    ))
    .await?;
    let unknown = Some("/spec/rules/0/matches/0/path/type");
    Box::pin(kind::<HTTPRoute>(
        env, phase, stored, gateway, namespaced, true, unknown,
    ))
    .await?;
    let crossplane = "crossplane/examples.yaml";
    Box::pin(kind::<Composition>(
        env, phase, stored, crossplane, cluster, false, None,
    ))
    .await?;
    let argo = "argo-cd/examples.yaml";
    Box::pin(kind::<Application>(
        env, phase, stored, argo, namespaced, true, None,
    ))
    .await?;
    let kubeforge = "kubeforge/examples.yaml";
    let unknown = Some("/spec/color");
    Box::pin(kind::<Exotic>(
        env, phase, stored, kubeforge, namespaced, true, unknown,
    ))
    .await?;
    Box::pin(kind::<Bare>(
        env, phase, stored, kubeforge, cluster, false, None,
    ))
    .await
}

#[tokio::test]
async fn external_kinds_round_trip() -> anyhow::Result<()> {
    let mut stored = BTreeMap::new();
    let mut vendored = TestEnv::builder();
    for crd in vendored_crds() {
        vendored = vendored.crd(crd);
    }
    let env = vendored.start().await?;
    every_kind(&env, Phase::Vendored, &mut stored).await?;
    // Gone before the regenerated CRDs come (the next environment waits until the server has
    // deleted the vendored ones).
    drop(env);
    let env = TestEnv::builder()
        .crd(Certificate::crd())
        .crd(Issuer::crd())
        .crd(ServiceMonitor::crd())
        .crd(PrometheusRule::crd())
        .crd(HTTPRoute::crd())
        .crd(Gateway::crd())
        .crd(Composition::crd())
        .crd(Application::crd())
        .crd(Exotic::crd())
        .crd(Bare::crd())
        .start()
        .await?;
    every_kind(&env, Phase::Regenerated, &mut stored).await
}

/// An object of the deep kind, nested `DEEP_LEVELS` objects below `spec`, round-trips, and
/// the schema regenerated from the types nests the same way down to the leaf's.
fn deep_round_trip() {
    let crd = Deep::crd();
    let mut schema = &crd.spec.versions[0]
        .schema
        .as_ref()
        .and_then(|s| s.open_api_v3_schema.as_ref())
        .expect("a schema")
        .properties
        .as_ref()
        .expect("properties")["spec"];
    let mut spec = json!({"leaf": "bottom"});
    for _ in 0..DEEP_LEVELS {
        spec = json!({ "child": spec, "note": "a level" });
        schema = &schema.properties.as_ref().expect("properties")["child"];
    }
    let leaf = &schema.properties.as_ref().expect("the deepest properties")["leaf"];
    assert_eq!(leaf.type_.as_deref(), Some("string"));
    let object = json!({
        "apiVersion": "typegen.kubeforge.dev/v1",
        "kind": "Deep",
        "metadata": {"name": "deep"},
        "spec": spec,
    });
    round_trip_locally::<Deep>(&[object], None);
}

#[test]
fn deep_schema_round_trips() {
    // Each level is a call of the derived (debug) code, in schemars as in serde: more than a
    // test thread's 2 MiB.
    std::thread::Builder::new()
        .stack_size(64 * 1024 * 1024)
        .spawn(deep_round_trip)
        .expect("a thread")
        .join()
        .expect("the round trip");
    println!("round-tripped a Deep object {DEEP_LEVELS} levels deep");
}
