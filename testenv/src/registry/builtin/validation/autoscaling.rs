//! HorizontalPodAutoscalers (`validateHorizontalPodAutoscalerSpec`): replica bounds, the
//! scale target's reference and the metrics' sources.

use serde_json::Value;

use super::errors::{
    Errors, child, forbidden, index, invalid, invalid_str, not_supported, required,
    required_because,
};
use super::rbac::path_segment;

const METRIC_TYPES: &[&str] = &[
    "ContainerResource",
    "External",
    "Object",
    "Pods",
    "Resource",
];

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
    match version.split('/').count() {
        1 if version.is_empty() => {
            out.push(invalid_str(
                &field,
                version,
                "apiVersion must specify API group",
            ));
        }
        1 | 2 => {}
        _ => out.push(invalid_str(
            &field,
            version,
            &format!("unexpected GroupVersion string: {version}"),
        )),
    }
    out
}

/// The source of one metric (`validateMetricSpec`): the one its type names, present alone.
fn metric(m: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let kind = text(m, "type");
    if kind.is_empty() {
        out.push(required_because(
            &child(path, "type"),
            "must specify a metric source type",
        ));
    }
    if !METRIC_TYPES.contains(&kind) {
        out.push(not_supported(&child(path, "type"), kind, METRIC_TYPES));
    }
    let sources = [
        "object",
        "pods",
        "resource",
        "containerResource",
        "external",
    ];
    let present: Vec<&str> = sources.into_iter().filter(|s| m[*s].is_object()).collect();
    let mut expected = kind.to_string();
    if let Some(first) = expected.get_mut(..1) {
        first.make_ascii_lowercase();
    }
    if !present.contains(&expected.as_str()) {
        out.push(required_because(
            &child(path, &expected),
            "must populate information for the given metric source",
        ));
    }
    if present.len() > 1 {
        for other in present.iter().filter(|p| **p != expected) {
            out.push(forbidden(
                &child(path, other),
                "must populate the given metric source only",
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
        out.extend(metric(m, &index("spec.metrics", i)));
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
            "maxReplicas": 2, "metrics": [{"type": "Resource", "resource": {"name": "cpu"}}]}});
        assert!(horizontal_pod_autoscaler(&ok).is_empty());
    }
}
