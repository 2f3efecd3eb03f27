//! Status updates of built-in kinds go through each kind's status strategy: the spec (and for
//! some kinds part of the metadata) is kept from the stored object, and only the metadata and
//! the status are validated, with the status's own rules.

use k8s_openapi::api::apps::v1::{Deployment, StatefulSet};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
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
