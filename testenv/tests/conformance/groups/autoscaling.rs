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

#[tokio::test]
async fn autoscaler_metrics_and_behavior_are_validated() {
    let env = env().await;
    let client = client(&env).await;
    let path = format!(
        "/apis/autoscaling/v2/namespaces/{}/horizontalpodautoscalers?dryRun=All",
        env.namespace()
    );
    let hpa = |extra: Value| {
        let mut spec = json!({"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
            "name": "d"}, "maxReplicas": 3});
        for (k, v) in extra.as_object().into_iter().flatten() {
            spec[k] = v.clone();
        }
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "checked"}, "spec": spec})
    };
    let body = hpa(
        json!({"behavior": {"scaleUp": {"policies": []}, "scaleDown": {
        "stabilizationWindowSeconds": -1, "selectPolicy": "",
        "policies": [{"type": "Bogus", "value": -1, "periodSeconds": 0},
            {"type": "Pods", "value": 1, "periodSeconds": 1801}]}}}),
    );
    let (code, body) = send(&client, "POST", &path, "application/json", Some(body)).await;
    assert_eq!(code, 422, "{body}");
    let down = "spec.behavior.scaleDown";
    assert_eq!(
        crate::support::raw::causes(&body),
        [
            "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy"
                .to_string(),
            format!(
                "{down}.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero"
            ),
            format!(
                "{down}.selectPolicy: Unsupported value: \"\": supported values: \"Disabled\", \"Max\", \"Min\""
            ),
            format!(
                "{down}.policies[0].type: Unsupported value: \"Bogus\": supported values: \"Percent\", \"Pods\""
            ),
            format!("{down}.policies[0].value: Invalid value: -1: must be greater than zero"),
            format!(
                "{down}.policies[0].periodSeconds: Invalid value: 0: must be greater than zero"
            ),
            format!(
                "{down}.policies[1].periodSeconds: Invalid value: 1801: must be less than or equal to 1800"
            ),
        ]
    );
    let body = hpa(json!({"metrics": [
        {"type": "External", "external": {"metric": {"name": "e"},
            "target": {"type": "Value", "value": "1", "averageValue": "2"}},
            "pods": {"metric": {"name": "m"}, "target": {"type": "AverageValue", "averageValue": "1"}}},
        {"type": "Resource", "resource": {"name": "", "target": {"type": "Utilization",
            "averageUtilization": 0, "averageValue": "-1.5"}}},
        {"type": "Object", "object": {"describedObject": {"kind": "", "name": "a%b"},
            "metric": {"name": "x/y"}, "target": {"type": "Bad"}}},
        {"type": "Bogus"}]}));
    let (code, body) = send(&client, "POST", &path, "application/json", Some(body)).await;
    assert_eq!(code, 422, "{body}");
    let m = |i: usize| format!("spec.metrics[{i}]");
    let unsupported = format!(
        "{}.type: Unsupported value: \"Bogus\": supported values: \"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\"",
        m(3)
    );
    assert_eq!(
        crate::support::raw::causes(&body),
        [
            format!(
                "{}.external.target.value: Forbidden: may not set both a target value for metric and a per-pod target",
                m(0)
            ),
            format!(
                "{}.pods: Forbidden: must populate the given metric source only",
                m(0)
            ),
            format!(
                "{}.resource.name: Required value: must specify a resource name",
                m(1)
            ),
            format!(
                "{}.resource.target.averageValue: Invalid value: \"-1500m\": must be positive",
                m(1)
            ),
            format!(
                "{}.resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
                m(1)
            ),
            format!(
                "{}.resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization",
                m(1)
            ),
            format!("{}.object.describedObject.kind: Required value", m(2)),
            format!(
                "{}.object.describedObject.name: Invalid value: \"a%b\": may not contain '%'",
                m(2)
            ),
            format!(
                "{}.object.metric.name: Invalid value: \"x/y\": may not contain '/'",
                m(2)
            ),
            format!(
                "{}.object.target.type: Invalid value: \"Bad\": must be either Utilization, Value, or AverageValue",
                m(2)
            ),
            format!(
                "{}.object.target.averageValue: Required value: must set either a target value or averageValue",
                m(2)
            ),
            unsupported.clone(),
            unsupported,
        ]
    );
    // Scaling down keeps no stabilization window unless one is given.
    let body = hpa(json!({"behavior": {"scaleDown": {}}}));
    let (code, body) = send(&client, "POST", &path, "application/json", Some(body)).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        body["spec"]["behavior"]["scaleDown"],
        json!({"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]})
    );
}

#[tokio::test]
async fn the_v1_table_lists_metrics_in_stored_order() {
    let env = env().await;
    let ns = env.namespace();
    let client = client(&env).await;
    let v1 = format!("/apis/autoscaling/v1/namespaces/{ns}/horizontalpodautoscalers");
    let v2 = format!("/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers");
    let metric = |name: &str, target: i64| {
        json!({"type": "Resource", "resource": {"name": name,
            "target": {"type": "Utilization", "averageUtilization": target}}})
    };
    let spec = json!({"metrics": [metric("memory", 60), metric("cpu", 50)]});
    let (code, body) = send(
        &client,
        "POST",
        &v2,
        "application/json",
        Some(hpa("autoscaling/v2", "ordered", spec)),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
    // One object and a list, both read through autoscaling/v1.
    for path in [format!("{v1}/ordered"), v1.clone()] {
        let headers = [("Accept", table)];
        let (code, _, bytes) =
            crate::support::raw::exchange(&client, "GET", &path, &headers, None).await;
        assert_eq!(code, 200);
        let table: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            table["rows"][0]["cells"][2], "memory: <unknown>/60%, cpu: <unknown>/50%",
            "{table}"
        );
    }
    let (code, body) = send(&client, "DELETE", &format!("{v2}/ordered"), "", None).await;
    assert_eq!(code, 200, "{body}");
}
