//! `autoscaling`: HorizontalPodAutoscalers served in v1 and v2 from one storage (v2), the
//! v1 CPU target being v2's CPU utilization metric and v2's other metrics travelling in v1's
//! annotations.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{client, send};

fn hpa(api_version: &str, name: &str, spec: Value) -> Value {
    let mut spec = spec;
    spec["scaleTargetRef"] = json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"});
    spec["maxReplicas"] = json!(5);
    json!({"apiVersion": api_version, "kind": "HorizontalPodAutoscaler", "metadata": {"name": name}, "spec": spec})
}

#[tokio::test]
async fn v1_and_v2_are_one_object() {
    let env = env().await;
    let ns = env.namespace();
    let client = client(&env).await;
    let v1 = format!("/apis/autoscaling/v1/namespaces/{ns}/horizontalpodautoscalers");
    let v2 = format!("/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers");
    let (code, created) = send(
        &client,
        "POST",
        &v1,
        "application/json",
        Some(hpa(
            "autoscaling/v1",
            "cpu",
            json!({"targetCPUUtilizationPercentage": 60}),
        )),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["spec"]["minReplicas"], 1);
    assert_eq!(created["spec"]["targetCPUUtilizationPercentage"], 60);
    let (_, as_v2) = send(&client, "GET", &format!("{v2}/cpu"), "", None).await;
    assert_eq!(as_v2["apiVersion"], "autoscaling/v2");
    assert_eq!(
        as_v2["spec"]["metrics"],
        json!([{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}])
    );
    let (_, defaulted) = send(
        &client,
        "POST",
        &v1,
        "application/json",
        Some(hpa("autoscaling/v1", "plain", json!({}))),
    )
    .await;
    assert_eq!(defaulted["spec"]["targetCPUUtilizationPercentage"], 80);

    let metrics = json!([
        {"type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 70}}},
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]);
    let (code, _) = send(
        &client,
        "POST",
        &v2,
        "application/json",
        Some(hpa("autoscaling/v2", "mixed", json!({"metrics": metrics}))),
    )
    .await;
    assert_eq!(code, 201);
    let (_, as_v1) = send(&client, "GET", &format!("{v1}/mixed"), "", None).await;
    assert_eq!(as_v1["spec"]["targetCPUUtilizationPercentage"], 50);
    let others: Value = serde_json::from_str(
        as_v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/metrics"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        others,
        json!([{"type": "Resource", "resource": {"name": "memory", "targetAverageUtilization": 70}}])
    );
    // Written back through v1, the v2 metrics are what they were.
    let (code, _) = send(
        &client,
        "PUT",
        &format!("{v1}/mixed"),
        "application/json",
        Some(as_v1),
    )
    .await;
    assert_eq!(code, 200);
    let (_, again) = send(&client, "GET", &format!("{v2}/mixed"), "", None).await;
    assert_eq!(again["spec"]["metrics"], metrics);
}
