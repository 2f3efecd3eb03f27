//! The status rules of a PodDisruptionBudget's status update
//! (`ValidatePodDisruptionBudgetStatusUpdate`: its conditions as apimachinery checks every
//! `metav1.Condition` list, `ValidateConditions`, then its counts) and of a
//! HorizontalPodAutoscaler's (its replica counts; its conditions are not checked).

use serde_json::Value;

use super::errors::{Errors, check_nonnegative, duplicate, invalid, invalid_str, not_supported};
use super::errors::{index, required};
use crate::support::meta::qualified_name_errors;

/// Why a condition's reason is refused (apimachinery's `conditionReasonFmt`).
const BAD_REASON: &str = "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')";

/// Whether `reason` matches `[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?`.
fn good_reason(reason: &str) -> bool {
    let b = reason.as_bytes();
    let inner = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b',' | b':');
    let last = b[b.len() - 1];
    b[0].is_ascii_alphabetic()
        && b.iter().all(inner)
        && (b.len() == 1 || last.is_ascii_alphanumeric() || last == b'_')
}

/// The errors of one `metav1.Condition` at `path`.
fn condition(c: &Value, path: &str) -> Errors {
    let text = |f: &str| c[f].as_str().unwrap_or_default();
    let mut out = Vec::new();
    let kind = text("type");
    for why in qualified_name_errors(kind) {
        out.push(invalid_str(&format!("{path}.type"), kind, &why));
    }
    let status = text("status");
    if !matches!(status, "True" | "False" | "Unknown") {
        out.push(not_supported(
            &format!("{path}.status"),
            status,
            &["False", "True", "Unknown"],
        ));
    }
    if let Some(g) = c["observedGeneration"].as_i64()
        && g < 0
    {
        out.push(invalid(
            &format!("{path}.observedGeneration"),
            &g.into(),
            "must be greater than or equal to zero",
        ));
    }
    if text("lastTransitionTime").is_empty() {
        out.push(required(&format!("{path}.lastTransitionTime")));
    }
    let reason = text("reason");
    if reason.is_empty() {
        out.push(required(&format!("{path}.reason")));
    } else if !good_reason(reason) {
        out.push(invalid_str(&format!("{path}.reason"), reason, BAD_REASON));
    }
    out
}

/// `ValidateConditions` of the list at `path`: each condition, then a type seen before.
pub fn conditions(list: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, c) in list.as_array().into_iter().flatten().enumerate() {
        let at = index(path, i);
        out.extend(condition(c, &at));
        let kind = c["type"].as_str().unwrap_or_default();
        if !seen.insert(kind.to_string()) {
            out.push(duplicate(&format!("{at}.type"), &kind.into()));
        }
    }
    out
}

/// A PodDisruptionBudget's status: its conditions, then its counts.
pub fn pod_disruption_budget(object: &Value) -> Errors {
    let status = &object["status"];
    let mut out = conditions(&status["conditions"], "status.conditions");
    for f in [
        "disruptionsAllowed",
        "currentHealthy",
        "desiredHealthy",
        "expectedPods",
    ] {
        out.extend(check_nonnegative(&format!("status.{f}"), status.get(f)));
    }
    out
}

/// A HorizontalPodAutoscaler's status: the current and desired replicas not negative.
pub fn horizontal_pod_autoscaler(object: &Value) -> Errors {
    let status = &object["status"];
    ["currentReplicas", "desiredReplicas"]
        .iter()
        .flat_map(|f| check_nonnegative(&format!("status.{f}"), status.get(*f)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn conditions_are_checked_one_by_one_then_for_duplicates() {
        let list = json!([
            {"type": "bad!", "status": "Bogus"},
            {"type": "A", "status": "True", "reason": "R", "lastTransitionTime": "t"},
            {"type": "A", "status": "True", "reason": "bad reason!", "lastTransitionTime": "t",
             "observedGeneration": -1}
        ]);
        let fields: Vec<String> = conditions(&list, "status.conditions")
            .into_iter()
            .map(|c| format!("{} {}", c.field, c.reason))
            .collect();
        assert_eq!(
            fields,
            [
                "status.conditions[0].type FieldValueInvalid",
                "status.conditions[0].status FieldValueNotSupported",
                "status.conditions[0].lastTransitionTime FieldValueRequired",
                "status.conditions[0].reason FieldValueRequired",
                "status.conditions[2].observedGeneration FieldValueInvalid",
                "status.conditions[2].reason FieldValueInvalid",
                "status.conditions[2].type FieldValueDuplicate",
            ]
        );
        assert!(good_reason("A") && good_reason("Reason_A:B,c_") && !good_reason("A-"));
    }
}
