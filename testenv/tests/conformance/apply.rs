//! Server-side apply: managedFields, conflicts, removal, list merging, status apply and
//! request options, as a real API server answers them.

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kubeforge_testenv::TestEnv;
use serde_json::{Value, json};

use crate::common::{Widget, api_error, env, widget_crd};

/// A kind with a map list, a set and an atomic list, to see list merging.
const PROBE_CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: applyprobes.conformance.kubeforge.dev
spec:
  group: conformance.kubeforge.dev
  scope: Namespaced
  names: {plural: applyprobes, singular: applyprobe, kind: ApplyProbe}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string}
              items:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    value: {type: string}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              args:
                type: array
                items: {type: string}
"#;

async fn probe_env() -> TestEnv {
    TestEnv::builder()
        .crd(widget_crd())
        .crd_yaml(PROBE_CRD)
        .start()
        .await
        .expect("test environment starts")
}

fn probes(env: &TestEnv) -> Api<DynamicObject> {
    let resource = kube::api::ApiResource {
        group: "conformance.kubeforge.dev".into(),
        version: "v1".into(),
        api_version: "conformance.kubeforge.dev/v1".into(),
        kind: "ApplyProbe".into(),
        plural: "applyprobes".into(),
    };
    Api::namespaced_with(env.client(), env.namespace(), &resource)
}

fn probe(spec: Value) -> Value {
    json!({"apiVersion": "conformance.kubeforge.dev/v1", "kind": "ApplyProbe",
        "metadata": {"name": "p"}, "spec": spec})
}

/// The managedFields entries of an object, as JSON.
pub(crate) fn managed(meta: &kube::api::ObjectMeta) -> Vec<Value> {
    meta.managed_fields
        .iter()
        .flatten()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

/// The entry of `manager` (and operation), if any.
pub(crate) fn entry<'a>(entries: &'a [Value], manager: &str, operation: &str) -> Option<&'a Value> {
    entries
        .iter()
        .find(|e| e["manager"] == manager && e["operation"] == operation)
}

fn config_map(name: &str, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data})
}

#[tokio::test]
async fn apply_publishes_managed_fields() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let mut config = config_map("mf", json!({"a": "1"}));
    config["metadata"]["labels"] = json!({"app": "x"});
    let applied = cms
        .patch(
            "mf",
            &PatchParams::apply("conformance-a"),
            &Patch::Apply(&config),
        )
        .await
        .unwrap();
    let entries = managed(&applied.metadata);
    assert_eq!(entries.len(), 1, "{entries:?}");
    let e = &entries[0];
    assert_eq!(e["manager"], "conformance-a");
    assert_eq!(e["operation"], "Apply");
    assert_eq!(e["apiVersion"], "v1");
    assert_eq!(e["fieldsType"], "FieldsV1");
    assert!(e["time"].is_string(), "{e}");
    assert!(e.get("subresource").is_none(), "{e}");
    assert_eq!(
        e["fieldsV1"],
        json!({"f:data": {"f:a": {}}, "f:metadata": {"f:labels": {"f:app": {}}}})
    );
    // Every read publishes them.
    let read = cms.get("mf").await.unwrap();
    assert_eq!(managed(&read.metadata), entries);
    let listed = cms.list(&Default::default()).await.unwrap();
    let item = listed
        .items
        .iter()
        .find(|c| c.metadata.name.as_deref() == Some("mf"))
        .unwrap();
    assert_eq!(managed(&item.metadata), entries);
}

#[tokio::test]
async fn updates_are_recorded_per_manager() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let cm: ConfigMap =
        serde_json::from_value(config_map("upd", json!({"a": "1", "b": "1"}))).unwrap();
    let post = PostParams {
        field_manager: Some("creator".into()),
        ..Default::default()
    };
    let created = cms.create(&post, &cm).await.unwrap();
    let entries = managed(&created.metadata);
    let e = entry(&entries, "creator", "Update").expect("the creator's entry");
    assert_eq!(
        e["fieldsV1"],
        json!({"f:data": {".": {}, "f:a": {}, "f:b": {}}})
    );
    // A merge patch by another manager moves the changed field.
    let patched = cms
        .patch(
            "upd",
            &PatchParams {
                field_manager: Some("editor".into()),
                ..Default::default()
            },
            &Patch::Merge(json!({"data": {"b": "2"}})),
        )
        .await
        .unwrap();
    let entries = managed(&patched.metadata);
    assert_eq!(
        entry(&entries, "editor", "Update").unwrap()["fieldsV1"],
        json!({"f:data": {"f:b": {}}})
    );
    assert_eq!(
        entry(&entries, "creator", "Update").unwrap()["fieldsV1"],
        json!({"f:data": {".": {}, "f:a": {}}})
    );
    // The editor removes its own field: its entry disappears.
    let patched = cms
        .patch(
            "upd",
            &PatchParams {
                field_manager: Some("editor".into()),
                ..Default::default()
            },
            &Patch::Merge(json!({"data": {"b": null}})),
        )
        .await
        .unwrap();
    let entries = managed(&patched.metadata);
    assert!(entry(&entries, "editor", "Update").is_none(), "{entries:?}");
}

#[tokio::test]
async fn apply_conflicts_share_and_force() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let cm: ConfigMap = serde_json::from_value(config_map("cf", json!({"x": "1"}))).unwrap();
    let post = PostParams {
        field_manager: Some("creator".into()),
        ..Default::default()
    };
    cms.create(&post, &cm).await.unwrap();

    let err = api_error(
        cms.patch(
            "cf",
            &PatchParams::apply("ssa"),
            &Patch::Apply(config_map("cf", json!({"x": "2"}))),
        )
        .await,
    );
    assert_eq!((err.code, err.reason.as_str()), (409, "Conflict"));
    assert_eq!(
        err.message,
        "Apply failed with 1 conflict: conflict with \"creator\" using v1: .data.x"
    );
    let causes = err.details.expect("details").causes;
    assert_eq!(causes.len(), 1, "{causes:?}");
    assert_eq!(causes[0].reason, "FieldManagerConflict");
    assert_eq!(causes[0].message, "conflict with \"creator\" using v1");
    assert_eq!(causes[0].field, ".data.x");

    // The same value is shared, without conflict.
    let shared = cms
        .patch(
            "cf",
            &PatchParams::apply("ssa"),
            &Patch::Apply(config_map("cf", json!({"x": "1"}))),
        )
        .await
        .unwrap();
    let entries = managed(&shared.metadata);
    assert_eq!(
        entry(&entries, "ssa", "Apply").unwrap()["fieldsV1"],
        json!({"f:data": {"f:x": {}}})
    );
    assert_eq!(
        entry(&entries, "creator", "Update").unwrap()["fieldsV1"],
        json!({"f:data": {".": {}, "f:x": {}}})
    );

    // Forced, the applier takes the field.
    let forced = cms
        .patch(
            "cf",
            &PatchParams::apply("ssa").force(),
            &Patch::Apply(config_map("cf", json!({"x": "2"}))),
        )
        .await
        .unwrap();
    assert_eq!(forced.data.unwrap()["x"], "2");
    let entries = managed(&forced.metadata);
    assert_eq!(
        entry(&entries, "creator", "Update").unwrap()["fieldsV1"],
        json!({"f:data": {}}),
        "the creator keeps the map it created"
    );
    // Updates never conflict: they take the field back.
    let updated = cms
        .patch(
            "cf",
            &PatchParams {
                field_manager: Some("creator".into()),
                ..Default::default()
            },
            &Patch::Merge(json!({"data": {"x": "3"}})),
        )
        .await
        .unwrap();
    let entries = managed(&updated.metadata);
    assert!(entry(&entries, "ssa", "Apply").is_none(), "{entries:?}");
}

#[tokio::test]
async fn two_apply_managers_like_controllers() {
    let env = env().await;
    let widgets: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let spec = |color: &str| {
        json!({"apiVersion": "conformance.kubeforge.dev/v1", "kind": "Widget",
            "metadata": {"name": "w"}, "spec": {"color": color, "replicas": 1}})
    };
    let labels = json!({"apiVersion": "conformance.kubeforge.dev/v1", "kind": "Widget",
        "metadata": {"name": "w", "labels": {"team": "b"}}});
    for _ in 0..2 {
        widgets
            .patch(
                "w",
                &PatchParams::apply("controller-a"),
                &Patch::Apply(spec("red")),
            )
            .await
            .unwrap();
        widgets
            .patch(
                "w",
                &PatchParams::apply("controller-b"),
                &Patch::Apply(&labels),
            )
            .await
            .unwrap();
    }
    let w = widgets.get("w").await.unwrap();
    assert_eq!(w.spec.color, "red");
    assert_eq!(w.metadata.labels.as_ref().unwrap()["team"], "b");
    let entries = managed(&w.metadata);
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert_eq!(
        entry(&entries, "controller-a", "Apply").unwrap()["fieldsV1"],
        json!({"f:spec": {"f:color": {}, "f:replicas": {}}})
    );
    assert_eq!(
        entry(&entries, "controller-b", "Apply").unwrap()["fieldsV1"],
        json!({"f:metadata": {"f:labels": {"f:team": {}}}})
    );
    // b wants the color too: an apply manager's conflict names it without an API version.
    let err = api_error(
        widgets
            .patch(
                "w",
                &PatchParams::apply("controller-b"),
                &Patch::Apply(spec("blue")),
            )
            .await,
    );
    assert_eq!(err.code, 409);
    assert_eq!(
        err.message,
        "Apply failed with 1 conflict: conflict with \"controller-a\": .spec.color"
    );
    widgets
        .patch(
            "w",
            &PatchParams::apply("controller-b").force(),
            &Patch::Apply(spec("blue")),
        )
        .await
        .unwrap();
    // b's new configuration no longer has the label: it goes.
    let w = widgets.get("w").await.unwrap();
    assert_eq!(w.spec.color, "blue");
    let labels = w.metadata.labels.clone().unwrap_or_default();
    assert!(!labels.contains_key("team"), "{labels:?}");
    let entries = managed(&w.metadata);
    assert_eq!(
        entry(&entries, "controller-a", "Apply").unwrap()["fieldsV1"],
        json!({"f:spec": {"f:replicas": {}}})
    );
}

#[tokio::test]
async fn map_lists_merge_between_managers_and_dropped_items_go() {
    let env = probe_env().await;
    let api = probes(&env);
    let apply = |manager: &'static str, spec: Value| {
        let api = api.clone();
        async move {
            api.patch(
                "p",
                &PatchParams::apply(manager),
                &Patch::Apply(probe(spec)),
            )
            .await
            .unwrap()
        }
    };
    apply(
        "a",
        json!({"items": [{"name": "one", "value": "1"}], "tags": ["x"], "args": ["--a"]}),
    )
    .await;
    let both = apply(
        "b",
        json!({"items": [{"name": "two", "value": "2"}], "tags": ["y"]}),
    )
    .await;
    assert_eq!(
        both.data["spec"]["items"],
        json!([{"name": "one", "value": "1"}, {"name": "two", "value": "2"}])
    );
    assert_eq!(both.data["spec"]["tags"], json!(["x", "y"]));
    let entries = managed(&both.metadata);
    assert_eq!(
        entry(&entries, "a", "Apply").unwrap()["fieldsV1"],
        json!({"f:spec": {"f:args": {}, "f:tags": {"v:\"x\"": {}},
            "f:items": {"k:{\"name\":\"one\"}": {".": {}, "f:name": {}, "f:value": {}}}}})
    );
    assert_eq!(
        entry(&entries, "b", "Apply").unwrap()["fieldsV1"],
        json!({"f:spec": {"f:tags": {"v:\"y\"": {}},
            "f:items": {"k:{\"name\":\"two\"}": {".": {}, "f:name": {}, "f:value": {}}}}})
    );
    // a stops applying its item, tag and args: they are removed, b's stay.
    let after = apply("a", json!({"size": "s"})).await;
    assert_eq!(
        after.data["spec"],
        json!({"size": "s", "items": [{"name": "two", "value": "2"}], "tags": ["y"]})
    );
}

#[tokio::test]
async fn status_apply_and_create_by_apply() {
    let env = env().await;
    let client = env.client();
    let ns = env.namespace().to_string();
    // Apply creates: 201.
    let body = json!({"apiVersion": "conformance.kubeforge.dev/v1", "kind": "Widget",
        "metadata": {"name": "sw"}, "spec": {"color": "red", "replicas": 1}});
    let request = http::Request::patch(format!(
        "/apis/conformance.kubeforge.dev/v1/namespaces/{ns}/widgets/sw?fieldManager=spec-owner"
    ))
    .header("Content-Type", "application/apply-patch+yaml")
    .body(serde_json::to_vec(&body).unwrap())
    .unwrap();
    let response = client.send(request.map(Into::into)).await.unwrap();
    assert_eq!(response.status(), 201);

    let widgets: Api<Widget> = Api::namespaced(client, &ns);
    let status = json!({"apiVersion": "conformance.kubeforge.dev/v1", "kind": "Widget",
        "metadata": {"name": "sw"}, "spec": {"color": "ignored", "replicas": 1},
        "status": {"ready": true, "replicas": 3}});
    let after = widgets
        .patch_status(
            "sw",
            &PatchParams::apply("status-owner"),
            &Patch::Apply(&status),
        )
        .await
        .unwrap();
    assert_eq!(
        after.spec.color, "red",
        "only status changes through /status"
    );
    let st = after.status.clone().unwrap();
    assert!(st.ready);
    assert_eq!(st.replicas, 3);
    let entries = managed(&after.metadata);
    let e = entry(&entries, "status-owner", "Apply").expect("the status entry");
    assert_eq!(e["subresource"], "status");
    assert_eq!(
        e["fieldsV1"],
        json!({"f:status": {"f:ready": {}, "f:replicas": {}}})
    );
    // The main endpoint's apply ignores status, and status fields stay the status owner's.
    let main = widgets
        .patch(
            "sw",
            &PatchParams::apply("spec-owner"),
            &Patch::Apply(
                json!({"apiVersion": "conformance.kubeforge.dev/v1", "kind": "Widget",
                "metadata": {"name": "sw"}, "spec": {"color": "green", "replicas": 1},
                "status": {"ready": false, "replicas": 0}}),
            ),
        )
        .await
        .unwrap();
    assert_eq!(main.spec.color, "green");
    assert_eq!(main.status.unwrap(), st);
    let entries = managed(&main.metadata);
    assert_eq!(
        entry(&entries, "spec-owner", "Apply").unwrap()["fieldsV1"],
        json!({"f:spec": {"f:color": {}, "f:replicas": {}}})
    );
}

/// A raw PATCH, for options kube-rs refuses to send.
async fn raw_patch(
    env: &TestEnv,
    name: &str,
    query: &str,
    content_type: &str,
    body: Value,
) -> kube::core::Status {
    let request = http::Request::patch(format!(
        "/api/v1/namespaces/{}/configmaps/{name}?{query}",
        env.namespace()
    ))
    .header("Content-Type", content_type)
    .body(serde_json::to_vec(&body).unwrap())
    .unwrap();
    api_error(env.client().request_text(request).await)
}

#[tokio::test]
async fn apply_options_are_checked() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    cms.patch(
        "opt",
        &PatchParams::apply("m"),
        &Patch::Apply(config_map("opt", json!({"a": "1"}))),
    )
    .await
    .unwrap();
    let err = raw_patch(
        &env,
        "opt",
        "force=true",
        "application/merge-patch+json",
        json!({"data": {"a": "2"}}),
    )
    .await;
    assert_eq!((err.code, err.reason.as_str()), (422, "Invalid"));
    assert_eq!(
        err.message,
        "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch"
    );
    let err = raw_patch(
        &env,
        "opt",
        "",
        "application/apply-patch+yaml",
        config_map("opt", json!({"a": "2"})),
    )
    .await;
    assert_eq!(err.code, 422);
    assert!(
        err.message.contains("fieldManager: Required value"),
        "{}",
        err.message
    );
    let long = "m".repeat(129);
    let err = raw_patch(
        &env,
        "opt",
        &format!("fieldManager={long}"),
        "application/apply-patch+yaml",
        config_map("opt", json!({"a": "2"})),
    )
    .await;
    assert_eq!(err.code, 422);
    assert!(
        err.message.contains("fieldManager: Too long"),
        "{}",
        err.message
    );
    let mut with_managed = config_map("opt", json!({"a": "2"}));
    with_managed["metadata"]["managedFields"] = json!([{"manager": "x", "operation": "Apply"}]);
    let err = raw_patch(
        &env,
        "opt",
        "fieldManager=m",
        "application/apply-patch+yaml",
        with_managed,
    )
    .await;
    assert_eq!(err.code, 400);
    assert!(
        err.message.contains("metadata.managedFields must be nil"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn updates_keep_managed_fields_sent_in_the_body() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let applied = cms
        .patch(
            "keep",
            &PatchParams::apply("m"),
            &Patch::Apply(config_map("keep", json!({"a": "1"}))),
        )
        .await
        .unwrap();
    // A PUT of the object as read leaves managedFields as they are.
    let same = cms
        .replace("keep", &PostParams::default(), &applied)
        .await
        .unwrap();
    assert_eq!(managed(&same.metadata), managed(&applied.metadata));
    // managedFields sent different from the stored ones are kept as sent.
    let mut sent: ConfigMap = same.clone();
    let mut entries = sent.metadata.managed_fields.clone().unwrap();
    entries[0].manager = Some("renamed".into());
    sent.metadata.managed_fields = Some(entries);
    let renamed = cms
        .replace("keep", &PostParams::default(), &sent)
        .await
        .unwrap();
    let got = managed(&renamed.metadata);
    assert!(entry(&got, "renamed", "Apply").is_some(), "{got:?}");
    assert!(entry(&got, "m", "Apply").is_none(), "{got:?}");
    // An empty list clears them, and so does `[{}]`.
    let mut empty = renamed.clone();
    empty.metadata.managed_fields = Some(vec![]);
    let emptied = cms
        .replace("keep", &PostParams::default(), &empty)
        .await
        .unwrap();
    assert!(
        managed(&emptied.metadata).is_empty(),
        "{:?}",
        emptied.metadata.managed_fields
    );
    let mut other = cms
        .patch(
            "other",
            &PatchParams::apply("m"),
            &Patch::Apply(config_map("other", json!({"a": "1"}))),
        )
        .await
        .unwrap();
    other.metadata.managed_fields = Some(vec![Default::default()]);
    let cleared = cms
        .replace("other", &PostParams::default(), &other)
        .await
        .unwrap();
    assert!(
        managed(&cleared.metadata).is_empty(),
        "{:?}",
        cleared.metadata.managed_fields
    );
    // Updates of an object without managers do not start tracking them...
    let updated = cms
        .patch(
            "keep",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"b": "2"}})),
        )
        .await
        .unwrap();
    assert_eq!(updated.data.as_ref().unwrap()["b"], "2");
    assert!(
        managed(&updated.metadata).is_empty(),
        "{:?}",
        updated.metadata.managed_fields
    );
    // ...an apply does, crediting what was there to `before-first-apply`.
    let applied = cms
        .patch(
            "keep",
            &PatchParams::apply("late"),
            &Patch::Apply(config_map("keep", json!({"c": "3"}))),
        )
        .await
        .unwrap();
    let got = managed(&applied.metadata);
    let before = entry(&got, "before-first-apply", "Update").expect("before-first-apply");
    assert_eq!(
        before["fieldsV1"]["f:data"],
        json!({".": {}, "f:a": {}, "f:b": {}}),
        "{got:?}"
    );
    assert_eq!(
        entry(&got, "late", "Apply").unwrap()["fieldsV1"]["f:data"],
        json!({"f:c": {}})
    );
    // Taking one of those fields is a conflict with that manager.
    let err = api_error(
        cms.patch(
            "keep",
            &PatchParams::apply("late"),
            &Patch::Apply(config_map("keep", json!({"a": "changed", "c": "3"}))),
        )
        .await,
    );
    assert_eq!(err.code, 409);
    assert!(
        err.message.contains("before-first-apply"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn requests_without_field_manager_are_unknown_updates() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    // kube::Client sends no User-Agent: the real server names the manager "unknown".
    let cm: ConfigMap = serde_json::from_value(config_map("anon", json!({"a": "1"}))).unwrap();
    let created = cms.create(&PostParams::default(), &cm).await.unwrap();
    let entries = managed(&created.metadata);
    let e = entry(&entries, "unknown", "Update").unwrap_or_else(|| panic!("{entries:?}"));
    assert_eq!(e["fieldsV1"], json!({"f:data": {".": {}, "f:a": {}}}));
}

#[tokio::test]
async fn builtin_lists_merge_by_their_keys() {
    use k8s_openapi::api::apps::v1::Deployment;
    let env = env().await;
    let deployments: Api<Deployment> = Api::namespaced(env.client(), env.namespace());
    let base = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "app", "image": "nginx:1.27",
                    "ports": [{"containerPort": 80}]}]}}}});
    deployments
        .patch("web", &PatchParams::apply("deployer"), &Patch::Apply(&base))
        .await
        .unwrap();
    let sidecar = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [
            {"name": "app", "env": [{"name": "MODE", "value": "on"}]}]}}}});
    let merged = deployments
        .patch(
            "web",
            &PatchParams::apply("injector"),
            &Patch::Apply(&sidecar),
        )
        .await
        .unwrap();
    let containers = merged.spec.unwrap().template.spec.unwrap().containers;
    assert_eq!(containers.len(), 1);
    assert_eq!(containers[0].image.as_deref(), Some("nginx:1.27"));
    assert_eq!(containers[0].env.as_ref().unwrap()[0].name, "MODE");
    let entries = managed(&merged.metadata);
    assert_eq!(
        entry(&entries, "injector", "Apply").unwrap()["fieldsV1"],
        json!({"f:spec": {"f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {
            ".": {}, "f:name": {},
            "f:env": {"k:{\"name\":\"MODE\"}": {".": {}, "f:name": {}, "f:value": {}}}}}}}}})
    );
    assert_eq!(
        entry(&entries, "deployer", "Apply").unwrap()["fieldsV1"]["f:spec"]["f:selector"],
        json!({}),
        "a label selector is owned as a whole"
    );
    let deployer = &entry(&entries, "deployer", "Apply").unwrap()["fieldsV1"];
    assert_eq!(
        deployer["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"app\"}"]["f:ports"],
        json!({"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}}}),
        "container ports are keyed by port and protocol (defaulted)"
    );
}

#[tokio::test]
async fn the_user_agent_names_the_default_manager() {
    let env = env().await;
    let body = config_map("ua", json!({"a": "1"}));
    let request = http::Request::post(format!("/api/v1/namespaces/{}/configmaps", env.namespace()))
        .header("Content-Type", "application/json")
        .header("User-Agent", "my-tool/1.2.3 (linux/amd64)")
        .body(serde_json::to_vec(&body).unwrap())
        .unwrap();
    let text = env.client().request_text(request).await.unwrap();
    let created: ConfigMap = serde_json::from_str(&text).unwrap();
    let entries = managed(&created.metadata);
    assert!(
        entry(&entries, "my-tool", "Update").is_some(),
        "{entries:?}"
    );
}

#[tokio::test]
async fn writes_own_only_what_their_endpoint_changes() {
    let env = env().await;
    let widgets: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let mut w = crate::common::widget("own", "red");
    w.status = Some(crate::common::WidgetStatus {
        ready: true,
        replicas: 2,
    });
    let post = PostParams {
        field_manager: Some("creator".into()),
        ..Default::default()
    };
    let created = widgets.create(&post, &w).await.unwrap();
    assert!(created.status.is_none(), "create resets status");
    let entries = managed(&created.metadata);
    let fields = &entry(&entries, "creator", "Update").unwrap()["fieldsV1"];
    assert!(fields.get("f:status").is_none(), "{fields}");
    assert_eq!(fields["f:spec"]["f:color"], json!({}));
    // A status update is recorded for the status subresource only.
    let mut with_status = created.clone();
    with_status.status = Some(crate::common::WidgetStatus {
        ready: true,
        replicas: 2,
    });
    let pp = PostParams {
        field_manager: Some("status-writer".into()),
        ..Default::default()
    };
    let updated = widgets
        .replace_status("own", &pp, &with_status)
        .await
        .unwrap();
    let entries = managed(&updated.metadata);
    let e = entry(&entries, "status-writer", "Update").unwrap_or_else(|| panic!("{entries:?}"));
    assert_eq!(e["subresource"], "status");
    assert_eq!(
        e["fieldsV1"],
        json!({"f:status": {".": {}, "f:ready": {}, "f:replicas": {}}})
    );
}

#[tokio::test]
async fn dry_run_apply_answers_without_storing() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    cms.patch(
        "dry",
        &PatchParams::apply("m"),
        &Patch::Apply(config_map("dry", json!({"a": "1"}))),
    )
    .await
    .unwrap();
    let params = PatchParams::apply("other").dry_run();
    let answered = cms
        .patch(
            "dry",
            &params,
            &Patch::Apply(config_map("dry", json!({"b": "2"}))),
        )
        .await
        .unwrap();
    assert_eq!(answered.data.unwrap()["b"], "2");
    assert!(entry(&managed(&answered.metadata), "other", "Apply").is_some());
    let stored = cms.get("dry").await.unwrap();
    assert!(!stored.data.unwrap().contains_key("b"));
    assert!(entry(&managed(&stored.metadata), "other", "Apply").is_none());
}
