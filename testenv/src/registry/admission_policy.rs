//! Validation of ValidatingAdmissionPolicies and their bindings on write, with the real
//! server's messages: the spec's rules, and every CEL expression must compile and type-check
//! with the declarations the real server gives its field (a binding's fields are the built-in
//! validation's, in `builtin::validation::admission_binding`).

use serde_json::Value;

use crate::registry::builtin::validation::admission_policy_spec;
use crate::registry::schema::cel_types::policy::{policy_errors, refusal};
use crate::support::resource::ResourceDef;
use crate::support::status::Cause;

/// The field errors of a ValidatingAdmissionPolicy, if `def` is a policy: its spec's rules
/// (`builtin::validation::admission_policy_spec`), each expression's compilation error in
/// its place among them.
pub fn check(def: &ResourceDef, object: &Value) -> Vec<Cause> {
    if def.group != "admissionregistration.k8s.io" || def.plural != "validatingadmissionpolicies" {
        return Vec::new();
    }
    let errors = policy_errors(&object["spec"]);
    let compiled = |field: &str| {
        errors.iter().find(|e| e.field == field).map(|e| {
            let (reason, mut message) = refusal(&e.expression, &e.detail);
            if message.ends_with(": ") {
                message.truncate(message.len() - 2);
            }
            Cause {
                reason: reason.into(),
                message,
                field: e.field.clone(),
            }
        })
    };
    admission_policy_spec::policy(object, &compiled)
}
