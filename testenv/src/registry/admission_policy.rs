//! Validation of ValidatingAdmissionPolicies and their bindings on write, with the real
//! server's messages: every CEL expression must compile for the policy's variables, a
//! binding must name its policy and at least one validation action.

use serde_json::Value;

use crate::registry::schema::{CelError, compile_expression};
use crate::support::resource::ResourceDef;
use crate::support::status::Cause;

/// The variables a policy's expressions may use (`params` with a `paramKind` only).
const ROOTS: &[&str] = &[
    "object",
    "oldObject",
    "request",
    "params",
    "namespaceObject",
    "variables",
    "authorizer",
];

/// The variables of a policy's expressions: `params` only when the policy has a
/// `paramKind`, as the real server declares it.
fn roots(spec: &Value) -> Vec<&'static str> {
    let with_params = spec["paramKind"].is_object();
    ROOTS
        .iter()
        .copied()
        .filter(|r| with_params || *r != "params")
        .collect()
}

fn compile_cause(field: String, src: &str, roots: &[&str]) -> Option<Cause> {
    match compile_expression(src, roots) {
        Err(CelError::Compile(m)) => Some(Cause {
            reason: "FieldValueInvalid".into(),
            message: format!(
                "Invalid value: {}: compilation failed: {m}",
                crate::support::go_quote::go_quote(src)
            ),
            field,
        }),
        _ => None,
    }
}

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
            let roots = roots(spec);
            for (list, fields) in [
                ("validations", &["expression", "messageExpression"][..]),
                ("matchConditions", &["expression"][..]),
                ("variables", &["expression"][..]),
                ("auditAnnotations", &["valueExpression"][..]),
            ] {
                for (i, item) in spec[list].as_array().into_iter().flatten().enumerate() {
                    for field in fields {
                        if let Some(src) = item[*field].as_str() {
                            let at = format!("spec.{list}[{i}].{field}");
                            causes.extend(compile_cause(at, src, &roots));
                        }
                    }
                }
            }
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
