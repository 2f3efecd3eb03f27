//! Resource requirements (`validateResourceRequirements` of `pkg/apis/core/validation`): a
//! container's limits and requests, and a RuntimeClass's pod overhead as limits. Each
//! resource's name (standard for containers, or native, or an extended resource's), its
//! amount (not negative, whole for counted and extended resources, a multiple of a hugepage
//! size), requests against limits (equal for resources that cannot be overcommitted), hugepages
//! only with cpu or memory, and the claims a container names.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::errors::{
    Errors, child, duplicate, forbidden, index, invalid_str, required, required_because,
};
use crate::support::meta::qualified_name_errors;
use crate::support::quantity::Quantity;
use crate::support::status::Cause;

/// The resources a container may name without a domain.
pub(super) const CONTAINER_RESOURCES: &[&str] = &["cpu", "memory", "ephemeral-storage"];

/// `IsStandardResourceName`'s names without a domain (hugepages aside).
pub(super) const STANDARD_RESOURCES: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "services",
    "replicationcontrollers",
    "resourcequotas",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
];

/// The standard resources counted in whole units.
pub(super) const INTEGER_RESOURCES: &[&str] = &[
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
];

const NANO: i128 = 1_000_000_000;

/// `validateResourceName`: a qualified name, standard unless it has a domain.
pub(super) fn resource_name(name: &str, field: &str) -> Errors {
    let errs: Errors = qualified_name_errors(name)
        .iter()
        .map(|why| invalid_str(field, name, why))
        .collect();
    if !errs.is_empty() {
        return errs;
    }
    if !name.contains('/') && !STANDARD_RESOURCES.contains(&name) && !is_hugepages(name) {
        let why = "must be a standard resource type or fully qualified";
        return vec![invalid_str(field, name, why)];
    }
    Vec::new()
}

/// A hugepage size's resource name.
pub(super) fn is_hugepages(name: &str) -> bool {
    name.starts_with("hugepages-")
}

/// `validateContainerResourceName`: [`resource_name`]; without a domain a standard resource
/// of containers, with one a native or an extended resource's name.
pub(super) fn container_resource_name(name: &str, field: &str) -> Errors {
    let mut out = resource_name(name, field);
    if !name.contains('/') {
        if !CONTAINER_RESOURCES.contains(&name) && !is_hugepages(name) {
            out.push(invalid_str(
                field,
                name,
                "must be a standard resource for containers",
            ));
        }
    } else if !is_native(name) && !is_extended(name) {
        let why = "doesn't follow extended resource name standard";
        out.push(invalid_str(field, name, why));
    }
    out
}

/// `IsNativeResource`: no domain, or a `kubernetes.io` one.
fn is_native(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `IsExtendedResourceName`: not native, and `requests.<name>` a qualified name.
fn is_extended(name: &str) -> bool {
    !is_native(name)
        && !name.starts_with("requests.")
        && qualified_name_errors(&format!("requests.{name}")).is_empty()
}

/// `IsOvercommitAllowed`: native resources other than hugepages.
fn overcommit_allowed(name: &str) -> bool {
    is_native(name) && !name.starts_with("hugepages-")
}

/// `ValidateResourceQuantityValue`: not negative, and whole for counted and extended resources.
pub(super) fn amount(name: &str, q: Quantity, field: &str) -> Errors {
    let mut out = Vec::new();
    if q.nanos < 0 {
        let why = "must be greater than or equal to 0";
        out.push(invalid_str(field, &q.to_string(), why));
    }
    let integer = INTEGER_RESOURCES.contains(&name) || is_extended(name);
    if integer && q.nanos % NANO != 0 {
        out.push(invalid_str(field, &q.to_string(), "must be an integer"));
    }
    out
}

/// `validateResourceQuantityHugePageValue`: a hugepage amount is a whole number of pages.
fn hugepage_multiple(name: &str, q: Quantity, field: &str) -> Errors {
    let Some(size) = name.strip_prefix("hugepages-") else {
        return Vec::new();
    };
    let page = Quantity::parse(size).map_or(0, |p| p.nanos);
    // `Value()` rounds up to a whole number.
    let whole = (q.nanos + NANO - 1).div_euclid(NANO) * NANO;
    if page > 0 && whole > 0 && whole % page == 0 {
        return Vec::new();
    }
    let why = format!("{q} is not positive integer multiple of {name}");
    vec![invalid_str(field, &q.to_string(), &why)]
}

fn quantities(map: Option<&Map<String, Value>>) -> Vec<(&String, Quantity)> {
    map.into_iter()
        .flatten()
        .filter_map(|(k, v)| Quantity::from_json(v).map(|q| (k, q)))
        .collect()
}

/// `validateResourceRequirements` of the requirements at `path` (`limits`, `requests`,
/// `claims`); `claims` are checked against the pod's claim names when given.
pub(super) fn requirements(
    req: &Value,
    path: &str,
    pod_claims: Option<&HashSet<String>>,
) -> Errors {
    let mut out = Vec::new();
    let (lim_path, req_path) = (child(path, "limits"), child(path, "requests"));
    let limits = quantities(req["limits"].as_object());
    let requests = quantities(req["requests"].as_object());
    let (mut cpu_or_memory, mut hugepages) = (false, false);
    for (name, q) in &limits {
        let field = format!("{lim_path}[{name}]");
        out.extend(container_resource_name(name, &field));
        out.extend(amount(name, *q, &field));
        out.extend(hugepage_multiple(name, *q, &field));
        hugepages |= name.starts_with("hugepages-");
        cpu_or_memory |= matches!(name.as_str(), "cpu" | "memory");
    }
    for (name, q) in &requests {
        let field = format!("{req_path}[{name}]");
        out.extend(container_resource_name(name, &field));
        out.extend(amount(name, *q, &field));
        match limits.iter().find(|(n, _)| n == name) {
            Some((_, limit)) if q.nanos != limit.nanos && !overcommit_allowed(name) => {
                let why = format!("must be equal to {name} limit of {limit}");
                out.push(invalid_str(&req_path, &q.to_string(), &why));
            }
            Some((_, limit)) if q.nanos > limit.nanos => {
                let why = format!("must be less than or equal to {name} limit of {limit}");
                out.push(invalid_str(&req_path, &q.to_string(), &why));
            }
            Some(_) => {}
            None if !overcommit_allowed(name) => out.push(required_because(
                &lim_path,
                "Limit must be set for non overcommitable resources",
            )),
            None => {}
        }
        out.extend(hugepage_multiple(name, *q, &field));
        hugepages |= name.starts_with("hugepages-");
        cpu_or_memory |= matches!(name.as_str(), "cpu" | "memory");
    }
    if hugepages && !cpu_or_memory {
        out.push(forbidden(path, "HugePages require cpu or memory"));
    }
    out.extend(claims(&req["claims"], &child(path, "claims"), pod_claims));
    out
}

/// `validateResourceClaimNames`: each claim a container names exists in the pod, once.
fn claims(list: &Value, path: &str, pod_claims: Option<&HashSet<String>>) -> Errors {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let empty = HashSet::new();
    let pod_claims = pod_claims.unwrap_or(&empty);
    for (i, claim) in list.as_array().into_iter().flatten().enumerate() {
        let at = index(path, i);
        let name = claim["name"].as_str().unwrap_or_default();
        if name.is_empty() {
            out.push(required(&at));
            continue;
        }
        let request = claim["request"].as_str().unwrap_or_default();
        let key = if request.is_empty() {
            name.to_string()
        } else {
            format!("{name}/{request}")
        };
        if !seen.insert(key) {
            out.push(duplicate(&at, &Value::from(name)));
        }
        if !pod_claims.contains(name) {
            let mut known: Vec<&String> = pod_claims.iter().collect();
            known.sort();
            let detail = if known.is_empty() {
                " which is empty".to_string()
            } else {
                let names: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
                format!(": {}", names.join(", "))
            };
            out.push(Cause {
                reason: "FieldValueNotFound".into(),
                message: format!(
                    "Not found: {name:?}: must be one of the names in pod.spec.resourceClaims{detail}"
                ),
                field: at,
            });
        }
    }
    out
}
