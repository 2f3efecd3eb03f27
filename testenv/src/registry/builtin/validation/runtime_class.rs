//! RuntimeClasses (`ValidateRuntimeClass`, `ValidateRuntimeClassUpdate`): the handler is a
//! DNS label that never changes, the pod overhead is a container's resource limits
//! (`overhead.limits[...]`, as the real server reuses `ValidateResourceRequirements`), and
//! the scheduling's node selector and tolerations follow a pod's rules.

use serde_json::Value;

use super::errors::{Errors, check_labels, dns1123_label, immutable, invalid_str};

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

/// The pod overhead as a container's limits (`overhead.limits[...]`).
fn overhead(fixed: &serde_json::Map<String, Value>) -> Errors {
    let limits = serde_json::json!({ "limits": fixed });
    super::resources::requirements(&limits, "overhead", None)
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
