//! Patches: JSON merge, JSON patch, strategic merge on built-ins, server-side apply.

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::common::{Widget, api_error, env, widget};

fn deployment() -> Deployment {
    serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "patched"},
        "spec": {
            "selector": {"matchLabels": {"app": "p"}},
            "template": {"metadata": {"labels": {"app": "p"}}, "spec": {
                "containers": [
                    {"name": "a", "image": "nginx:1.27", "env": [{"name": "X", "value": "1"}], "ports": [{"containerPort": 80}]},
                    {"name": "b", "image": "busybox:1.36"},
                ],
                "volumes": [{"name": "v1", "emptyDir": {}}],
            }},
        },
    }))
    .unwrap()
}

#[tokio::test]
async fn strategic_merge_keys_on_builtins() {
    let env = env().await;
    let deployments: Api<Deployment> = Api::namespaced(env.client(), env.namespace());
    deployments
        .create(&PostParams::default(), &deployment())
        .await
        .unwrap();
    let patch = json!({"spec": {"template": {"spec": {
        "containers": [{"name": "a", "env": [{"name": "Y", "value": "2"}], "ports": [{"containerPort": 443}]}],
        "volumes": [{"name": "v2", "emptyDir": {}}],
    }}}});
    let out = deployments
        .patch("patched", &PatchParams::default(), &Patch::Strategic(patch))
        .await
        .unwrap();
    let pod = out.spec.unwrap().template.spec.unwrap();
    let names: Vec<&str> = pod.containers.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b"], "containers merge by name");
    let a = &pod.containers[0];
    assert_eq!(a.image.as_deref(), Some("nginx:1.27"));
    let env_names: Vec<&str> = a
        .env
        .as_ref()
        .unwrap()
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(env_names, ["Y", "X"], "env merges by name");
    let ports: Vec<i32> = a
        .ports
        .as_ref()
        .unwrap()
        .iter()
        .map(|p| p.container_port)
        .collect();
    assert_eq!(ports, [443, 80], "ports merge by containerPort");
    let volumes: Vec<&str> = pod
        .volumes
        .as_ref()
        .unwrap()
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(volumes, ["v2", "v1"], "volumes merge by name");
}

#[tokio::test]
async fn merge_json_and_apply_patches_on_custom_resources() {
    let env = env().await;
    let widgets: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    widgets
        .create(&PostParams::default(), &widget("p", "red"))
        .await
        .unwrap();
    let merged = widgets
        .patch(
            "p",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"color": "green"}})),
        )
        .await
        .unwrap();
    assert_eq!(merged.spec.color, "green");
    assert_eq!(merged.metadata.generation, Some(2));
    let ops: json_patch::Patch = serde_json::from_value(json!([
        {"op": "test", "path": "/spec/color", "value": "green"},
        {"op": "replace", "path": "/spec/replicas", "value": 4},
    ]))
    .unwrap();
    let patched = widgets
        .patch("p", &PatchParams::default(), &Patch::<()>::Json(ops))
        .await
        .unwrap();
    assert_eq!(patched.spec.replicas, 4);
    let failing: json_patch::Patch =
        serde_json::from_value(json!([{"op": "test", "path": "/spec/color", "value": "red"}]))
            .unwrap();
    let err = api_error(
        widgets
            .patch("p", &PatchParams::default(), &Patch::<()>::Json(failing))
            .await,
    );
    assert_eq!(err.code, 422);
    let err = api_error(
        widgets
            .patch(
                "p",
                &PatchParams::default(),
                &Patch::Strategic(json!({"spec": {"color": "x"}})),
            )
            .await,
    );
    assert_eq!(
        err.code, 415,
        "strategic merge patch is refused for custom resources"
    );

    // Server-side apply creates and then updates.
    let applied = widgets
        .patch(
            "applied",
            &PatchParams::apply("conformance"),
            &Patch::Apply(&widget("applied", "blue")),
        )
        .await
        .unwrap();
    assert_eq!(applied.spec.color, "blue");
    let again = widgets
        .patch(
            "applied",
            &PatchParams::apply("conformance"),
            &Patch::Apply(&widget("applied", "black")),
        )
        .await
        .unwrap();
    assert_eq!(again.spec.color, "black");
    assert_eq!(again.metadata.uid, applied.metadata.uid);
}

#[tokio::test]
async fn patch_with_stale_resource_version_conflicts() {
    let env = env().await;
    let widgets: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let created = widgets
        .create(&PostParams::default(), &widget("rv", "red"))
        .await
        .unwrap();
    let rv = created.metadata.resource_version.clone().unwrap();
    widgets
        .patch(
            "rv",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"color": "a"}})),
        )
        .await
        .unwrap();
    let err = api_error(
        widgets
            .patch(
                "rv",
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"resourceVersion": rv}, "spec": {"color": "b"}})),
            )
            .await,
    );
    assert_eq!((err.code, err.reason.as_str()), (409, "Conflict"));
}

#[tokio::test]
async fn server_side_apply_removes_fields_a_manager_dropped() {
    use k8s_openapi::api::core::v1::ConfigMap;
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let apply = |manager: &'static str, labels: serde_json::Value, data: serde_json::Value| {
        let cms = cms.clone();
        async move {
            let config = json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "ssa", "labels": labels}, "data": data});
            cms.patch("ssa", &PatchParams::apply(manager), &Patch::Apply(config))
                .await
                .unwrap()
        }
    };
    apply(
        "first",
        json!({"a": "1", "b": "2"}),
        json!({"x": "1", "y": "2"}),
    )
    .await;
    apply("second", json!({"c": "3"}), json!({"z": "3"})).await;
    let after = apply("first", json!({"a": "1"}), json!({"x": "1"})).await;
    let labels = after.metadata.labels.unwrap();
    assert_eq!(labels.get("a").map(String::as_str), Some("1"));
    assert!(
        !labels.contains_key("b"),
        "dropped by its only manager: {labels:?}"
    );
    assert_eq!(
        labels.get("c").map(String::as_str),
        Some("3"),
        "another manager's field stays"
    );
    let data = after.data.unwrap();
    assert!(
        !data.contains_key("y") && data.contains_key("z") && data.contains_key("x"),
        "{data:?}"
    );
}
