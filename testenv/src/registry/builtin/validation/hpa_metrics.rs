//! A HorizontalPodAutoscaler's metrics (`validateMetricSpec`): the source type, the one
//! source it names (only the first present source is checked, as Go does), and each
//! source's metric identifier, object reference, resource name and target.

use serde_json::Value;

use super::errors::{
    Errors, check_dns1123_label, child, forbidden, invalid, invalid_str, not_supported, required,
    required_because,
};
use super::rbac::path_segment;
use super::resources::container_resource_name;
use crate::support::quantity::Quantity;

const METRIC_TYPES: &[&str] = &[
    "ContainerResource",
    "External",
    "Object",
    "Pods",
    "Resource",
];
/// The sources in the order Go looks for them.
const SOURCES: [&str; 5] = [
    "object",
    "external",
    "pods",
    "resource",
    "containerResource",
];
const TARGET_TYPES: &[&str] = &["Utilization", "Value", "AverageValue"];

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// A path segment field (`kind`, `name`) of a reference: required, no `/` or `%`.
fn segment(value: &Value, field: &str, path: &str) -> Errors {
    let at = child(path, field);
    match text(value, field) {
        "" => vec![required(&at)],
        v => path_segment(v)
            .iter()
            .map(|why| invalid_str(&at, v, why))
            .collect(),
    }
}

/// `validateMetricIdentifier`: a metric's name, set and a path segment.
fn identifier(metric: &Value, path: &str) -> Errors {
    let at = child(path, "name");
    match text(metric, "name") {
        "" => vec![required_because(&at, "must specify a metric name")],
        name => path_segment(name)
            .iter()
            .map(|why| invalid_str(&at, name, why))
            .collect(),
    }
}

/// A target quantity as Go prints it (canonical), when it is not positive.
fn not_positive(target: &Value, field: &str, path: &str) -> Option<crate::support::status::Cause> {
    let value = target.get(field).filter(|v| !v.is_null())?;
    let q = Quantity::from_json(value)?;
    (q.nanos <= 0).then(|| invalid_str(&child(path, field), &q.to_string(), "must be positive"))
}

/// `validateMetricTarget`: a known type, positive values and a utilization of at least 1.
fn target(t: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let kind = text(t, "type");
    let type_path = child(path, "type");
    if kind.is_empty() {
        out.push(required_because(
            &type_path,
            "must specify a metric target type",
        ));
    }
    if !TARGET_TYPES.contains(&kind) {
        out.push(invalid_str(
            &type_path,
            kind,
            "must be either Utilization, Value, or AverageValue",
        ));
    }
    out.extend(not_positive(t, "value", path));
    out.extend(not_positive(t, "averageValue", path));
    if let Some(u) = t["averageUtilization"].as_i64()
        && u < 1
    {
        out.push(invalid(
            &child(path, "averageUtilization"),
            &u.into(),
            "must be greater than 0",
        ));
    }
    out
}

fn set(t: &Value, field: &str) -> bool {
    !t[field].is_null()
}

/// The checks of one source at `path`, by its field name.
fn source(name: &str, s: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let t = &s["target"];
    let target_path = child(path, "target");
    match name {
        "object" => {
            // The described object's `apiVersion` is not checked.
            let described = child(path, "describedObject");
            out.extend(segment(&s["describedObject"], "kind", &described));
            out.extend(segment(&s["describedObject"], "name", &described));
            out.extend(identifier(&s["metric"], &child(path, "metric")));
            out.extend(target(t, &target_path));
            if !set(t, "value") && !set(t, "averageValue") {
                out.push(required_because(
                    &child(&target_path, "averageValue"),
                    "must set either a target value or averageValue",
                ));
            }
        }
        "external" => {
            out.extend(identifier(&s["metric"], &child(path, "metric")));
            out.extend(target(t, &target_path));
            match (set(t, "value"), set(t, "averageValue")) {
                (false, false) => out.push(required_because(
                    &child(&target_path, "averageValue"),
                    "must set either a target value for metric or a per-pod target",
                )),
                (true, true) => out.push(forbidden(
                    &child(&target_path, "value"),
                    "may not set both a target value for metric and a per-pod target",
                )),
                _ => {}
            }
        }
        "pods" => {
            out.extend(identifier(&s["metric"], &child(path, "metric")));
            out.extend(target(t, &target_path));
            if !set(t, "averageValue") {
                out.push(required_because(
                    &child(&target_path, "averageValue"),
                    "must specify a positive target averageValue",
                ));
            }
        }
        _ => {
            let name_path = child(path, "name");
            match text(s, "name") {
                "" => out.push(required_because(&name_path, "must specify a resource name")),
                // A Resource metric may name any resource; a ContainerResource one a
                // container's.
                resource if name == "containerResource" => {
                    out.extend(container_resource_name(resource, &name_path));
                }
                _ => {}
            }
            if name == "containerResource" {
                let at = child(path, "container");
                match text(s, "container") {
                    "" => out.push(required_because(&at, "must specify a container")),
                    c => out.extend(check_dns1123_label(&at, c)),
                }
            }
            out.extend(target(t, &target_path));
            match (set(t, "averageUtilization"), set(t, "averageValue")) {
                (false, false) => out.push(required_because(
                    &child(&target_path, "averageUtilization"),
                    "must set either a target raw value or a target utilization",
                )),
                (true, true) => out.push(forbidden(
                    &child(&target_path, "averageValue"),
                    "may not set both a target raw value and a target utilization",
                )),
                _ => {}
            }
        }
    }
    out
}

/// `validateMetricSpec` of the metric at `path`.
pub fn metric(m: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let kind = text(m, "type");
    let type_path = child(path, "type");
    if kind.is_empty() {
        out.push(required_because(
            &type_path,
            "must specify a metric source type",
        ));
    }
    if !METRIC_TYPES.contains(&kind) {
        out.push(not_supported(&type_path, kind, METRIC_TYPES));
    }
    let present: Vec<&str> = SOURCES.into_iter().filter(|s| m[*s].is_object()).collect();
    if let Some(first) = present.first() {
        out.extend(source(first, &m[*first], &child(path, first)));
    }
    let expected = match kind {
        "Object" => "object",
        "Pods" => "pods",
        "Resource" => "resource",
        "ContainerResource" => "containerResource",
        "External" => "external",
        _ => {
            out.push(not_supported(&type_path, kind, METRIC_TYPES));
            ""
        }
    };
    if !expected.is_empty() && !present.contains(&expected) {
        out.push(required_because(
            &child(path, expected),
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
