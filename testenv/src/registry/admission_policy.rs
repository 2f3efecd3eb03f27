//! Validation of ValidatingAdmissionPolicies and their bindings on write, with the real
//! server's messages: every CEL expression must compile and type-check with the declarations
//! the real server gives its field, a binding must name its policy and at least one
//! validation action.

use serde_json::Value;

use crate::registry::schema::cel_types::policy::{policy_errors, refusal};
use crate::support::resource::ResourceDef;
use crate::support::status::Cause;

fn required(field: &str, message: &str) -> Cause {
    Cause {
        reason: "FieldValueRequired".into(),
        message: format!("Required value: {message}"),
        field: field.into(),
    }
}

/// The field errors of a ValidatingAdmissionPolicy or a binding, if `def` is one of them.
pub fn check(def: &ResourceDef, object: &Value) -> Vec<Cause> {
    if def.group != "admissionregistration.k8s.io" {
        return Vec::new();
    }
    let spec = &object["spec"];
    let mut causes = Vec::new();
    match def.plural.as_str() {
        "validatingadmissionpolicies" => {
            causes.extend(policy_errors(spec).iter().map(|e| {
                let (reason, message) = refusal(&e.expression, &e.detail);
                Cause {
                    reason: reason.into(),
                    message,
                    field: e.field.clone(),
                }
            }));
        }
        "validatingadmissionpolicybindings" => {
            if spec["policyName"].as_str().is_none_or(str::is_empty) {
                causes.push(required("spec.policyName", ""));
            }
            if spec["validationActions"]
                .as_array()
                .is_none_or(Vec::is_empty)
            {
                causes.push(required(
                    "spec.validationActions",
                    "at least one validation action is required",
                ));
            }
        }
        _ => {}
    }
    for c in &mut causes {
        if c.message.ends_with(": ") {
            c.message.truncate(c.message.len() - 2);
        }
    }
    causes
}
