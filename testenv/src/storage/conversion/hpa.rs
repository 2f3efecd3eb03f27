//! `autoscaling/v1` HorizontalPodAutoscalers, stored as `autoscaling/v2` (as kube-apiserver
//! stores them): the v1 CPU target is the v2 CPU utilization metric, and what v1 cannot say
//! (other metrics, current metrics, conditions, behavior) travels in the
//! `autoscaling.alpha.kubernetes.io/*` annotations, as the real conversion does.

use serde_json::{Map, Value, json};

const METRICS: &str = "autoscaling.alpha.kubernetes.io/metrics";
const CURRENT: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
const CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";
const BEHAVIOR: &str = "autoscaling.alpha.kubernetes.io/behavior";

fn is_cpu_utilization(metric: &Value) -> bool {
    metric["type"] == "Resource"
        && metric["resource"]["name"] == "cpu"
        && metric["resource"]["target"]["type"] == "Utilization"
}

fn annotation<'a>(object: &'a Value, key: &str) -> Option<Value> {
    let text: &'a str = object["metadata"]["annotations"][key].as_str()?;
    serde_json::from_str(text).ok()
}

fn remove_annotations(object: &mut Value) {
    if let Some(a) = object["metadata"]["annotations"].as_object_mut() {
        for key in [METRICS, CURRENT, CONDITIONS, BEHAVIOR] {
            a.remove(key);
        }
        if a.is_empty() {
            object["metadata"]
                .as_object_mut()
                .map(|m| m.remove("annotations"));
        }
    }
}

/// A v1 object in its stored (v2) form.
pub fn to_v2(mut object: Value) -> Value {
    let mut metrics: Vec<Value> = annotation(&object, METRICS)
        .and_then(|m| m.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .map(super::hpa_alpha::spec_from_alpha)
        .collect();
    let behavior = annotation(&object, BEHAVIOR);
    let conditions = annotation(&object, CONDITIONS);
    let current = annotation(&object, CURRENT);
    remove_annotations(&mut object);
    if let Some(spec) = object["spec"].as_object_mut() {
        if let Some(cpu) = spec.remove("targetCPUUtilizationPercentage") {
            metrics.push(json!({"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": cpu}}}));
        }
        if !metrics.is_empty() {
            spec.insert("metrics".into(), Value::Array(metrics));
        }
        if let Some(b) = behavior {
            spec.insert("behavior".into(), b);
        }
    }
    if let Some(status) = object["status"].as_object_mut() {
        let cpu = status.remove("currentCPUUtilizationPercentage");
        // The annotation's current metrics, which hold more, replace the CPU utilization.
        let metrics: Vec<Value> = match current.as_ref().and_then(Value::as_array) {
            Some(current) => current
                .iter()
                .map(super::hpa_alpha::status_from_alpha)
                .collect(),
            None => cpu
                .into_iter()
                .map(|cpu| {
                    json!({"type": "Resource", "resource": {"name": "cpu",
                        "current": {"averageUtilization": cpu}}})
                })
                .collect(),
        };
        if !metrics.is_empty() {
            status.insert("currentMetrics".into(), Value::Array(metrics));
        }
        if let Some(c) = conditions {
            status.insert("conditions".into(), c);
        }
    }
    object
}

/// The conditions annotation as Go's `encoding/json` writes the alpha condition list (the
/// fields of `HorizontalPodAutoscalerCondition` in their declaration order, as the v2 type
/// has them).
fn conditions_json(object: &Value, conditions: &Value) -> String {
    let target = crate::support::json_order::root_target(object)
        .and_then(|t| crate::support::json_order::member_target(&t, "status"))
        .and_then(|t| crate::support::json_order::member_target(&t, "conditions"));
    match target {
        Some(target) => {
            String::from_utf8(crate::support::json_order::to_vec_as(conditions, &target))
                .unwrap_or_else(|_| conditions.to_string())
        }
        None => conditions.to_string(),
    }
}

/// The stored (v2) object as `autoscaling/v1` serves it.
pub fn to_v1(object: &Value) -> Value {
    let mut out = object.clone();
    let mut annotations: Map<String, Value> = Map::new();
    if let Some(spec) = out["spec"].as_object_mut() {
        let metrics = spec
            .remove("metrics")
            .and_then(|m| m.as_array().cloned())
            .unwrap_or_default();
        let others: Vec<String> = metrics
            .iter()
            .filter(|m| !is_cpu_utilization(m))
            .map(super::hpa_alpha::spec_to_alpha)
            .collect();
        if let Some(cpu) = metrics.iter().find(|m| is_cpu_utilization(m)) {
            spec.insert(
                "targetCPUUtilizationPercentage".into(),
                cpu["resource"]["target"]["averageUtilization"].clone(),
            );
        }
        if !others.is_empty() {
            annotations.insert(METRICS.into(), json!(format!("[{}]", others.join(","))));
        }
        if let Some(b) = spec.remove("behavior") {
            annotations.insert(BEHAVIOR.into(), json!(b.to_string()));
        }
    }
    if let Some(status) = out["status"].as_object_mut() {
        let current = status
            .remove("currentMetrics")
            .and_then(|m| m.as_array().cloned())
            .unwrap_or_default();
        if let Some(cpu) = current
            .iter()
            .find(|m| m["type"] == "Resource" && m["resource"]["name"] == "cpu")
            && let Some(u) = cpu["resource"]["current"].get("averageUtilization")
        {
            status.insert("currentCPUUtilizationPercentage".into(), u.clone());
        }
        // Every current metric, the CPU's included (its raw value too), as v1's alpha type.
        if !current.is_empty() {
            let written: Vec<String> = current
                .iter()
                .map(super::hpa_alpha::status_to_alpha)
                .collect();
            annotations.insert(CURRENT.into(), json!(format!("[{}]", written.join(","))));
        }
        if let Some(c) = status.remove("conditions") {
            annotations.insert(CONDITIONS.into(), json!(conditions_json(object, &c)));
        }
        status.entry("currentReplicas").or_insert(json!(0));
    }
    if !annotations.is_empty() {
        if !out["metadata"]["annotations"].is_object() {
            out["metadata"]["annotations"] = json!({});
        }
        for (k, v) in annotations {
            out["metadata"]["annotations"][k] = v;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_targets_and_other_metrics_round_trip() {
        let v1 = json!({"metadata": {"name": "h"}, "spec": {"maxReplicas": 5, "targetCPUUtilizationPercentage": 60}});
        let v2 = to_v2(v1);
        assert_eq!(
            v2["spec"]["metrics"],
            json!([{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}])
        );
        let stored = json!({"metadata": {"name": "h"}, "spec": {"maxReplicas": 5, "metrics": [
            {"type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 70}}},
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}});
        let v1 = to_v1(&stored);
        assert_eq!(v1["spec"]["targetCPUUtilizationPercentage"], 50);
        assert_eq!(
            v1["metadata"]["annotations"][METRICS],
            r#"[{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":70}}]"#
        );
        assert_eq!(to_v2(v1)["spec"]["metrics"], stored["spec"]["metrics"]);
    }
}
