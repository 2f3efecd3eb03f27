//! Status updates of built-in kinds go through each kind's status strategy: the spec (and for
//! some kinds part of the metadata) is kept from the stored object, and only the metadata and
//! the status are validated, with the status's own rules.

use k8s_openapi::api::apps::v1::{Deployment, StatefulSet};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams,
};
use serde_json::json;

use crate::common::{api_error, env};

/// The field of each cause of a refused write.
fn fields(status: &kube::core::Status) -> Vec<String> {
    status
        .details
        .iter()
        .flat_map(|d| &d.causes)
        .map(|c| c.field.clone())
        .collect()
}

/// The API of `kind` in `group`/`version` (`plural`), in `namespace` or cluster-wide.
fn dynamic(
    env: &kubeforge_testenv::TestEnv,
    (group, version, kind, plural): (&str, &str, &str, &str),
    namespace: Option<&str>,
) -> Api<DynamicObject> {
    let resource =
        ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural);
    match namespace {
        Some(ns) => Api::namespaced_with(env.client(), ns, &resource),
        None => Api::all_with(env.client(), &resource),
    }
}

/// A dynamic object from its JSON.
fn object(value: serde_json::Value) -> DynamicObject {
    serde_json::from_value(value).unwrap()
}

#[tokio::test]
async fn a_crd_status_update_keeps_its_spec_and_checks_its_accepted_names() {
    let env = env().await;
    let crds = dynamic(
        &env,
        (
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
            "customresourcedefinitions",
        ),
        None,
    );
    let group = format!("{}.status.kubeforge.dev", env.namespace());
    let name = format!("gizmos.{group}");
    crds.create(
        &PostParams::default(),
        &object(json!({"apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition", "metadata": {"name": name},
            "spec": {"group": group, "scope": "Namespaced",
                "names": {"plural": "gizmos", "kind": "Gizmo"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object"}}}]}})),
    )
    .await
    .unwrap();
    let refused = api_error(
        crds.patch_status(
            &name,
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"bad key!": "v"}},
                "status": {"acceptedNames": {"plural": "Bad_P", "kind": "Gizmo", "listKind": "Gizmo"},
                    "storedVersions": ["v9"]}})),
        )
        .await,
    );
    assert_eq!(refused.code, 422);
    assert_eq!(
        fields(&refused),
        [
            "metadata.labels",
            "metadata.labels",
            "metadata.labels",
            "status.acceptedNames.plural",
            "status.acceptedNames.listKind"
        ]
    );
    let written = crds
        .patch_status(
            &name,
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"l": "v"}},
                "spec": {"scope": "Cluster"}})),
        )
        .await
        .unwrap();
    assert_eq!(
        written.metadata.labels.unwrap_or_default().get("l"),
        Some(&"v".to_string())
    );
    assert_eq!(written.data["spec"]["scope"], "Namespaced");
    crds.delete(&name, &DeleteParams::default()).await.unwrap();
}

#[tokio::test]
async fn a_resource_claim_status_update_checks_consumers_devices_and_its_allocation() {
    let env = env().await;
    let ns = env.namespace().to_string();
    let classes = dynamic(
        &env,
        ("resource.k8s.io", "v1", "DeviceClass", "deviceclasses"),
        None,
    );
    let class = format!("{ns}-status");
    classes
        .create(
            &PostParams::default(),
            &object(
                json!({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                "metadata": {"name": class}, "spec": {}}),
            ),
        )
        .await
        .unwrap();
    let claims = dynamic(
        &env,
        ("resource.k8s.io", "v1", "ResourceClaim", "resourceclaims"),
        Some(&ns),
    );
    claims
        .create(
            &PostParams::default(),
            &object(json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": {"name": "st"},
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": class}}]}}})),
        )
        .await
        .unwrap();
    let refused = api_error(
        claims
            .patch_status(
                "st",
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"labels": {"bad key!": "v"}},
                    "status": {"reservedFor": [{"resource": "pods", "name": "p", "uid": "u1"}, {"uid": "u1"}],
                        "devices": [{"driver": "d.example.com", "pool": "p", "device": "d"}]}})),
            )
            .await,
    );
    assert_eq!(refused.code, 422);
    assert_eq!(
        fields(&refused),
        [
            "status.reservedFor[1].resource",
            "status.reservedFor[1].name",
            "status.reservedFor[1].uid",
            "status.devices[0]",
            "status.reservedFor"
        ]
    );
    let allocation = json!({"devices": {"results": [
        {"request": "gpu", "driver": "d.example.com", "pool": "p", "device": "d", "shareID": "s"}]}});
    let written = claims
        .patch_status(
            "st",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"l": "v"}},
                "status": {"allocation": allocation,
                    "devices": [{"driver": "d.example.com", "pool": "p", "device": "d", "data": {"a": 1}}]}})),
        )
        .await
        .unwrap();
    assert!(written.metadata.labels.unwrap_or_default().is_empty());
    let result = &written.data["status"]["allocation"]["devices"]["results"][0];
    assert_eq!(result["device"], "d");
    assert!(result.get("shareID").is_none());
    assert_eq!(
        written.data["status"]["devices"][0]["data"],
        json!({"a": 1})
    );
    let changed = api_error(
        claims
            .patch_status(
                "st",
                &PatchParams::default(),
                &Patch::Merge(json!({"status": {"allocation": {"devices": {"results": [
                    {"request": "gpu", "driver": "d.example.com", "pool": "p", "device": "z"}]}}}})),
            )
            .await,
    );
    assert_eq!(fields(&changed), ["status.allocation"]);
    assert!(
        changed.message.contains(r#""Device":"z""#)
            && changed.message.contains("field is immutable"),
        "{}",
        changed.message
    );
    claims.delete("st", &DeleteParams::default()).await.unwrap();
    classes
        .delete(&class, &DeleteParams::default())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_claims_status_writer_owns_the_labels_it_sent_though_the_claim_keeps_none() {
    let env = env().await;
    let ns = env.namespace().to_string();
    let claims = dynamic(
        &env,
        ("resource.k8s.io", "v1", "ResourceClaim", "resourceclaims"),
        Some(&ns),
    );
    claims
        .create(
            &PostParams::default(),
            &object(json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": {"name": "owned"},
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "c"}}]}}})),
        )
        .await
        .unwrap();
    // kube-apiserver's field manager runs before the status strategy resets the metadata.
    let written = claims
        .patch_status(
            "owned",
            &PatchParams {
                field_manager: Some("driver".into()),
                ..PatchParams::default()
            },
            &Patch::Merge(json!({"metadata": {"labels": {"l": "v"}}})),
        )
        .await
        .unwrap();
    assert!(written.metadata.labels.unwrap_or_default().is_empty());
    let managers = written.metadata.managed_fields.unwrap_or_default();
    let driver = managers
        .iter()
        .find(|m| m.manager.as_deref() == Some("driver"))
        .expect("the status writer is a manager");
    assert_eq!(driver.subresource.as_deref(), Some("status"));
    assert_eq!(
        driver.fields_v1.as_ref().map(|f| f.0.clone()),
        Some(json!({"f:metadata": {"f:labels": {".": {}, "f:l": {}}}}))
    );
    // So another applier's labels conflict with it.
    let conflict = api_error(
        claims
            .patch_status(
                "owned",
                &PatchParams::apply("other"),
                &Patch::Apply(
                    json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                    "metadata": {"name": "owned", "labels": {"m": "w"}}}),
                ),
            )
            .await,
    );
    assert_eq!(conflict.code, 409);
    assert!(
        conflict
            .message
            .contains(r#"conflict with "driver" with subresource "status""#)
            && conflict.message.ends_with(".metadata.labels"),
        "{}",
        conflict.message
    );
    claims
        .delete("owned", &DeleteParams::default())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_deployment_status_update_keeps_spec_and_labels_and_checks_its_counts() {
    let env = env().await;
    let deployments: Api<Deployment> = Api::namespaced(env.client(), env.namespace());
    let d: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "st", "labels": {"a": "1"}},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "st"}},
            "template": {"metadata": {"labels": {"app": "st"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}},
    }))
    .unwrap();
    deployments
        .create(&PostParams::default(), &d)
        .await
        .unwrap();
    let written = deployments
        .patch_status(
            "st",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"b": "2"}, "annotations": {"x": "y"}},
                "spec": {"replicas": 5},
                "status": {"replicas": 3, "readyReplicas": 2, "availableReplicas": 2, "collisionCount": 3}})),
        )
        .await
        .unwrap();
    let labels = written.metadata.labels.unwrap_or_default();
    assert_eq!(labels.get("a").map(String::as_str), Some("1"));
    assert!(!labels.contains_key("b"));
    assert_eq!(
        written.metadata.annotations.unwrap_or_default().get("x"),
        Some(&"y".to_string())
    );
    assert_eq!(written.spec.unwrap().replicas, Some(0));
    let status = written.status.unwrap();
    assert_eq!(
        (status.replicas, status.collision_count),
        (Some(3), Some(3))
    );

    let refused = api_error(
        deployments
            .patch_status(
                "st",
                &PatchParams::default(),
                &Patch::Merge(json!({"status": {"replicas": 1, "updatedReplicas": 0, "readyReplicas": 2, "availableReplicas": 2, "collisionCount": 1}})),
            )
            .await,
    );
    assert_eq!(refused.code, 422);
    assert_eq!(
        fields(&refused),
        [
            "status.readyReplicas",
            "status.availableReplicas",
            "status.collisionCount"
        ]
    );
    assert!(
        refused.message.contains("cannot be decremented"),
        "{}",
        refused.message
    );
    deployments
        .delete("st", &DeleteParams::default())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_stateful_set_status_update_checks_its_metadata_after_its_status() {
    let env = env().await;
    let sets: Api<StatefulSet> = Api::namespaced(env.client(), env.namespace());
    let s: StatefulSet = serde_json::from_value(json!({
        "metadata": {"name": "st"},
        "spec": {"replicas": 0, "serviceName": "x", "selector": {"matchLabels": {"app": "st"}},
            "template": {"metadata": {"labels": {"app": "st"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}},
    }))
    .unwrap();
    sets.create(&PostParams::default(), &s).await.unwrap();
    let refused = api_error(
        sets.patch_status(
            "st",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"bad key!": "v"}},
                "status": {"replicas": -1}})),
        )
        .await,
    );
    assert_eq!(refused.code, 422);
    let got = fields(&refused);
    assert_eq!(
        got[..3],
        ["metadata.labels", "metadata.labels", "status.replicas"]
    );
    assert_eq!(got.last().map(String::as_str), Some("metadata.labels"));
    sets.delete("st", &DeleteParams::default()).await.unwrap();
}

#[tokio::test]
async fn a_job_status_update_keeps_its_counters_and_terminal_conditions_consistent() {
    let env = env().await;
    let jobs: Api<Job> = Api::namespaced(env.client(), env.namespace());
    let j: Job = serde_json::from_value(json!({
        "metadata": {"name": "st"},
        // Managed elsewhere: no job controller writes its status meanwhile.
        "spec": {"managedBy": "example.com/elsewhere", "suspend": true, "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}},
    }))
    .unwrap();
    jobs.create(&PostParams::default(), &j).await.unwrap();
    jobs.patch_status(
        "st",
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"active": 1, "failed": 2}})),
    )
    .await
    .unwrap();
    let refused = api_error(
        jobs.patch_status(
            "st",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"failed": 1,
                "conditions": [{"type": "Complete", "status": "True"}]}})),
        )
        .await,
    );
    assert_eq!(refused.code, 422);
    assert_eq!(
        fields(&refused),
        [
            "status.completionTime",
            "status.conditions",
            "status.active",
            "status.startTime",
            "status.failed"
        ]
    );
    jobs.delete("st", &DeleteParams::background())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_namespace_status_update_keeps_its_phase_active() {
    let env = env().await;
    let namespaces: Api<Namespace> = Api::all(env.client());
    let name = format!("{}-phase", env.namespace());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    namespaces
        .create(&PostParams::default(), &ns)
        .await
        .unwrap();
    let refused = api_error(
        namespaces
            .patch_status(
                &name,
                &PatchParams::default(),
                &Patch::Merge(json!({"status": {"phase": "Terminating"}})),
            )
            .await,
    );
    assert_eq!(refused.code, 422);
    assert_eq!(fields(&refused), ["status.Phase"]);
    let kept = namespaces
        .patch_status(
            &name,
            &PatchParams::default(),
            &Patch::Merge(
                json!({"spec": {"finalizers": ["example.com/x"]}, "status": {"phase": "Active"}}),
            ),
        )
        .await
        .unwrap();
    assert_eq!(
        kept.spec.and_then(|s| s.finalizers),
        Some(vec!["kubernetes".to_string()])
    );
    namespaces
        .delete(&name, &DeleteParams::default())
        .await
        .unwrap();
}

/// A CRD of `group` named by `plural`, `kind` and `short` names (its list kind named after
/// its plural, so that only its kind can be another's).
fn names_crd(group: &str, plural: &str, kind: &str, short: &[&str]) -> serde_json::Value {
    let list_kind = format!("{}{}List", plural[..1].to_uppercase(), &plural[1..]);
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {"group": group, "scope": "Namespaced",
            "names": {"plural": plural, "singular": "gizmo", "kind": kind,
                "listKind": list_kind, "shortNames": short},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object"}}}]}})
}

/// The reason of a CRD's condition of `type_`.
fn crd_condition(crd: &serde_json::Value, type_: &str) -> (String, String, String) {
    let found = crd["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == type_)
        .cloned()
        .unwrap_or_default();
    let text = |f: &str| found[f].as_str().unwrap_or_default().to_string();
    (text("status"), text("reason"), text("message"))
}

#[tokio::test]
async fn the_naming_controller_sets_a_crds_accepted_names_back_and_refuses_names_in_use() {
    use crate::support::raw::{client, eventually, send};
    let env = env().await;
    let client = client(&env).await;
    let group = format!("names.{}.example.com", env.namespace());
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let gizmos = format!("{crds}/gizmos.{group}");
    let (code, body) = send(
        &client,
        "POST",
        crds,
        "application/json",
        Some(names_crd(&group, "gizmos", "Gizmo", &["gz"])),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let get = |path: String| {
        let client = client.clone();
        async move { send(&client, "GET", &path, "", None).await.1 }
    };
    let established = |path: String| async move {
        let crd = get(path).await;
        (crd_condition(&crd, "Established").0 == "True").then_some(crd)
    };
    eventually(30, || established(gizmos.clone()))
        .await
        .expect("established");
    // Accepted names that claim the spec's own plural as a short name: the controller first
    // refuses the plural (in use), then, the short name let go, accepts it.
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{gizmos}/status"),
        "application/merge-patch+json",
        Some(
            json!({"status": {"acceptedNames": {"plural": "others", "kind": "Other",
            "shortNames": ["gizmos", "gz"]}}}),
        ),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["status"]["acceptedNames"]["plural"], "others");
    let reset = eventually(30, || {
        let path = gizmos.clone();
        async move {
            let crd = get(path).await;
            (crd["status"]["acceptedNames"]["kind"] == "Gizmo"
                && crd["status"]["acceptedNames"]["plural"] == "gizmos")
                .then_some(crd)
        }
    })
    .await
    .expect("the accepted names set back");
    assert_eq!(
        reset["status"]["acceptedNames"]["shortNames"],
        json!(["gz"])
    );
    assert_eq!(
        crd_condition(&reset, "NamesAccepted"),
        (
            "True".into(),
            "NoConflicts".into(),
            "no conflicts found".into()
        )
    );
    // Established set to false while the names are accepted: established again.
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{gizmos}/status"),
        "application/json-patch+json",
        Some(json!([{"op": "replace", "path": "/status/conditions/1",
            "value": {"type": "Established", "status": "False", "reason": "Mine",
                "message": "mine", "lastTransitionTime": "2020-01-01T00:00:00Z"}}])),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let again = eventually(30, || established(gizmos.clone()))
        .await
        .expect("established again");
    assert_eq!(
        crd_condition(&again, "Established"),
        (
            "True".into(),
            "InitialNamesAccepted".into(),
            "the initial names have been accepted".into()
        )
    );
    // A second CRD of the group asking for the first's kind and short name.
    let widgets = format!("{crds}/widgets.{group}");
    let (code, body) = send(
        &client,
        "POST",
        crds,
        "application/json",
        Some(names_crd(&group, "widgets", "Gizmo", &["gz", "wd"])),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let refused = eventually(30, || {
        let path = widgets.clone();
        async move {
            let crd = get(path).await;
            (crd_condition(&crd, "NamesAccepted").0 == "False").then_some(crd)
        }
    })
    .await
    .expect("names refused");
    assert_eq!(
        crd_condition(&refused, "NamesAccepted"),
        (
            "False".into(),
            "KindConflict".into(),
            "\"Gizmo\" is already in use".into()
        )
    );
    assert_eq!(
        crd_condition(&refused, "Established"),
        (
            "False".into(),
            "NotAccepted".into(),
            "not all names are accepted".into()
        )
    );
    assert_eq!(refused["status"]["acceptedNames"]["plural"], "widgets");
    assert_eq!(refused["status"]["acceptedNames"]["kind"], "");
    // The first gone, its names are free: the second is accepted and established.
    let (code, body) = send(&client, "DELETE", &gizmos, "", None).await;
    assert_eq!(code, 200, "{body}");
    let taken = eventually(60, || established(widgets.clone()))
        .await
        .expect("the second established once the first is gone");
    assert_eq!(taken["status"]["acceptedNames"]["kind"], "Gizmo");
    assert_eq!(
        taken["status"]["acceptedNames"]["shortNames"],
        json!(["gz", "wd"])
    );
    let (code, body) = send(&client, "DELETE", &widgets, "", None).await;
    assert_eq!(code, 200, "{body}");
}
