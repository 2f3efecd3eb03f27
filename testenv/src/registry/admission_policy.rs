//! Validation of ValidatingAdmissionPolicies and their bindings on write, with the real
//! server's messages: every CEL expression must compile and type-check with the declarations
//! the real server gives its field (a binding's fields are the built-in validation's, in
//! `builtin::validation::admission_binding`).

use serde_json::Value;

use crate::registry::schema::cel_types::policy::{policy_errors, refusal};
use crate::support::resource::ResourceDef;
use crate::support::status::Cause;

/// The field errors of a ValidatingAdmissionPolicy's expressions, if `def` is a policy.
pub fn check(def: &ResourceDef, object: &Value) -> Vec<Cause> {
    if def.group != "admissionregistration.k8s.io" || def.plural != "validatingadmissionpolicies" {
        return Vec::new();
    }
    let mut causes: Vec<Cause> = policy_errors(&object["spec"])
        .iter()
        .map(|e| {
            let (reason, message) = refusal(&e.expression, &e.detail);
            Cause {
                reason: reason.into(),
                message,
                field: e.field.clone(),
            }
        })
        .collect();
    for c in &mut causes {
        if c.message.ends_with(": ") {
            c.message.truncate(c.message.len() - 2);
        }
    }
    causes
}
