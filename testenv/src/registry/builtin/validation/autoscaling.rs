//! HorizontalPodAutoscalers (`validateHorizontalPodAutoscalerSpec`): replica bounds, the
//! scale target's reference, the metrics (see [`super::hpa_metrics`]) and the scaling
//! behavior's rules.

use serde_json::Value;

use super::errors::{
    Errors, child, forbidden, index, invalid, invalid_str, not_supported, required,
    required_because,
};
use super::hpa_metrics;
use super::rbac::path_segment;

/// The select policies of a scaling direction.
const SELECT_POLICIES: &[&str] = &["Disabled", "Max", "Min"];
/// The types of a scaling policy.
const POLICY_TYPES: &[&str] = &["Percent", "Pods"];
/// `MaxStabilizationWindowSeconds`.
const MAX_STABILIZATION_SECONDS: i64 = 3600;
/// `MaxPeriodSeconds` of a scaling policy.
const MAX_PERIOD_SECONDS: i64 = 1800;

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// `ValidateCrossVersionObjectReference` of the reference at `path`.
fn reference(r: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for f in ["kind", "name"] {
        match text(r, f) {
            "" => out.push(required(&child(path, f))),
            v => {
                for why in path_segment(v) {
                    out.push(invalid_str(&child(path, f), v, &why));
                }
            }
        }
    }
    let version = text(r, "apiVersion");
    let field = child(path, "apiVersion");
    // schema.ParseGroupVersion: no slash is a version of the empty group, one splits the
    // group from the version, more do not parse; the group must be named but for the core
    // group's one scalable kind.
    let core_kind = text(r, "kind") == "ReplicationController";
    match version.split('/').collect::<Vec<_>>().as_slice() {
        [_] | ["", _] if !core_kind => out.push(invalid_str(
            &field,
            version,
            "apiVersion must specify API group",
        )),
        [_] | [_, _] => {}
        _ => out.push(invalid_str(
            &field,
            version,
            &format!("unexpected GroupVersion string: {version}"),
        )),
    }
    out
}

/// `validateScalingRules` of one direction's rules at `path`: the stabilization window
/// within an hour, a known select policy, at least one policy, each of a known type with a
/// positive value and a period of at most 30 minutes.
fn scaling_rules(rules: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    if !rules.is_object() {
        return out;
    }
    if let Some(window) = rules["stabilizationWindowSeconds"].as_i64() {
        let at = child(path, "stabilizationWindowSeconds");
        if window < 0 {
            out.push(invalid(
                &at,
                &window.into(),
                "must be greater than or equal to zero",
            ));
        }
        if window > MAX_STABILIZATION_SECONDS {
            out.push(invalid(
                &at,
                &window.into(),
                &format!("must be less than or equal to {MAX_STABILIZATION_SECONDS}"),
            ));
        }
    }
    if let Some(select) = rules["selectPolicy"].as_str()
        && !SELECT_POLICIES.contains(&select)
    {
        out.push(not_supported(
            &child(path, "selectPolicy"),
            select,
            SELECT_POLICIES,
        ));
    }
    let policies_path = child(path, "policies");
    let policies = rules["policies"].as_array().map_or(&[][..], Vec::as_slice);
    if policies.is_empty() {
        out.push(required_because(
            &policies_path,
            "must specify at least one Policy",
        ));
    }
    for (i, p) in policies.iter().enumerate() {
        let at = index(&policies_path, i);
        let kind = text(p, "type");
        if !POLICY_TYPES.contains(&kind) {
            out.push(not_supported(&child(&at, "type"), kind, POLICY_TYPES));
        }
        let value = p["value"].as_i64().unwrap_or(0);
        if value <= 0 {
            out.push(invalid(
                &child(&at, "value"),
                &value.into(),
                "must be greater than zero",
            ));
        }
        let period = p["periodSeconds"].as_i64().unwrap_or(0);
        let period_path = child(&at, "periodSeconds");
        if period <= 0 {
            out.push(invalid(
                &period_path,
                &period.into(),
                "must be greater than zero",
            ));
        }
        if period > MAX_PERIOD_SECONDS {
            out.push(invalid(
                &period_path,
                &period.into(),
                &format!("must be less than or equal to {MAX_PERIOD_SECONDS}"),
            ));
        }
    }
    out
}

/// `validateHorizontalPodAutoscalerSpec` (without the metadata).
pub fn horizontal_pod_autoscaler(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = Vec::new();
    let min = spec["minReplicas"].as_i64();
    let max = spec["maxReplicas"].as_i64().unwrap_or(0);
    if let Some(n) = min.filter(|n| *n < 1) {
        out.push(invalid(
            "spec.minReplicas",
            &n.into(),
            "must be greater than or equal to 1",
        ));
    }
    if max < 1 {
        out.push(invalid(
            "spec.maxReplicas",
            &max.into(),
            "must be greater than 0",
        ));
    }
    if min.is_some_and(|n| max < n) {
        out.push(invalid(
            "spec.maxReplicas",
            &max.into(),
            "must be greater than or equal to `minReplicas`",
        ));
    }
    out.extend(reference(&spec["scaleTargetRef"], "spec.scaleTargetRef"));
    let metrics = spec["metrics"].as_array().map_or(&[][..], Vec::as_slice);
    let scales_on_objects = metrics
        .iter()
        .any(|m| matches!(text(m, "type"), "Object" | "External"));
    if min == Some(0) && !scales_on_objects {
        out.push(forbidden(
            "spec.metrics",
            "must specify at least one Object or External metric to support scaling to zero replicas",
        ));
    }
    for (i, m) in metrics.iter().enumerate() {
        out.extend(hpa_metrics::metric(m, &index("spec.metrics", i)));
    }
    let behavior = &spec["behavior"];
    for direction in ["scaleUp", "scaleDown"] {
        out.extend(scaling_rules(
            &behavior[direction],
            &format!("spec.behavior.{direction}"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bounds_and_target() {
        let hpa = json!({"spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"},
            "minReplicas": 5, "maxReplicas": 2}});
        let fields: Vec<String> = horizontal_pod_autoscaler(&hpa)
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(
            fields,
            ["spec.maxReplicas", "spec.scaleTargetRef.apiVersion"]
        );
        let ok = json!({"spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
            "maxReplicas": 2, "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 50}}}],
            "behavior": {"scaleUp": {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 15}]}}}});
        assert!(horizontal_pod_autoscaler(&ok).is_empty());
    }
}
