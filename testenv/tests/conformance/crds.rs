//! CustomResourceDefinitions: structural schemas, several versions, deletion cascade.

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, PostParams};
use kube::core::GroupVersionKind;
use serde_json::json;

use crate::common::api_error;

const GROUP: &str = "crds.conformance.kubeforge.dev";

fn crd(plural: &str, kind: &str, versions: serde_json::Value) -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{GROUP}")},
        "spec": {"group": GROUP, "scope": "Namespaced",
                 "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind, "listKind": format!("{kind}List")},
                 "versions": versions},
    }))
    .unwrap()
}

fn schema() -> serde_json::Value {
    json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "size": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
            "port": {"x-kubernetes-int-or-string": true},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        }, "required": ["mode"]},
    }}})
}

async fn wait_established(crds: &Api<CustomResourceDefinition>, name: &str) {
    for _ in 0..300 {
        let c = crds.get(name).await.unwrap();
        let ok = c
            .status
            .and_then(|s| s.conditions)
            .unwrap_or_default()
            .iter()
            .any(|c| c.type_ == "Established" && c.status == "True");
        if ok {
            // Discovery on a real cluster lags behind the condition slightly.
            tokio::time::sleep(Duration::from_millis(200)).await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{name} not Established");
}

fn api_for(
    env: &kubeforge_testenv::TestEnv,
    version: &str,
    kind: &str,
    plural: &str,
) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk(GROUP, version, kind);
    Api::namespaced_with(
        env.client(),
        env.namespace(),
        &ApiResource::from_gvk_with_plural(&gvk, plural),
    )
}

fn object(version: &str, kind: &str, name: &str, spec: serde_json::Value) -> DynamicObject {
    serde_json::from_value(json!({"apiVersion": format!("{GROUP}/{version}"), "kind": kind, "metadata": {"name": name}, "spec": spec})).unwrap()
}

#[tokio::test]
async fn non_structural_schema_is_rejected() {
    let env = kubeforge_testenv::TestEnv::start().await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let bad = crd(
        "shapeless",
        "Shapeless",
        json!([{"name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"properties": {"a": {"type": "string"}}}}}}}]),
    );
    let err = api_error(crds.create(&PostParams::default(), &bad).await);
    assert_eq!((err.code, err.reason.as_str()), (422, "Invalid"));
    assert!(
        err.message
            .contains("spec.validation.openAPIV3Schema.properties[spec].type"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn validation_defaults_and_versions() {
    let env = kubeforge_testenv::TestEnv::start().await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let def = crd(
        "gadgets",
        "Gadget",
        json!([
            {"name": "v1", "served": true, "storage": true, "schema": schema()},
            {"name": "v1beta1", "served": true, "storage": false, "schema": schema()},
        ]),
    );
    let name = format!("gadgets.{GROUP}");
    let _ = crds.delete(&name, &DeleteParams::default()).await;
    crds.create(&PostParams::default(), &def).await.unwrap();
    wait_established(&crds, &name).await;
    let v1 = api_for(&env, "v1", "Gadget", "gadgets");
    let created = v1
        .create(
            &PostParams::default(),
            &object(
                "v1",
                "Gadget",
                "g1",
                json!({"mode": "fast", "port": "http", "free": {"any": {"thing": 1}}}),
            ),
        )
        .await
        .unwrap();
    assert_eq!(
        created.data["spec"]["size"],
        json!(3),
        "schema default applied"
    );
    assert_eq!(
        created.data["spec"]["free"]["any"]["thing"],
        json!(1),
        "preserved unknown fields"
    );
    assert_eq!(created.data["spec"]["port"], json!("http"));

    let err = api_error(
        v1.create(
            &PostParams::default(),
            &object("v1", "Gadget", "g2", json!({"mode": "medium", "size": 11})),
        )
        .await,
    );
    assert_eq!((err.code, err.reason.as_str()), (422, "Invalid"));
    let fields: Vec<String> = err
        .details
        .unwrap()
        .causes
        .into_iter()
        .map(|c| c.field)
        .collect();
    assert!(
        fields.contains(&"spec.mode".to_string()) && fields.contains(&"spec.size".to_string()),
        "{fields:?}"
    );
    let err = api_error(
        v1.create(
            &PostParams::default(),
            &object("v1", "Gadget", "g3", json!({})),
        )
        .await,
    );
    assert!(
        err.message.contains("spec.mode: Required value"),
        "{}",
        err.message
    );

    // The same object through the other served version (conversion None).
    let beta = api_for(&env, "v1beta1", "Gadget", "gadgets");
    let seen = beta.get("g1").await.unwrap();
    assert_eq!(seen.types.unwrap().api_version, format!("{GROUP}/v1beta1"));
    assert_eq!(seen.data["spec"]["mode"], json!("fast"));

    // Deleting the CRD deletes its objects.
    crds.delete(&name, &DeleteParams::default()).await.unwrap();
    for _ in 0..300 {
        if matches!(crds.get(&name).await, Err(kube::Error::Api(s)) if s.code == 404) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(matches!(v1.get("g1").await, Err(kube::Error::Api(s)) if s.code == 404));
}
