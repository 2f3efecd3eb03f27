//! RuntimeClasses (`ValidateRuntimeClass`, `ValidateRuntimeClassUpdate`): the handler is a
//! DNS label that never changes, the pod overhead is a container's resource limits
//! (`overhead.limits[...]`, as the real server reuses `ValidateResourceRequirements`), and
//! the scheduling's node selector and tolerations follow a pod's rules.

use serde_json::Value;

use super::errors::{Errors, check_labels, dns1123_label, forbidden, immutable, invalid_str};
use crate::support::meta::qualified_name_errors;
use crate::support::quantity::Quantity;

/// The resources a container may name without a domain.
const CONTAINER_RESOURCES: &[&str] = &["cpu", "memory", "ephemeral-storage"];

/// `IsStandardResourceName`'s names without a domain (hugepages aside).
const STANDARD_RESOURCES: &[&str] = &[
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
const INTEGER_RESOURCES: &[&str] = &[
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

/// `ValidateRuntimeClass` past the object meta: handler, overhead, scheduling.
pub fn runtime_class(object: &Value) -> Errors {
    let handler = object["handler"].as_str().unwrap_or_default();
    let mut out: Errors = dns1123_label(handler)
        .iter()
        .map(|why| invalid_str("handler", handler, why))
        .collect();
    if let Some(fixed) = object["overhead"]["podFixed"].as_object() {
        out.extend(overhead(fixed));
    }
    let scheduling = &object["scheduling"];
    if scheduling.is_object() {
        if let Some(selector) = scheduling["nodeSelector"].as_object() {
            out.extend(check_labels("scheduling.nodeSelector", Some(selector)));
        }
        // The real server nests the list's path twice.
        let path = "scheduling.tolerations.tolerations";
        out.extend(super::pod::tolerations(&scheduling["tolerations"], path));
    }
    out
}

/// `ValidateRuntimeClassUpdate` past the object meta: the handler never changes.
pub fn runtime_class_update(object: &Value, old: &Value) -> Errors {
    if object["handler"] != old["handler"] {
        return vec![immutable("handler", &object["handler"])];
    }
    Vec::new()
}

/// The pod overhead as a container's limits: each resource's name and quantity, a
/// hugepage size's multiples, and hugepages only with cpu or memory.
fn overhead(fixed: &serde_json::Map<String, Value>) -> Errors {
    let mut out = Vec::new();
    let (mut hugepages, mut cpu_or_memory) = (false, false);
    for (name, amount) in fixed {
        let field = format!("overhead.limits[{name}]");
        out.extend(container_resource_name(name, &field));
        let Some(q) = Quantity::from_json(amount) else {
            continue;
        };
        if q.nanos < 0 {
            let why = "must be greater than or equal to 0";
            out.push(invalid_str(&field, &q.to_string(), why));
        }
        if is_integer_resource(name) && q.nanos % 1_000_000_000 != 0 {
            out.push(invalid_str(&field, &q.to_string(), "must be an integer"));
        }
        if let Some(size) = name.strip_prefix("hugepages-") {
            hugepages = true;
            let page = Quantity::parse(size).map_or(0, |p| p.nanos);
            // `Value()` rounds up to a whole number.
            let whole = (q.nanos + 999_999_999).div_euclid(1_000_000_000) * 1_000_000_000;
            if page > 0 && whole % page != 0 {
                let why = format!("{q} is not positive integer multiple of {name}");
                out.push(invalid_str(&field, &q.to_string(), &why));
            }
        }
        cpu_or_memory |= matches!(name.as_str(), "cpu" | "memory");
    }
    if hugepages && !cpu_or_memory {
        out.push(forbidden("overhead", "HugePages require cpu or memory"));
    }
    out
}

/// `validateContainerResourceName`: a qualified name; without a domain a standard
/// resource of containers, with one a native or an extended resource's name.
fn container_resource_name(name: &str, field: &str) -> Errors {
    let mut out: Errors = qualified_name_errors(name)
        .iter()
        .map(|why| invalid_str(field, name, why))
        .collect();
    let hugepages = name.starts_with("hugepages-");
    if !name.contains('/') {
        if out.is_empty() && !STANDARD_RESOURCES.contains(&name) && !hugepages {
            let why = "must be a standard resource type or fully qualified";
            out.push(invalid_str(field, name, why));
        }
        if !CONTAINER_RESOURCES.contains(&name) && !hugepages {
            out.push(invalid_str(
                field,
                name,
                "must be a standard resource for containers",
            ));
        }
    } else if !name.contains("kubernetes.io/") && !is_extended(name) {
        let why = "doesn't follow extended resource name standard";
        out.push(invalid_str(field, name, why));
    }
    out
}

/// `IsExtendedResourceName`: not native, and `requests.<name>` a qualified name.
fn is_extended(name: &str) -> bool {
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    !native
        && !name.starts_with("requests.")
        && qualified_name_errors(&format!("requests.{name}")).is_empty()
}

/// `IsIntegerResourceName`: counted standard resources and extended resources.
fn is_integer_resource(name: &str) -> bool {
    INTEGER_RESOURCES.contains(&name) || is_extended(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn overhead_and_scheduling_follow_the_real_rules() {
        let rc = json!({"handler": "Bad_H", "overhead": {"podFixed": {"cpu": "-1", "foo": "1"}},
            "scheduling": {"nodeSelector": {"Bad Key": "v"},
                "tolerations": [{"key": "k", "operator": "Equal", "effect": "Nope"}]}});
        let fields: Vec<String> = runtime_class(&rc).into_iter().map(|c| c.field).collect();
        assert_eq!(
            fields,
            [
                "handler",
                "overhead.limits[cpu]",
                "overhead.limits[foo]",
                "overhead.limits[foo]",
                "scheduling.nodeSelector",
                "scheduling.tolerations.tolerations[0].effect"
            ]
        );
    }

    #[test]
    fn hugepages_need_cpu_or_memory() {
        let rc = json!({"handler": "h", "overhead": {"podFixed": {"hugepages-2Mi": "1Mi"}}});
        let messages: Vec<String> = runtime_class(&rc).into_iter().map(|c| c.message).collect();
        assert_eq!(
            messages,
            [
                "Invalid value: \"1Mi\": 1Mi is not positive integer multiple of hugepages-2Mi",
                "Forbidden: HugePages require cpu or memory"
            ]
        );
    }
}
