//! `autoscaling/v2` defaults: HorizontalPodAutoscaler.

use super::fields::{ensure_object, object_mut, set_default};
use serde_json::{Map, Value, json};

/// `SetDefaults_HorizontalPodAutoscaler`: `minReplicas: 1`; without metrics, a CPU
/// utilization target of 80%; when `behavior` is given, its scale-up and scale-down rules
/// get the controller's defaults (`SetDefaults_HorizontalPodAutoscalerBehavior`).
pub fn horizontal_pod_autoscaler(object: &mut Value) {
    let Some(spec) = object
        .as_object_mut()
        .and_then(|o| ensure_object(o, "spec"))
    else {
        return;
    };
    set_default(spec, "minReplicas", json!(1));
    if spec
        .get("metrics")
        .is_none_or(|m| m.as_array().is_none_or(Vec::is_empty))
    {
        spec.insert(
            "metrics".into(),
            json!([{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 80}}}]),
        );
    }
    if let Some(behavior) = object_mut(spec, "behavior") {
        if let Some(up) = ensure_object(behavior, "scaleUp") {
            scaling_rules(
                up,
                Some(0),
                json!([{"type": "Pods", "value": 4, "periodSeconds": 15},
                       {"type": "Percent", "value": 100, "periodSeconds": 15}]),
            );
        }
        if let Some(down) = ensure_object(behavior, "scaleDown") {
            scaling_rules(
                down,
                None,
                json!([{"type": "Percent", "value": 100, "periodSeconds": 15}]),
            );
        }
    }
}

/// The defaults of one direction's rules: its stabilization window (none for scaling
/// down), `selectPolicy: Max`, and the direction's policies when none are given (an empty
/// list stays, for validation to refuse).
fn scaling_rules(rules: &mut Map<String, Value>, window: Option<i64>, policies: Value) {
    if let Some(window) = window {
        set_default(rules, "stabilizationWindowSeconds", json!(window));
    }
    set_default(rules, "selectPolicy", json!("Max"));
    if rules.get("policies").is_none_or(Value::is_null) {
        rules.insert("policies".into(), policies);
    }
}
