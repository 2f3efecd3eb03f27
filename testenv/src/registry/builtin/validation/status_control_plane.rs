//! The status rules of the control plane's own kinds: a FlowSchema's and a
//! PriorityLevelConfiguration's conditions (`ValidateFlowSchemaStatus`: each type set and
//! listed once) and an APIService's (`ValidateAPIServiceStatus`: each status one of the three
//! condition statuses) and a ValidatingAdmissionPolicy's (`ValidateValidatingAdmissionPolicyStatus`:
//! its type checking warnings, then its conditions). Their status strategies keep the stored
//! metadata, so only the status can be wrong.

use serde_json::Value;

use super::errors::{Errors, duplicate, index, not_supported, required};

/// The conditions of an API Priority and Fairness object: a type seen before, then a type
/// that is empty.
pub fn flow_conditions(object: &Value) -> Errors {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, c) in object["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let field = format!("{}.type", index("status.conditions", i));
        let kind = c["type"].as_str().unwrap_or_default();
        if !seen.insert(kind.to_string()) {
            out.push(duplicate(&field, &kind.into()));
        }
        if kind.is_empty() {
            out.push(required(&field));
        }
    }
    out
}

/// The conditions of an APIService: each status `True`, `False` or `Unknown`.
pub fn api_service(object: &Value) -> Errors {
    object["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, c)| {
            let status = c["status"].as_str().unwrap_or_default();
            (!matches!(status, "True" | "False" | "Unknown")).then(|| {
                not_supported(
                    &format!("{}.status", index("status.conditions", i)),
                    status,
                    &["True", "False", "Unknown"],
                )
            })
        })
        .collect()
}

/// A ValidatingAdmissionPolicy's status: each type checking warning with its text and field,
/// then the conditions as every `metav1.Condition` list is checked.
pub fn validating_admission_policy(object: &Value) -> Errors {
    let status = &object["status"];
    let mut out = Vec::new();
    for (i, w) in status["typeChecking"]["expressionWarnings"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = index("status.typeChecking.expressionWarnings", i);
        for field in ["warning", "fieldRef"] {
            if w[field].as_str().unwrap_or_default().is_empty() {
                out.push(required(&format!("{at}.{field}")));
            }
        }
    }
    out.extend(super::status_policy::conditions(
        &status["conditions"],
        "status.conditions",
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use super::super::errors::field_messages as messages;

    #[test]
    fn flow_conditions_are_named_once() {
        let plc = json!({"status": {"conditions": [{"type": ""}, {"type": ""}, {"type": "A"}]}});
        assert_eq!(
            messages(&flow_conditions(&plc)),
            [
                "status.conditions[0].type: Required value",
                "status.conditions[1].type: Duplicate value: \"\"",
                "status.conditions[1].type: Required value",
            ]
        );
    }

    #[test]
    fn policy_warnings_name_their_field() {
        let vap = json!({"status": {"typeChecking": {"expressionWarnings": [{"fieldRef": "", "warning": ""}]},
            "conditions": [{"type": "A", "status": "True", "reason": "R", "lastTransitionTime": "t"}]}});
        assert_eq!(
            messages(&validating_admission_policy(&vap)),
            [
                "status.typeChecking.expressionWarnings[0].warning: Required value",
                "status.typeChecking.expressionWarnings[0].fieldRef: Required value",
            ]
        );
    }

    #[test]
    fn api_service_conditions_have_a_known_status() {
        let svc = json!({"status": {"conditions": [{"type": "", "status": "Bogus"},
            {"type": "Available", "status": "True"}, {"type": "Available", "status": "False"}]}});
        assert_eq!(
            messages(&api_service(&svc)),
            [
                "status.conditions[0].status: Unsupported value: \"Bogus\": supported values: \"True\", \"False\", \"Unknown\""
            ]
        );
    }
}
