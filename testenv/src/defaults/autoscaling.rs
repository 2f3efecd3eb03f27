//! `autoscaling/v2` defaults: HorizontalPodAutoscaler.

use super::{ensure_object, object_mut, set_default};
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
                0,
                json!([{"type": "Pods", "value": 4, "periodSeconds": 15},
                       {"type": "Percent", "value": 100, "periodSeconds": 15}]),
            );
        }
        if let Some(down) = ensure_object(behavior, "scaleDown") {
            scaling_rules(
                down,
                300,
                json!([{"type": "Percent", "value": 100, "periodSeconds": 15}]),
            );
        }
    }
}

fn scaling_rules(rules: &mut Map<String, Value>, window: i64, policies: Value) {
    set_default(rules, "stabilizationWindowSeconds", json!(window));
    set_default(rules, "selectPolicy", json!("Max"));
    if rules
        .get("policies")
        .is_none_or(|p| p.as_array().is_none_or(Vec::is_empty))
    {
        rules.insert("policies".into(), policies);
    }
}

#[cfg(test)]
mod tests {
    use super::super::apply_builtin_defaults;
    use serde_json::json;

    #[test]
    fn hpa_defaults() {
        let mut h = json!({"spec": {"maxReplicas": 5, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}}});
        apply_builtin_defaults("autoscaling", "v2", "HorizontalPodAutoscaler", &mut h);
        assert_eq!(h["spec"]["minReplicas"], 1);
        assert_eq!(
            h["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
            80
        );
        assert!(h["spec"].get("behavior").is_none());
        let mut h = json!({"spec": {"maxReplicas": 5, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}});
        apply_builtin_defaults("autoscaling", "v2", "HorizontalPodAutoscaler", &mut h);
        let b = &h["spec"]["behavior"];
        assert_eq!(b["scaleDown"]["stabilizationWindowSeconds"], 60);
        assert_eq!(b["scaleDown"]["selectPolicy"], "Max");
        assert_eq!(b["scaleUp"]["stabilizationWindowSeconds"], 0);
        assert_eq!(
            b["scaleUp"]["policies"][0],
            json!({"type": "Pods", "value": 4, "periodSeconds": 15})
        );
    }
}
