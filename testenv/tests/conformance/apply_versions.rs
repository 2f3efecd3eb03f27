//! Server-side apply across versions: each manager's fields compared in the version its entry
//! was recorded in, through a conversion webhook (a CRD whose versions rename a field) and
//! through the built-in conversion of HorizontalPodAutoscalers.

use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kubeforge_testenv::TestEnv;
use serde_json::{Value, json};

use crate::apply::{entry, managed};
use crate::common::{api_error, env};

/// A Relay CRD served as `v1beta1` (`spec.host`) and `v1` (`spec.hostname`, the storage
/// version), converted by an in-test webhook that renames the field; None (after saying
/// why) on a real cluster that cannot reach this process.
async fn relay_env(
    tag: &str,
) -> Option<(
    TestEnv,
    crate::support::webhook_server::WebhookServer,
    String,
)> {
    use crate::support::webhook_server::{HOST_VAR, WebhookServer, webhook_host};
    let existing = std::env::var(kubeforge_testenv::MODE_VAR).is_ok_and(|m| m == "existing");
    if existing && std::env::var(HOST_VAR).is_err() {
        eprintln!(
            "skipping: the cluster must reach this process's conversion webhook; set {HOST_VAR} to an address of this machine it can reach"
        );
        return None;
    }
    let host = webhook_host();
    let hook = WebhookServer::start(&[host.as_str()], |_path, review: Value| async move {
        let request = &review["request"];
        let desired = request["desiredAPIVersion"].as_str().unwrap_or_default();
        let (from, to) = if desired.ends_with("/v1") {
            ("host", "hostname")
        } else {
            ("hostname", "host")
        };
        let objects: Vec<Value> = request["objects"]
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
        json!({"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": {
            "uid": request["uid"], "result": {"status": "Success"}, "convertedObjects": objects}})
    })
    .await;
    let group = format!("{tag}.apply.kubeforge.dev");
    let schema = |field: &str| {
        json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object",
            "properties": {field: {"type": "string"}, "port": {"type": "integer"}}},
            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}})
    };
    let crd = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("relays.{group}")},
        "spec": {"group": group, "scope": "Namespaced",
            "names": {"plural": "relays", "singular": "relay", "kind": "Relay"},
            "versions": [
                {"name": "v1beta1", "served": true, "storage": false, "schema": schema("host"),
                 "subresources": {"status": {}}},
                {"name": "v1", "served": true, "storage": true, "schema": schema("hostname"),
                 "subresources": {"status": {}}}],
            "conversion": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
                "clientConfig": hook.client_config("/convert")}}},
    }))
    .unwrap();
    let env = TestEnv::builder()
        .crd(crd)
        .start()
        .await
        .expect("test environment starts");
    Some((env, hook, group))
}

fn relays(env: &TestEnv, group: &str, version: &str) -> Api<DynamicObject> {
    let resource = kube::api::ApiResource {
        group: group.into(),
        version: version.into(),
        api_version: format!("{group}/{version}"),
        kind: "Relay".into(),
        plural: "relays".into(),
    };
    Api::namespaced_with(env.client(), env.namespace(), &resource)
}

/// An applied Relay in `version`.
fn relay(group: &str, version: &str, name: &str, spec: Value) -> Patch<Value> {
    Patch::Apply(
        json!({"apiVersion": format!("{group}/{version}"), "kind": "Relay",
        "metadata": {"name": name}, "spec": spec}),
    )
}

#[tokio::test]
async fn managers_of_other_versions_are_compared_in_their_version() {
    let Some((env, _hook, group)) = relay_env("versions").await else {
        return;
    };
    let (beta, v1) = (relays(&env, &group, "v1beta1"), relays(&env, &group, "v1"));
    let as_manager = |m: &str| PatchParams::apply(m);
    beta.patch(
        "r",
        &as_manager("beta"),
        &relay(&group, "v1beta1", "r", json!({"host": "a", "port": 1})),
    )
    .await
    .unwrap();
    // `hostname` in v1 is beta's `host`: a conflict named as beta's version has it.
    let e = api_error(
        v1.patch(
            "r",
            &as_manager("one"),
            &relay(&group, "v1", "r", json!({"hostname": "b"})),
        )
        .await,
    );
    assert_eq!(e.code, 409, "{e:?}");
    assert_eq!(
        e.message,
        "Apply failed with 1 conflict: conflict with \"beta\": .spec.host"
    );
    // The same value is shared; beta then stops applying `host`, which `same` owns (as
    // `hostname`): it stays.
    v1.patch(
        "r",
        &as_manager("same"),
        &relay(&group, "v1", "r", json!({"hostname": "a"})),
    )
    .await
    .unwrap();
    beta.patch(
        "r",
        &as_manager("beta"),
        &relay(&group, "v1beta1", "r", json!({"port": 1})),
    )
    .await
    .unwrap();
    let read = v1.get("r").await.unwrap();
    assert_eq!(read.data["spec"], json!({"hostname": "a", "port": 1}));
    // Forced, `one` takes the field; a merge patch of the storage version takes beta's port.
    v1.patch(
        "r",
        &as_manager("one").force(),
        &relay(&group, "v1", "r", json!({"hostname": "b"})),
    )
    .await
    .unwrap();
    let merged = v1
        .patch(
            "r",
            &PatchParams {
                field_manager: Some("merger".into()),
                ..PatchParams::default()
            },
            &Patch::Merge(json!({"spec": {"port": 2}})),
        )
        .await
        .unwrap();
    let entries = managed(&merged.metadata);
    assert!(entry(&entries, "beta", "Apply").is_none(), "{entries:?}");
    assert!(entry(&entries, "same", "Apply").is_none(), "{entries:?}");
    // `one` applies in v1beta1 without the field it applied in v1: pruned as v1 has it.
    let pruned = beta
        .patch(
            "r",
            &as_manager("one"),
            &relay(&group, "v1beta1", "r", json!({"port": 2})),
        )
        .await
        .unwrap();
    assert_eq!(pruned.data["spec"], json!({"port": 2}));
    // A status apply in the other version is recorded there, for the status subresource.
    let status = Patch::Apply(
        json!({"apiVersion": format!("{group}/v1beta1"), "kind": "Relay",
        "metadata": {"name": "r"}, "status": {"ready": true}}),
    );
    let applied = beta
        .patch_status("r", &as_manager("status"), &status)
        .await
        .unwrap();
    assert_eq!(applied.data["status"], json!({"ready": true}));
    let entries = managed(&applied.metadata);
    let recorded = entry(&entries, "status", "Apply").expect("an Apply entry");
    assert_eq!(recorded["apiVersion"], json!(format!("{group}/v1beta1")));
    assert_eq!(recorded["subresource"], "status");
}

#[tokio::test]
async fn autoscaler_managers_are_compared_in_their_version() {
    let env = env().await;
    let api = |version: &str| {
        let resource = kube::api::ApiResource {
            group: "autoscaling".into(),
            version: version.into(),
            api_version: format!("autoscaling/{version}"),
            kind: "HorizontalPodAutoscaler".into(),
            plural: "horizontalpodautoscalers".into(),
        };
        Api::<DynamicObject>::namespaced_with(env.client(), env.namespace(), &resource)
    };
    let (v1, v2) = (api("v1"), api("v2"));
    let target = json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"});
    let hpa = |version: &str, spec: Value| {
        Patch::Apply(json!({"apiVersion": format!("autoscaling/{version}"),
            "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"}, "spec": spec}))
    };
    v1.patch(
        "h",
        &PatchParams::apply("old"),
        &hpa(
            "v1",
            json!({"scaleTargetRef": target, "maxReplicas": 3, "targetCPUUtilizationPercentage": 50}),
        ),
    )
    .await
    .unwrap();
    let cpu = json!([{"type": "Resource", "resource": {"name": "cpu",
        "target": {"type": "Utilization", "averageUtilization": 60}}}]);
    let v2_config = hpa(
        "v2",
        json!({"scaleTargetRef": target, "maxReplicas": 3, "metrics": cpu}),
    );
    let e = api_error(v2.patch("h", &PatchParams::apply("new"), &v2_config).await);
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            409,
            "Apply failed with 1 conflict: conflict with \"old\": .spec.targetCPUUtilizationPercentage"
        )
    );
    v2.patch("h", &PatchParams::apply("new").force(), &v2_config)
        .await
        .unwrap();
    // A v1 update of the CPU target takes the metrics from the v2 manager.
    let updated = v1
        .patch(
            "h",
            &PatchParams {
                field_manager: Some("v1merger".into()),
                ..PatchParams::default()
            },
            &Patch::Merge(json!({"spec": {"targetCPUUtilizationPercentage": 80}})),
        )
        .await
        .unwrap();
    let entries = managed(&updated.metadata);
    let new = entry(&entries, "new", "Apply").expect("new keeps an entry");
    assert!(
        new["fieldsV1"]["f:spec"].get("f:metrics").is_none(),
        "{new}"
    );
    let old = entry(&entries, "old", "Apply").expect("old keeps an entry");
    assert!(
        old["fieldsV1"]["f:spec"]
            .get("f:targetCPUUtilizationPercentage")
            .is_none(),
        "{old}"
    );
}

/// The built-in `kind` (`plural`) in `group`/`version`.
fn builtin_api(
    env: &TestEnv,
    group: &str,
    version: &str,
    kind: &str,
    plural: &str,
) -> Api<DynamicObject> {
    let api_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    let resource = kube::api::ApiResource {
        group: group.into(),
        version: version.into(),
        api_version,
        kind: kind.into(),
        plural: plural.into(),
    };
    Api::namespaced_with(env.client(), env.namespace(), &resource)
}

fn managers_of(object: &DynamicObject) -> Vec<String> {
    let mut out: Vec<String> = managed(&object.metadata)
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["manager"].as_str().unwrap_or_default(),
                e["apiVersion"].as_str().unwrap_or_default()
            )
        })
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn managers_of_another_group_or_an_unserved_version_are_dropped() {
    let env = env().await;
    let ns = env.namespace().to_string();
    let core = builtin_api(&env, "", "v1", "Event", "events");
    let events = builtin_api(&env, "events.k8s.io", "v1", "Event", "events");
    let created = core
        .patch(
            "e1",
            &PatchParams::apply("core"),
            &Patch::Apply(
                json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1"},
                "message": "m1", "reason": "R",
                "involvedObject": {"kind": "Pod", "name": "p", "namespace": ns}}),
            ),
        )
        .await
        .unwrap();
    assert_eq!(managers_of(&created), ["core v1"]);
    // The same Events through the other group: the converter cannot reach the other
    // group's version, and the entry is dropped, by an apply as by an update.
    let applied = events
        .patch(
            "e1",
            &PatchParams::apply("ev"),
            &Patch::Apply(json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
                "metadata": {"name": "e1", "labels": {"x": "1"}}, "note": "m1"})),
        )
        .await
        .unwrap();
    assert_eq!(managers_of(&applied), ["ev events.k8s.io/v1"]);
    let merged = core
        .patch(
            "e1",
            &PatchParams {
                field_manager: Some("coremerge".into()),
                ..PatchParams::default()
            },
            &Patch::Merge(json!({"message": "m3"})),
        )
        .await
        .unwrap();
    assert_eq!(managers_of(&merged), ["coremerge v1"]);
    // Entries of versions a kind is not served in, sent in a PUT, are dropped.
    let autoscalers = builtin_api(
        &env,
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
    );
    let spec = json!({"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 3});
    let hpa: DynamicObject = serde_json::from_value(json!({"apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"}, "spec": spec}))
    .unwrap();
    let hpa = autoscalers.create(&Default::default(), &hpa).await.unwrap();
    let entry = |manager: &str, version: &str| {
        json!({"manager": manager, "operation": "Update", "apiVersion": version,
            "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:maxReplicas": {}}}})
    };
    let mut replaced = serde_json::to_value(&hpa).unwrap();
    replaced["metadata"]["managedFields"] = json!([
        entry("b2", "autoscaling/v2beta2"),
        entry("ext", "extensions/v1beta1"),
        entry("one", "autoscaling/v1")
    ]);
    let replaced = autoscalers
        .replace(
            "h",
            &Default::default(),
            &serde_json::from_value(replaced).unwrap(),
        )
        .await
        .unwrap();
    let entries = managed(&replaced.metadata);
    assert!(entry_named(&entries, "b2").is_none(), "{entries:?}");
    assert!(entry_named(&entries, "ext").is_none(), "{entries:?}");
    assert!(entry_named(&entries, "one").is_some(), "{entries:?}");
}

fn entry_named<'a>(entries: &'a [Value], manager: &str) -> Option<&'a Value> {
    entries.iter().find(|e| e["manager"] == manager)
}

/// Repeats `call` (a CRD change reaches a real server's handlers a moment later) until it
/// answers an error with `code`.
async fn until_code<T: std::fmt::Debug, F, Fut>(code: u16, mut call: F) -> kube::core::Status
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, kube::Error>>,
{
    let mut last = None;
    for _ in 0..150 {
        match call().await {
            Err(kube::Error::Api(s)) if s.code == code => return *s,
            other => last = Some(format!("{other:?}")),
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    panic!("never answered {code}: {last:?}");
}

#[tokio::test]
async fn managers_of_a_version_the_crd_no_longer_lists_fail_an_apply() {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    let group = "unlisted.apply.kubeforge.dev";
    let schema = json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}}}});
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("gadgets.{group}")},
        "spec": {"group": group, "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [
                {"name": "v1", "served": true, "storage": false, "schema": schema},
                {"name": "v2", "served": true, "storage": true, "schema": schema}]},
    }))
    .unwrap();
    let env = TestEnv::builder()
        .crd(crd)
        .start()
        .await
        .expect("test environment starts");
    let api = |version: &str| {
        let resource = kube::api::ApiResource {
            group: group.into(),
            version: version.into(),
            api_version: format!("{group}/{version}"),
            kind: "Gadget".into(),
            plural: "gadgets".into(),
        };
        Api::<DynamicObject>::namespaced_with(env.client(), env.namespace(), &resource)
    };
    let gadget = |version: &str, spec: Value| {
        Patch::Apply(
            json!({"apiVersion": format!("{group}/{version}"), "kind": "Gadget",
            "metadata": {"name": "g"}, "spec": spec}),
        )
    };
    let (v1, v2) = (api("v1"), api("v2"));
    v1.patch(
        "g",
        &PatchParams::apply("old"),
        &gadget("v1", json!({"a": "1"})),
    )
    .await
    .unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let name = format!("gadgets.{group}");
    let json_patch = |ops: Value| Patch::<()>::Json(serde_json::from_value(ops).unwrap());
    crds.patch(
        &name,
        &PatchParams::default(),
        &json_patch(json!([
        {"op": "replace", "path": "/spec/versions/0/served", "value": false}])),
    )
    .await
    .unwrap();
    until_code(404, || v1.get("g")).await;
    // No longer served but still listed: the entry is compared in its version.
    let e = api_error(
        v2.patch(
            "g",
            &PatchParams::apply("new"),
            &gadget("v2", json!({"a": "2"})),
        )
        .await,
    );
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            409,
            "Apply failed with 1 conflict: conflict with \"old\": .spec.a"
        )
    );
    // No longer listed: the converter refuses the version.
    crds.patch(
        &name,
        &PatchParams::default(),
        &json_patch(json!([
        {"op": "remove", "path": "/spec/versions/0"}])),
    )
    .await
    .unwrap();
    let (params, config) = (PatchParams::apply("new"), gadget("v2", json!({"a": "2"})));
    let e = until_code(500, || v2.patch("g", &params, &config)).await;
    assert_eq!(
        e.message,
        format!("request to convert CR to an invalid group/version: {group}/v1")
    );
    // An update is stored without any managedFields; the next apply meets
    // `before-first-apply`.
    let merged = v2
        .patch(
            "g",
            &PatchParams {
                field_manager: Some("merger".into()),
                ..PatchParams::default()
            },
            &Patch::Merge(json!({"spec": {"b": "3"}})),
        )
        .await
        .unwrap();
    assert_eq!(merged.metadata.managed_fields, None);
    let e = api_error(
        v2.patch(
            "g",
            &PatchParams::apply("new"),
            &gadget("v2", json!({"a": "2"})),
        )
        .await,
    );
    assert_eq!(
        (e.code, e.message),
        (
            409,
            format!(
                "Apply failed with 1 conflict: conflict with \"before-first-apply\" using {group}/v2: .spec.a"
            )
        )
    );
}
