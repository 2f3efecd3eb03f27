//! ValidatingAdmissionPolicies (`validateValidatingAdmissionPolicySpec`): the failure
//! policy, the parameter kind, the match constraints (as a binding's match resources, with
//! at least one resource rule), the match conditions, variables, validations and audit
//! annotations, in the real server's order. Each expression's compilation error is the
//! caller's (`registry::admission_policy`), placed where Go's check finds it.

use std::collections::HashSet;

use serde_json::Value;

use super::admission_binding::match_resources;
use super::errors::{
    Errors, child, duplicate, index, invalid, invalid_str, not_supported, required,
    required_because,
};
use crate::registry::schema::CEL_RESERVED;
use crate::registry::schema::names::dns1035_label;
use crate::support::meta::qualified_name_errors;
use crate::support::status::Cause;

const FAILURE_POLICIES: &[&str] = &["Fail", "Ignore"];
const REASONS: &[&str] = &["Forbidden", "Invalid", "RequestEntityTooLarge"];
/// More audit annotations than this are refused.
const MAX_AUDIT_ANNOTATIONS: usize = 20;
/// The longest audit annotation value expression (trimmed).
const MAX_VALUE_EXPRESSION: usize = 5 * 1024;

fn items<'a>(spec: &'a Value, list: &str) -> impl Iterator<Item = (usize, &'a Value)> {
    spec[list].as_array().into_iter().flatten().enumerate()
}

fn text<'a>(v: &'a Value, f: &str) -> &'a str {
    v[f].as_str().unwrap_or_default()
}

/// The field errors of a policy (`object`), with `compiled(field)` giving the compilation
/// error of the expression at `field`, if any.
pub fn policy(object: &Value, compiled: &dyn Fn(&str) -> Option<Cause>) -> Errors {
    let spec = &object["spec"];
    let mut out = Vec::new();
    match spec["failurePolicy"].as_str() {
        None => out.push(required("spec.failurePolicy")),
        Some(p) if !FAILURE_POLICIES.contains(&p) => {
            out.push(not_supported("spec.failurePolicy", p, FAILURE_POLICIES));
        }
        Some(_) => {}
    }
    if spec["paramKind"].is_object() {
        out.extend(param_kind(&spec["paramKind"]));
    }
    let constraints = &spec["matchConstraints"];
    if constraints.is_object() {
        out.extend(match_resources(constraints, "spec.matchConstraints"));
        if items(constraints, "resourceRules").next().is_none() {
            out.push(required("spec.matchConstraints.resourceRules"));
        }
    } else {
        out.push(required("spec.matchConstraints"));
    }
    out.extend(match_conditions(spec, compiled));
    for (i, v) in items(spec, "variables") {
        let at = index("spec.variables", i);
        let name = text(v, "name");
        if name.trim().is_empty() {
            out.push(required_because(
                &child(&at, "name"),
                "name is not specified",
            ));
        } else if !cel_identifier(name) {
            out.push(invalid_str(
                &child(&at, "name"),
                name,
                "must be a valid CEL identifier",
            ));
        }
        expression(
            &mut out,
            &child(&at, "expression"),
            text(v, "expression"),
            compiled,
        );
    }
    let no_validations = items(spec, "validations").next().is_none();
    if no_validations && items(spec, "auditAnnotations").next().is_none() {
        let why = "validations or auditAnnotations must contain at least one item";
        out.push(required_because("spec.validations", why));
        out.push(required_because("spec.auditAnnotations", why));
        return out;
    }
    for (i, v) in items(spec, "validations") {
        out.extend(validation(v, &index("spec.validations", i), compiled));
    }
    let annotations: Vec<(usize, &Value)> = items(spec, "auditAnnotations").collect();
    if annotations.len() > MAX_AUDIT_ANNOTATIONS {
        out.push(invalid(
            "spec.auditAnnotations",
            &spec["auditAnnotations"],
            &format!("must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations"),
        ));
    }
    let policy_name = object["metadata"]["name"].as_str().unwrap_or_default();
    let mut keys = HashSet::new();
    for (i, a) in annotations {
        let at = index("spec.auditAnnotations", i);
        out.extend(audit_annotation(a, policy_name, &at, compiled));
        let key = text(a, "key");
        if !keys.insert(key) {
            out.push(duplicate(&child(&at, "key"), &Value::from(key)));
        }
    }
    out
}

/// `validateParamKind`: an API version (a group that is a DNS subdomain, a version that is a
/// DNS-1035 label) and a kind (a DNS-1035 label in any case).
fn param_kind(kind: &Value) -> Errors {
    let mut out = Vec::new();
    let version_path = "spec.paramKind.apiVersion";
    let api_version = text(kind, "apiVersion");
    if api_version.is_empty() {
        out.push(required(version_path));
    } else if api_version.matches('/').count() > 1 {
        let why = format!("unexpected GroupVersion string: {api_version}");
        out.push(invalid_str(version_path, api_version, &why));
    } else {
        let (group, version) = match api_version.split_once('/') {
            _ if api_version == "/" => ("", ""),
            Some((g, v)) => (g, v),
            None => ("", api_version),
        };
        let group_errors = super::errors::dns1123_subdomain(group);
        if !group.is_empty() && !group_errors.is_empty() {
            out.push(invalid_str(version_path, group, &group_errors.join(",")));
        }
        if version.is_empty() {
            out.push(invalid_str(
                version_path,
                api_version,
                "version must be specified",
            ));
        } else {
            let errors = dns1035_label(version);
            if !errors.is_empty() {
                out.push(invalid_str(version_path, version, &errors.join(",")));
            }
        }
    }
    let kind_name = text(kind, "kind");
    if kind_name.is_empty() {
        out.push(required("spec.paramKind.kind"));
    } else {
        let errors = dns1035_label(&kind_name.to_lowercase());
        if !errors.is_empty() {
            let why = format!(
                "may have mixed case, but should otherwise match: {}",
                errors.join(",")
            );
            out.push(invalid_str("spec.paramKind.kind", kind_name, &why));
        }
    }
    out
}

/// `validateMatchConditions`: at most 64, each an expression and a qualified name, names
/// unique.
fn match_conditions(spec: &Value, compiled: &dyn Fn(&str) -> Option<Cause>) -> Errors {
    let mut out = Vec::new();
    let conditions: Vec<(usize, &Value)> = items(spec, "matchConditions").collect();
    if conditions.len() > 64 {
        out.push(Cause {
            reason: "FieldValueTooMany".into(),
            message: format!("Too many: {}: must have at most 64 items", conditions.len()),
            field: "spec.matchConditions".into(),
        });
    }
    let mut names = HashSet::new();
    for (i, c) in conditions {
        let at = index("spec.matchConditions", i);
        let expr_path = child(&at, "expression");
        if text(c, "expression").trim().is_empty() {
            out.push(required(&expr_path));
        } else {
            out.extend(compiled(&expr_path));
        }
        let name = text(c, "name");
        if name.is_empty() {
            out.push(required(&child(&at, "name")));
        } else {
            for why in qualified_name_errors(name) {
                out.push(invalid_str(&child(&at, "name"), name, &why));
            }
            if !names.insert(name) {
                out.push(duplicate(&child(&at, "name"), &Value::from(name)));
            }
        }
    }
    out
}

/// A required expression at `at`, or its compilation error.
fn expression(out: &mut Errors, at: &str, source: &str, compiled: &dyn Fn(&str) -> Option<Cause>) {
    if source.trim().is_empty() {
        out.push(required_because(at, "expression is not specified"));
    } else {
        out.extend(compiled(at));
    }
}

/// `validateValidation`: the expression, the message expression and message when set, and
/// a known reason.
fn validation(v: &Value, at: &str, compiled: &dyn Fn(&str) -> Option<Cause>) -> Errors {
    let mut out = Vec::new();
    expression(
        &mut out,
        &child(at, "expression"),
        text(v, "expression"),
        compiled,
    );
    let message_expression = text(v, "messageExpression");
    let path = child(at, "messageExpression");
    if !message_expression.is_empty() && message_expression.trim().is_empty() {
        out.push(invalid_str(
            &path,
            message_expression,
            "must be non-empty if specified",
        ));
    } else if !message_expression.trim().is_empty() {
        out.extend(compiled(&path));
    }
    let message = text(v, "message");
    let path = child(at, "message");
    if !message.is_empty() && message.trim().is_empty() {
        out.push(invalid_str(
            &path,
            message,
            "must be non-empty if specified",
        ));
    } else if message.trim().contains(['\n', '\r']) {
        out.push(invalid_str(&path, message, "must not contain line breaks"));
    }
    if let Some(reason) = v["reason"].as_str()
        && !REASONS.contains(&reason)
    {
        out.push(not_supported(&child(at, "reason"), reason, REASONS));
    }
    out
}

/// `validateAuditAnnotation`: a key that makes a qualified name after the policy's name, and
/// a value expression (at most 5 KiB, trimmed).
fn audit_annotation(
    a: &Value,
    policy_name: &str,
    at: &str,
    compiled: &dyn Fn(&str) -> Option<Cause>,
) -> Errors {
    let mut out = Vec::new();
    let key = text(a, "key");
    let key_path = child(at, "key");
    if policy_name.is_empty() {
        out.push(invalid_str(
            &key_path,
            key,
            "requires metadata.name be non-empty",
        ));
    } else {
        let qualified = format!("{policy_name}/{key}");
        for why in qualified_name_errors(&qualified) {
            out.push(invalid_str(&key_path, &qualified, &why));
        }
    }
    let value = text(a, "valueExpression").trim();
    let path = child(at, "valueExpression");
    if value.is_empty() {
        out.push(required_because(&path, "valueExpression is not specified"));
    } else if value.len() > MAX_VALUE_EXPRESSION {
        out.push(required_because(
            &path,
            &format!("must not exceed {MAX_VALUE_EXPRESSION} bytes in length"),
        ));
    } else {
        out.extend(compiled(&path));
    }
    out
}

/// Whether `name` is a CEL identifier (`[_a-zA-Z][_a-zA-Z0-9]*`, not a reserved word).
fn cel_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !CEL_RESERVED.contains(&name)
}
