//! Tolerations (`ValidateTolerations` of kube-apiserver v1.34), of a pod spec, of the
//! tolerations annotation of a pod or pod template, and of a RuntimeClass's scheduling.

use serde_json::Value;

use super::errors::{Errors, child, index, invalid_str, not_supported};
use crate::support::meta::{label_key_errors, label_value_error};

const TOLERATION_OPERATORS: &[&str] = &["Equal", "Exists"];
const TAINT_EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// `IsValidLabelValue`: its length, then its characters (both may be wrong).
fn label_value_errors(value: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if value.len() > 63 {
        out.push("must be no more than 63 characters");
    }
    let b = value.as_bytes();
    let well_formed = b.is_empty()
        || (b
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
            && b[0].is_ascii_alphanumeric()
            && b[b.len() - 1].is_ascii_alphanumeric());
    if !well_formed {
        // The rule's text, as the label value check words it for any malformed value.
        out.extend(label_value_error("-"));
    }
    out
}

/// `validateTolerations` of the list at `path`: a key is a qualified name, an empty key
/// needs `Exists`, `tolerationSeconds` needs `NoExecute`, an `Equal` (or empty) operator's
/// value is a label value, `Exists` has none, and the effect is a taint effect.
pub fn tolerations(list: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for (i, t) in items(list).iter().enumerate() {
        let at = index(path, i);
        let (key, operator) = (text(t, "key"), text(t, "operator"));
        let (value, effect) = (text(t, "value"), text(t, "effect"));
        for why in label_key_errors(key).iter().filter(|_| !key.is_empty()) {
            out.push(invalid_str(&child(&at, "key"), key, why));
        }
        if key.is_empty() && operator != "Exists" {
            out.push(invalid_str(
                &child(&at, "operator"),
                operator,
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if !t["tolerationSeconds"].is_null() && effect != "NoExecute" {
            out.push(invalid_str(
                &child(&at, "effect"),
                effect,
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        match operator {
            "Equal" | "" => {
                let why = label_value_errors(value);
                if !why.is_empty() {
                    out.push(invalid_str(&child(&at, "operator"), value, &why.join(";")));
                }
            }
            "Exists" if !value.is_empty() => out.push(invalid_str(
                &child(&at, "operator"),
                value,
                "value must be empty when `operator` is 'Exists'",
            )),
            "Exists" => {}
            other => out.push(not_supported(
                &child(&at, "operator"),
                other,
                TOLERATION_OPERATORS,
            )),
        }
        if !effect.is_empty() && !TAINT_EFFECTS.contains(&effect) {
            out.push(not_supported(&child(&at, "effect"), effect, TAINT_EFFECTS));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tolerations_follow_the_real_rules() {
        let list = json!([
            {"key": "example.com/k", "operator": "Equal", "value": "v", "effect": "NoSchedule"},
            {"operator": "Exists"},
            {"key": "a b"},
            {"effect": "NoSchedule", "tolerationSeconds": 1},
            {"key": "k", "operator": "Exists", "value": "v"},
            {"key": "k", "value": "-".repeat(64)},
            {"key": "k", "operator": "Gt", "effect": "Never"},
        ]);
        let found: Vec<String> = tolerations(&list, "spec.tolerations")
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        assert_eq!(found.len(), 7, "{found:#?}");
        assert!(found[0].starts_with("spec.tolerations[2].key: Invalid value: \"a b\": name part"));
        assert!(found[1].starts_with(
            "spec.tolerations[3].operator: Invalid value: \"\": operator must be Exists"
        ));
        assert_eq!(
            found[2],
            "spec.tolerations[3].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"
        );
        assert_eq!(
            found[3],
            "spec.tolerations[4].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"
        );
        assert!(found[4].contains(": must be no more than 63 characters;a valid label must be"));
        assert_eq!(
            found[5],
            "spec.tolerations[6].operator: Unsupported value: \"Gt\": supported values: \"Equal\", \"Exists\""
        );
        assert!(found[6].starts_with("spec.tolerations[6].effect: Unsupported value: \"Never\""));
    }
}
