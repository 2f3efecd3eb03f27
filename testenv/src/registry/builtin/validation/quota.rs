//! LimitRanges and ResourceQuotas (`ValidateLimitRange`, `ValidateResourceQuota`): their
//! types and resource names, and quantities that are consistent (min below max, defaults
//! between them) and never negative.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::errors::{
    Errors, child, duplicate, forbidden, index, invalid, invalid_str, invalid_text, key,
    required_because,
};
use super::resources::{amount, container_resource_name, is_hugepages, resource_name};
use crate::support::meta::qualified_name_errors;
use crate::support::quantity::Quantity;

const LIMIT_TYPES: &[&str] = &["Pod", "Container", "PersistentVolumeClaim"];
const QUOTA_RESOURCES: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.storage",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "persistentvolumeclaims",
    "configmaps",
    "services.nodeports",
    "services.loadbalancers",
];
const SCOPES: &[&str] = &[
    "Terminating",
    "NotTerminating",
    "BestEffort",
    "NotBestEffort",
    "PriorityClass",
    "CrossNamespacePodAffinity",
    "VolumeAttributesClass",
];
/// What a pod-state scope's expression with another operator than `Exists` is told.
const EXISTS_ONLY: &str = "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity";

/// `ValidateResourceQuotaResourceName`.
fn quota_resource_name(name: &str, field: &str) -> Errors {
    let mut out = resource_name(name, field);
    let huge = is_hugepages(name) || name.starts_with("requests.hugepages-");
    if !name.contains('/') && !QUOTA_RESOURCES.contains(&name) && !huge {
        out.push(invalid_str(
            field,
            name,
            "must be a standard resource for quota",
        ));
    }
    out
}

/// `ValidateResourceQuantityValue` of a JSON amount (`resources::amount`); an amount that is
/// not a quantity is the decoder's error, not this check's.
pub(super) fn quantity_value(resource: &str, value: &Value, field: &str) -> Errors {
    Quantity::from_json(value).map_or_else(Vec::new, |q| amount(resource, q, field))
}

type Quantities = Vec<(String, Quantity)>;

fn quantities(map: Option<&Map<String, Value>>) -> Quantities {
    map.into_iter()
        .flatten()
        .filter_map(|(k, v)| Quantity::from_json(v).map(|q| (k.clone(), q)))
        .collect()
}

fn find(list: &Quantities, k: &str) -> Option<Quantity> {
    list.iter().find(|(n, _)| n == k).map(|(_, q)| *q)
}

/// The consistency of one resource's bounds in a limit (`min <= defaultRequest <= default
/// <= max`, the ratio at least 1 and within max/min).
fn bounds(at: &str, k: &str, lists: [&Quantities; 5]) -> Errors {
    let [min, max, default, request, ratio] = lists.map(|l| find(l, k));
    let mut out = Vec::new();
    let mut check = |cond: bool, path: &str, value: Quantity, why: String| {
        if cond {
            out.push(invalid_str(
                &key(&child(at, path), k),
                &value.to_string(),
                &why,
            ));
        }
    };
    if let (Some(lo), Some(hi)) = (min, max) {
        check(
            lo.nanos > hi.nanos,
            "min",
            lo,
            format!("min value {lo} is greater than max value {hi}"),
        );
    }
    if let (Some(r), Some(lo)) = (request, min) {
        check(
            lo.nanos > r.nanos,
            "defaultRequest",
            r,
            format!("min value {lo} is greater than default request value {r}"),
        );
    }
    if let (Some(r), Some(hi)) = (request, max) {
        check(
            r.nanos > hi.nanos,
            "defaultRequest",
            r,
            format!("default request value {r} is greater than max value {hi}"),
        );
    }
    if let (Some(r), Some(d)) = (request, default) {
        check(
            r.nanos > d.nanos,
            "defaultRequest",
            r,
            format!("default request value {r} is greater than default limit value {d}"),
        );
    }
    if let (Some(d), Some(lo)) = (default, min) {
        check(
            lo.nanos > d.nanos,
            "default",
            lo,
            format!("min value {lo} is greater than default value {d}"),
        );
    }
    if let (Some(d), Some(hi)) = (default, max) {
        check(
            d.nanos > hi.nanos,
            "default",
            hi,
            format!("default value {d} is greater than max value {hi}"),
        );
    }
    if let Some(r) = ratio {
        check(
            r.nanos < 1_000_000_000,
            "maxLimitRequestRatio",
            r,
            format!("ratio {r} is less than 1"),
        );
        if let (Some(lo), Some(hi)) = (min, max) {
            let limit = hi.nanos as f64 / lo.nanos as f64;
            let value = r.nanos as f64 / 1e9;
            check(
                value > limit,
                "maxLimitRequestRatio",
                r,
                format!("ratio {r} is greater than max/min = {limit:.6}"),
            );
        }
    }
    out
}

/// `ValidateLimitRange` (without the metadata).
pub fn limit_range(object: &Value) -> Errors {
    let mut out = Vec::new();
    let mut types = BTreeSet::new();
    let limits = object["spec"]["limits"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    for (i, limit) in limits.iter().enumerate() {
        let at = index("spec.limits", i);
        let kind = limit["type"].as_str().unwrap_or_default();
        let type_path = child(&at, "type");
        let name_errs: Errors = qualified_name_errors(kind)
            .iter()
            .map(|why| invalid_str(&type_path, kind, why))
            .collect();
        if name_errs.is_empty() && !kind.contains('/') && !LIMIT_TYPES.contains(&kind) {
            out.push(invalid_str(
                &type_path,
                kind,
                "must be a standard limit type or fully qualified",
            ));
        }
        out.extend(name_errs);
        if !types.insert(kind.to_string()) {
            out.push(duplicate(&type_path, &Value::String(kind.into())));
        }
        let mut keys = BTreeSet::new();
        let mut named = |field: &str, out: &mut Errors| {
            let map = limit[field].as_object();
            for k in map.into_iter().flatten().map(|(k, _)| k) {
                let path = key(&child(&at, field), k);
                out.extend(if matches!(kind, "Pod" | "Container") {
                    container_resource_name(k, &path)
                } else {
                    resource_name(k, &path)
                });
                keys.insert(k.clone());
            }
            quantities(map)
        };
        let max = named("max", &mut out);
        let min = named("min", &mut out);
        let (mut default, mut request) = (Vec::new(), Vec::new());
        if kind == "Pod" {
            for f in ["default", "defaultRequest"] {
                if limit[f].as_object().is_some_and(|m| !m.is_empty()) {
                    out.push(forbidden(
                        &child(&at, f),
                        "may not be specified when `type` is 'Pod'",
                    ));
                }
            }
        } else {
            default = named("default", &mut out);
            request = named("defaultRequest", &mut out);
        }
        if kind == "PersistentVolumeClaim"
            && find(&min, "storage").is_none()
            && find(&max, "storage").is_none()
        {
            out.push(required_because(
                &child(&at, "limits"),
                "either minimum or maximum storage value is required, but neither was provided",
            ));
        }
        let ratio = named("maxLimitRequestRatio", &mut out);
        for k in &keys {
            out.extend(bounds(&at, k, [&min, &max, &default, &request, &ratio]));
        }
    }
    out
}

/// Whether a quota with `scope` may limit `resource` (`IsResourceQuotaScopeValidForResource`).
fn scope_fits(scope: &str, resource: &str) -> bool {
    const POD_COMPUTE: &[&str] = &[
        "cpu",
        "memory",
        "limits.cpu",
        "limits.memory",
        "requests.cpu",
        "requests.memory",
    ];
    match scope {
        "Terminating"
        | "NotTerminating"
        | "NotBestEffort"
        | "PriorityClass"
        | "CrossNamespacePodAffinity" => resource == "pods" || POD_COMPUTE.contains(&resource),
        "BestEffort" => resource == "pods",
        "VolumeAttributesClass" => {
            matches!(resource, "persistentvolumeclaims" | "requests.storage")
        }
        _ => true,
    }
}

/// `validateResourceQuotaScopes`: known scopes, that fit the limited resources, and not
/// two opposite ones. Every error prints the whole list.
fn scopes(spec: &Value) -> Errors {
    let list = spec["scopes"].as_array().map_or(&[][..], Vec::as_slice);
    let mut out = Vec::new();
    let field = "spec.scopes";
    let hard: BTreeSet<&str> = spec["hard"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k.as_str())
        .collect();
    for scope in list {
        let scope = scope.as_str().unwrap_or_default();
        if !SCOPES.contains(&scope) {
            out.push(invalid(field, &spec["scopes"], "unsupported scope"));
        }
        for resource in &hard {
            let standard = QUOTA_RESOURCES.contains(resource) || is_hugepages(resource);
            if standard && !scope_fits(scope, resource) {
                out.push(invalid(
                    field,
                    &spec["scopes"],
                    "unsupported scope applied to resource",
                ));
            }
        }
    }
    let has = |s: &str| list.iter().any(|v| v == s);
    for (a, b) in [
        ("BestEffort", "NotBestEffort"),
        ("Terminating", "NotTerminating"),
    ] {
        if has(a) && has(b) {
            out.push(invalid(field, &spec["scopes"], "conflicting scopes"));
        }
    }
    out
}

/// A scope selector as Go prints the internal struct: `{"MatchExpressions":[{"ScopeName":
/// ..,"Operator":..,"Values":..}]}` (an absent list is `null`).
fn selector_go_value(selector: &Value) -> String {
    let expressions = match &selector["matchExpressions"] {
        Value::Array(list) => {
            let shown: Vec<String> = list
                .iter()
                .map(|e| {
                    let text = |f: &str| Value::String(e[f].as_str().unwrap_or_default().into());
                    let values = match &e["values"] {
                        Value::Array(v) => Value::Array(v.clone()).to_string(),
                        _ => "null".to_string(),
                    };
                    format!(
                        "{{\"ScopeName\":{},\"Operator\":{},\"Values\":{values}}}",
                        text("scopeName"),
                        text("operator")
                    )
                })
                .collect();
            format!("[{}]", shown.join(","))
        }
        _ => "null".to_string(),
    };
    format!("{{\"MatchExpressions\":{expressions}}}")
}

/// `validateScopedResourceSelectorRequirement`: each expression's scope known and fitting
/// the limited resources, `Exists` for the pod-state scopes, values with (and only with)
/// `In`/`NotIn`, and no two opposite scopes. The conflict prints `spec.scopes`, as Go does.
fn scope_selector(spec: &Value) -> Errors {
    let selector = &spec["scopeSelector"];
    if !selector.is_object() {
        return Vec::new();
    }
    let path = "spec.scopeSelector.matchExpressions";
    let hard: BTreeSet<&str> = spec["hard"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k.as_str())
        .collect();
    let shown = selector_go_value(selector);
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for e in selector["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let scope = e["scopeName"].as_str().unwrap_or_default();
        let operator = e["operator"].as_str().unwrap_or_default();
        if !SCOPES.contains(&scope) {
            out.push(invalid_str(
                &child(path, "scopeName"),
                scope,
                "unsupported scope",
            ));
        }
        for resource in &hard {
            let standard = QUOTA_RESOURCES.contains(resource) || is_hugepages(resource);
            if standard && !scope_fits(scope, resource) {
                out.push(invalid_text(
                    path,
                    &shown,
                    "unsupported scope applied to resource",
                ));
            }
        }
        let pod_state = matches!(
            scope,
            "BestEffort"
                | "NotBestEffort"
                | "Terminating"
                | "NotTerminating"
                | "CrossNamespacePodAffinity"
        );
        if pod_state && operator != "Exists" {
            out.push(invalid_str(&child(path, "operator"), operator, EXISTS_ONLY));
        }
        let values = e["values"].as_array().map_or(&[][..], Vec::as_slice);
        match operator {
            "In" | "NotIn" if values.is_empty() => out.push(required_because(
                &child(path, "values"),
                "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
            )),
            "In" | "NotIn" => {}
            "Exists" | "DoesNotExist" if !values.is_empty() => out.push(invalid(
                &child(path, "values"),
                &e["values"],
                "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
            )),
            "Exists" | "DoesNotExist" => {}
            _ => out.push(invalid_str(
                &child(path, "operator"),
                operator,
                "not a valid selector operator",
            )),
        }
        seen.insert(scope);
    }
    for (a, b) in [
        ("BestEffort", "NotBestEffort"),
        ("Terminating", "NotTerminating"),
    ] {
        if seen.contains(a) && seen.contains(b) {
            out.push(invalid(path, &spec["scopes"], "conflicting scopes"));
        }
    }
    out
}

/// `ValidateResourceQuota` (without the metadata): the hard limits' names and values, the
/// scopes and the scope selector.
pub fn resource_quota(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = Vec::new();
    for (k, v) in spec["hard"].as_object().into_iter().flatten() {
        let path = key("spec.hard", k);
        out.extend(quota_resource_name(k, &path));
        out.extend(quantity_value(k, v, &path));
    }
    out.extend(scopes(spec));
    out.extend(scope_selector(spec));
    out.extend(resource_quota_status(object));
    out
}

/// The scopes of a ResourceQuota may not change on update (compared as sets), checked before
/// the spec's own rules.
pub fn resource_quota_update(object: &Value, old: &Value) -> Errors {
    let scopes = |o: &Value| -> BTreeSet<String> {
        o["spec"]["scopes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| s.as_str().unwrap_or_default().to_string())
            .collect()
    };
    if scopes(object) == scopes(old) {
        return Vec::new();
    }
    vec![invalid(
        "spec.scopes",
        &object["spec"]["scopes"],
        "field is immutable",
    )]
}

/// The status part of `ValidateResourceQuota`: the hard and used amounts' names and values
/// (what a status update of a quota checks after the metadata).
pub fn resource_quota_status(object: &Value) -> Errors {
    let mut out = Vec::new();
    for (k, v) in object["status"]["hard"].as_object().into_iter().flatten() {
        let path = key("status.hard", k);
        out.extend(quota_resource_name(k, &path));
        out.extend(quantity_value(k, v, &path));
    }
    for (k, v) in object["status"]["used"].as_object().into_iter().flatten() {
        let path = key("status.used", k);
        out.extend(quota_resource_name(k, &path));
        out.extend(quantity_value(k, v, &path));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn limit_ranges_are_consistent() {
        let lr = json!({"spec": {"limits": [{"type": "Nodes", "max": {"cpu": "1"}, "min": {"cpu": "2"}}]}});
        let errs = limit_range(&lr);
        let messages: Vec<&str> = errs.iter().map(|c| c.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "Invalid value: \"Nodes\": must be a standard limit type or fully qualified",
                "Invalid value: \"2\": min value 2 is greater than max value 1",
            ]
        );
        let ok = json!({"spec": {"limits": [{"type": "Container", "max": {"cpu": "2"},
            "min": {"cpu": "100m"}, "default": {"cpu": "1"}, "defaultRequest": {"cpu": "500m"}}]}});
        assert!(limit_range(&ok).is_empty());
    }

    #[test]
    fn quotas_name_standard_resources() {
        let rq = json!({"spec": {"hard": {"pods": "-1", "count/deployments.apps": "2", "services": "1500m"}}});
        let errs = resource_quota(&rq);
        let messages: Vec<&str> = errs.iter().map(|c| c.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "Invalid value: \"-1\": must be greater than or equal to 0",
                "Invalid value: \"1500m\": must be an integer",
            ]
        );
    }
}
