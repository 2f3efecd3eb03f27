//! `policy`: PodDisruptionBudgets, their status (the disruption controller's), and
//! `pods/<name>/eviction` honouring them.

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::api::{Api, EvictParams, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::common::{api_error, env};
use crate::support::raw::{eventually, send};

fn pod(name: &str, app: &str) -> Pod {
    serde_json::from_value(json!({"metadata": {"name": name, "labels": {"app": app}},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}}))
    .unwrap()
}

async fn make_ready(pods: &Api<Pod>, name: &str) {
    let status = Patch::Merge(json!({"status": {"phase": "Running",
        "conditions": [{"type": "Ready", "status": "True"}]}}));
    pods.patch_status(name, &PatchParams::default(), &status)
        .await
        .unwrap();
}

#[tokio::test]
async fn eviction_honours_the_disruption_budget() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    let budgets: Api<PodDisruptionBudget> = Api::namespaced(client.clone(), ns);
    let pdb: PodDisruptionBudget = serde_json::from_value(json!({"metadata": {"name": "keep-one"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}))
    .unwrap();
    budgets.create(&PostParams::default(), &pdb).await.unwrap();
    pods.create(&PostParams::default(), &pod("web-0", "web"))
        .await
        .unwrap();
    make_ready(&pods, "web-0").await;
    let counted = eventually(20, || async {
        let status = budgets.get("keep-one").await.unwrap().status?;
        (status.current_healthy == 1 && status.observed_generation == Some(1)).then_some(status)
    })
    .await
    .expect("the budget's status counts the ready pod");
    assert_eq!(
        (
            counted.desired_healthy,
            counted.disruptions_allowed,
            counted.expected_pods
        ),
        (1, 0, 1)
    );
    let blocked = api_error(pods.evict("web-0", &EvictParams::default()).await);
    assert_eq!(blocked.code, 429);
    assert_eq!(
        blocked.message,
        "Cannot evict pod as it would violate the pod's disruption budget."
    );
    let raw = send(
        &client,
        "POST",
        &format!("/api/v1/namespaces/{ns}/pods/web-0/eviction"),
        "application/json",
        Some(json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web-0", "namespace": ns}})),
    )
    .await;
    assert_eq!(
        raw.1["details"]["causes"],
        json!([{"reason": "DisruptionBudget", "message": "The disruption budget keep-one needs 1 healthy pods and has 1 currently"}])
    );
    assert!(
        pods.get_opt("web-0").await.unwrap().is_some(),
        "not evicted"
    );

    // A second ready pod makes room for one eviction.
    pods.create(&PostParams::default(), &pod("web-1", "web"))
        .await
        .unwrap();
    make_ready(&pods, "web-1").await;
    let room = eventually(20, || async {
        let status = budgets.get("keep-one").await.unwrap().status?;
        (status.disruptions_allowed == 1).then_some(())
    })
    .await;
    assert!(room.is_some(), "two healthy pods allow one disruption");
    pods.evict("web-1", &EvictParams::default()).await.unwrap();
    let gone = eventually(20, || async {
        let pod = pods.get_opt("web-1").await.unwrap();
        pod.is_none_or(|p| p.metadata.deletion_timestamp.is_some())
            .then_some(())
    })
    .await;
    assert!(gone.is_some(), "the evicted pod is being deleted");
}

#[tokio::test]
async fn pods_that_are_not_running_are_evicted_at_once() {
    let env = env().await;
    let ns = env.namespace();
    let pods: Api<Pod> = Api::namespaced(env.client(), ns);
    let budgets: Api<PodDisruptionBudget> = Api::namespaced(env.client(), ns);
    let pdb: PodDisruptionBudget = serde_json::from_value(json!({"metadata": {"name": "strict"},
        "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"app": "pending"}}}}))
    .unwrap();
    budgets.create(&PostParams::default(), &pdb).await.unwrap();
    pods.create(&PostParams::default(), &pod("waiting", "pending"))
        .await
        .unwrap();
    pods.evict("waiting", &EvictParams::default())
        .await
        .unwrap();
    assert!(pods.get_opt("waiting").await.unwrap().is_none());
    let wrong = send(
        &env.client(),
        "POST",
        &format!("/api/v1/namespaces/{ns}/pods/other/eviction"),
        "application/json",
        Some(json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "else"}})),
    )
    .await;
    assert_eq!(
        (wrong.0, &wrong.1["message"]),
        (
            400,
            &json!("name in URL does not match name in Eviction object")
        )
    );
}
