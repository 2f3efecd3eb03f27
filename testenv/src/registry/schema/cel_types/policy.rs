//! The expressions of a ValidatingAdmissionPolicy and of a webhook's `matchConditions`
//! compiled as kube-apiserver compiles them when the object is written, in its order and with
//! its declarations per field:
//!
//! - `matchConditions`: `params` with a `paramKind`, `authorizer`, no `variables`; a bool;
//! - `variables`, in order: each sees the earlier ones as fields of `variables` (with their
//!   expressions' types, `dyn` for one that did not compile); any type;
//! - `validations[].expression`: `variables` only when the policy has some; a bool;
//! - `validations[].messageExpression`: no `authorizer`; a string;
//! - `auditAnnotations[].valueExpression`: a string or null.
//!
//! A webhook's match condition is [`compile`]d with neither `params` nor `variables`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

use super::super::cel_check::check_references_in;
use super::admission::{AdmissionDecls, AdmissionRefusal, Want, check_admission, variable_type};
use super::checking_env;
use super::types::Type;

/// An expression the real server refuses, with its field error's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpressionError {
    /// The field (`spec.validations[0].expression`).
    pub field: String,
    /// The value the error quotes (the expression, trimmed where the real server trims it).
    pub expression: String,
    /// The detail: `compilation failed: ERROR: <input>:1:1: ...` or `must evaluate to bool
    /// but got int`; `program instantiation failed: ...` when the expression compiled but
    /// its program could not be planned (a constant pattern Go's `regexp` refuses), which the
    /// real server reports as an internal error of the field (cause `InternalError`,
    /// `Internal error: <detail>`) rather than an invalid value.
    pub detail: String,
}

/// The reason and message of the field error refusing `expression` with `detail`: an
/// internal error when its program could not be planned, else an invalid value.
pub fn refusal(expression: &str, detail: &str) -> (&'static str, String) {
    if detail.starts_with("program instantiation failed: ") {
        ("InternalError", format!("Internal error: {detail}"))
    } else {
        let quoted = crate::support::go_quote::go_quote(expression);
        (
            "FieldValueInvalid",
            format!("Invalid value: {quoted}: {detail}"),
        )
    }
}

/// Compiles `source` with `decls`, wanting `want`: the result type, or the refusal's detail.
pub fn compile(source: &str, decls: &AdmissionDecls, want: Want) -> Result<Type, String> {
    super::super::cel::on_large_stack(|| {
        let program = checking_env().compile(source).map_err(|e| {
            format!(
                "compilation failed: {}",
                e.to_string().replace("\n| ", "\n | ")
            )
        })?;
        let result = check_admission(source, decls, want).map_err(|r| match r {
            AdmissionRefusal::Compile(m) => format!("compilation failed: {m}"),
            AdmissionRefusal::ResultType(m) => m,
        })?;
        let mut names = vec!["object", "oldObject", "request", "namespaceObject"];
        names.extend(decls.params.then_some("params"));
        names.extend(decls.authorizer.then_some("authorizer"));
        names.extend(decls.variables.is_some().then_some("variables"));
        check_references_in(program.expression(), &names)
            .map_err(|e| format!("compilation failed: ERROR: <input>: {e}"))?;
        if let Some(e) = super::regex_constants::regex_constant_error(program.expression()) {
            return Err(e);
        }
        Ok(result)
    })
}

fn items<'a>(spec: &'a Value, list: &str) -> impl Iterator<Item = (usize, &'a Value)> {
    spec[list].as_array().into_iter().flatten().enumerate()
}

/// The expressions of a ValidatingAdmissionPolicy's `spec` that the real server refuses, in
/// its order (cached by the spec's text: policies are few and evaluated on every write they
/// match).
pub fn policy_errors(spec: &Value) -> Arc<Vec<ExpressionError>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Vec<ExpressionError>>>>> = OnceLock::new();
    let key = spec.to_string();
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(found) = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&key)
    {
        return found.clone();
    }
    let errors = Arc::new(errors_of(spec));
    let mut cache = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if cache.len() >= 1024 {
        cache.clear();
    }
    cache.insert(key, errors.clone());
    errors
}

fn errors_of(spec: &Value) -> Vec<ExpressionError> {
    let params = spec["paramKind"].is_object();
    let mut errors = Vec::new();
    let mut check = |field: String, source: &str, quoted: &str, decls: &AdmissionDecls, want| {
        let result = compile(source, decls, want);
        if let Err(detail) = &result {
            errors.push(ExpressionError {
                field,
                expression: quoted.to_string(),
                detail: detail.clone(),
            });
        }
        result.unwrap_or(Type::Dyn)
    };
    let conditions = AdmissionDecls {
        params,
        authorizer: true,
        variables: None,
    };
    for (i, c) in items(spec, "matchConditions") {
        let source = c["expression"].as_str().unwrap_or_default().trim();
        if !source.is_empty() {
            let field = format!("spec.matchConditions[{i}].expression");
            check(field, source, source, &conditions, Want::Bool);
        }
    }
    let has_variables = items(spec, "variables").next().is_some();
    let mut decls = AdmissionDecls {
        params,
        authorizer: true,
        variables: has_variables.then(Vec::new),
    };
    for (i, v) in items(spec, "variables") {
        let source = v["expression"].as_str().unwrap_or_default();
        if source.trim().is_empty() {
            continue;
        }
        let field = format!("spec.variables[{i}].expression");
        let t = check(field, source, source, &decls, Want::Any);
        let name = v["name"].as_str().unwrap_or_default().to_string();
        if let Some(vars) = &mut decls.variables {
            vars.retain(|(n, _)| *n != name);
            vars.push((name, variable_type(&t)));
        }
    }
    let messages = AdmissionDecls {
        authorizer: false,
        ..decls.clone()
    };
    for (i, v) in items(spec, "validations") {
        let source = v["expression"].as_str().unwrap_or_default();
        if !source.trim().is_empty() {
            let field = format!("spec.validations[{i}].expression");
            check(field, source, source, &decls, Want::Bool);
        }
        let message = v["messageExpression"].as_str().unwrap_or_default();
        if !message.trim().is_empty() {
            let field = format!("spec.validations[{i}].messageExpression");
            check(field, message, message, &messages, Want::String);
        }
    }
    for (i, a) in items(spec, "auditAnnotations") {
        let quoted = a["valueExpression"].as_str().unwrap_or_default();
        let source = quoted.trim();
        if !source.is_empty() && source.len() <= 5 * 1024 {
            let field = format!("spec.auditAnnotations[{i}].valueExpression");
            check(field, source, quoted, &decls, Want::StringOrNull);
        }
    }
    errors
}
