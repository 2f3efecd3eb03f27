//! `scheduling.k8s.io/v1` PriorityClass (`ValidatePriorityClass`): a `system-` name is one
//! of the server's own classes with their value and `globalDefault`, another class stays
//! below the system range, and `preemptionPolicy` is one the scheduler knows.

use serde_json::Value;

use super::errors::{Errors, forbidden, immutable, not_supported, required};

/// The PriorityClasses the server creates itself, with their value and `globalDefault`:
/// the only names with the `system-` prefix a create may use.
const SYSTEM_PRIORITY_CLASSES: &[(&str, i64, bool)] = &[
    ("system-node-critical", 2_000_001_000, false),
    ("system-cluster-critical", 2_000_000_000, false),
];

/// The highest value a PriorityClass not made by the server may have.
const HIGHEST_USER_PRIORITY: i64 = 1_000_000_000;

/// The preemption policies a PriorityClass (or a pod) may name.
const PREEMPTION_POLICIES: &[&str] = &["PreemptLowerPriority", "Never"];

/// The errors of a PriorityClass's create past its metadata, in the real server's order:
/// the `system-` name (or the value of another), then the preemption policy.
pub fn priority_class(object: &Value) -> Errors {
    let mut out = Vec::new();
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let value = object["value"].as_i64().unwrap_or_default();
    if name.starts_with("system-") {
        if let Some(why) = unknown_system_class(name, value, object["globalDefault"] == true) {
            out.push(forbidden(
                "metadata.name",
                &format!(
                    "priority class names with 'system-' prefix are reserved for system use only. error: {why}"
                ),
            ));
        }
    } else if value > HIGHEST_USER_PRIORITY {
        out.push(forbidden(
            "value",
            &format!("maximum allowed value of a user defined priority is {HIGHEST_USER_PRIORITY}"),
        ));
    }
    out.extend(preemption_policy(object.get("preemptionPolicy")));
    out
}

/// The errors of a PriorityClass's update past its metadata (`ValidatePriorityClassUpdate`,
/// which does not validate the class again): its value and preemption policy stay.
pub fn priority_class_update(object: &Value, old: &Value) -> Errors {
    let mut out = Vec::new();
    if object["value"].as_i64().unwrap_or_default() != old["value"].as_i64().unwrap_or_default() {
        out.push(forbidden("value", "may not be changed in an update."));
    }
    let policy = object
        .get("preemptionPolicy")
        .cloned()
        .unwrap_or(Value::Null);
    if policy != old.get("preemptionPolicy").cloned().unwrap_or(Value::Null) {
        out.push(immutable("preemptionPolicy", &policy));
    }
    out
}

/// Why a `system-` class is not one of the server's own (`IsKnownSystemPriorityClass`), or
/// `None` when it is.
fn unknown_system_class(name: &str, value: i64, global_default: bool) -> Option<String> {
    let Some(&(known, known_value, known_default)) =
        SYSTEM_PRIORITY_CLASSES.iter().find(|c| c.0 == name)
    else {
        return Some(format!("{name} is not a known system priority class"));
    };
    if value != known_value {
        return Some(format!(
            "value of {known} PriorityClass must be {known_value}"
        ));
    }
    if global_default != known_default {
        return Some(format!(
            "globalDefault of {known} PriorityClass must be {known_default}"
        ));
    }
    None
}

/// `ValidatePreemptionPolicy` of a set `preemptionPolicy` (defaulting writes one when it is
/// absent, so only an explicit empty or unknown value is refused).
fn preemption_policy(policy: Option<&Value>) -> Errors {
    let Some(policy) = policy.filter(|p| !p.is_null()) else {
        return Vec::new();
    };
    match policy.as_str().unwrap_or_default() {
        "" => vec![required("preemptionPolicy")],
        p if PREEMPTION_POLICIES.contains(&p) => Vec::new(),
        p => vec![not_supported("preemptionPolicy", p, PREEMPTION_POLICIES)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(object: Value) -> Vec<String> {
        priority_class(&object)
            .into_iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    #[test]
    fn a_system_class_keeps_its_value_and_default() {
        let ok = json!({"metadata": {"name": "system-node-critical"}, "value": 2_000_001_000});
        assert!(fields(ok).is_empty());
        let wrong = json!({"metadata": {"name": "system-cluster-critical"}, "value": 2_000_000_000, "globalDefault": true});
        assert_eq!(
            fields(wrong),
            [
                "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must be false"
            ]
        );
    }

    #[test]
    fn the_name_comes_before_the_preemption_policy() {
        let bad = json!({"metadata": {"name": "system-x"}, "value": 1, "preemptionPolicy": "Bad"});
        let got = fields(bad);
        assert!(got[0].starts_with("metadata.name: Forbidden"));
        assert_eq!(
            got[1],
            "preemptionPolicy: Unsupported value: \"Bad\": supported values: \"PreemptLowerPriority\", \"Never\""
        );
        let empty = json!({"metadata": {"name": "p"}, "value": 1, "preemptionPolicy": ""});
        assert_eq!(fields(empty), ["preemptionPolicy: Required value"]);
    }
}
