//! One ValidatingAdmissionPolicy evaluated for one request (and one params object): its
//! `matchConditions`, then its `variables` (in order, each seeing the earlier ones), then
//! each validation, with the real server's messages. `authorizer` and
//! `authorizer.requestResource` are bound to the server's authorizer and the requesting
//! user when the inputs carry them.

use std::collections::HashMap;

use serde_json::Value;

use crate::registry::schema::cel_types::policy::{ExpressionError, policy_errors};
use crate::registry::schema::{CelError, compile_expression, eval_expression, json_to_cel};

/// The root variables of a policy's expressions.
pub const ROOTS: &[&str] = &[
    "object",
    "oldObject",
    "request",
    "params",
    "namespaceObject",
    "variables",
    "authorizer",
];

/// A validation that did not pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// What the request is told.
    pub message: String,
    /// The `Status` reason: `Invalid` (the default), `Forbidden`, `Unauthorized`,
    /// `RequestEntityTooLarge`.
    pub reason: String,
}

/// The CEL inputs of one evaluation.
pub struct Inputs<'a> {
    /// `object`, `oldObject`, `request`, `params`, `namespaceObject` as JSON.
    pub object: &'a Value,
    /// The stored object (null on create).
    pub old_object: &'a Value,
    /// The admission request attributes.
    pub request: &'a Value,
    /// The params object (null without one).
    pub params: &'a Value,
    /// The namespace object (null for cluster-scoped objects).
    pub namespace_object: &'a Value,
    /// `authorizer` and `authorizer.requestResource` (unbound without them: an expression
    /// that uses them then fails to evaluate).
    pub authorizer: Option<&'a [(&'static str, cel::Value)]>,
}

fn eval(src: &str, vars: &[(&str, cel::Value)]) -> Result<cel::Value, CelError> {
    let expression = compile_expression(src, ROOTS)?;
    eval_expression(&expression, vars)
}

/// The compile error of the expression at `field`, if the policy's compilation (with the
/// declarations the real server gives that field) refused it.
fn refused(errors: &[ExpressionError], field: &str) -> Option<CelError> {
    errors.iter().find(|e| e.field == field).map(|e| {
        let detail = e.detail.strip_prefix("compilation failed: ");
        CelError::Compile(detail.unwrap_or(&e.detail).to_string())
    })
}

fn error_text(e: &CelError) -> String {
    match e {
        CelError::Compile(m) => format!("compilation error: {m}"),
        CelError::Runtime(m) | CelError::Unsupported(m) => m.clone(),
    }
}

/// The violations of `policy` for `inputs` (empty when it passes or its match conditions
/// exclude the request); with `failurePolicy: Ignore` an expression that fails to evaluate
/// is skipped, otherwise it is a violation.
pub fn evaluate(policy: &Value, inputs: &Inputs<'_>) -> Vec<Violation> {
    let spec = &policy["spec"];
    let ignore_errors = spec["failurePolicy"] == "Ignore";
    let mut vars: Vec<(&str, cel::Value)> = vec![
        ("object", json_to_cel(inputs.object)),
        ("oldObject", json_to_cel(inputs.old_object)),
        ("request", json_to_cel(inputs.request)),
        ("params", json_to_cel(inputs.params)),
        ("namespaceObject", json_to_cel(inputs.namespace_object)),
    ];
    vars.extend(inputs.authorizer.into_iter().flatten().cloned());
    let error_violation = |src: &str, why: String| Violation {
        message: format!("expression '{src}' resulted in error: {why}"),
        reason: "Invalid".into(),
    };
    let compiled = policy_errors(spec);
    let checked_eval =
        |field: String, src: &str, vars: &[(&str, cel::Value)]| match refused(&compiled, &field) {
            Some(e) => Err(e),
            None => eval(src, vars),
        };
    let items = |list: &str| spec[list].as_array().into_iter().flatten().enumerate();
    for (i, condition) in items("matchConditions") {
        let src = condition["expression"].as_str().unwrap_or_default();
        match checked_eval(format!("spec.matchConditions[{i}].expression"), src, &vars) {
            Ok(cel::Value::Bool(true)) => {}
            Ok(cel::Value::Bool(false)) => return Vec::new(),
            Ok(_) | Err(_) if ignore_errors => return Vec::new(),
            Ok(other) => return vec![error_violation(src, format!("{other:?} is not a bool"))],
            Err(e) => return vec![error_violation(src, error_text(&e))],
        }
    }
    // Variables: each sees the ones before it; one that fails is reported where it is used.
    let mut values: HashMap<cel::objects::Key, cel::Value> = HashMap::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    // Message expressions are evaluated without `authorizer`: a variable that needs it
    // (directly or through another variable) fails there.
    let mut need_authorizer: Vec<String> = Vec::new();
    for (i, variable) in items("variables") {
        let name = variable["name"].as_str().unwrap_or_default().to_string();
        let src = variable["expression"].as_str().unwrap_or_default();
        if src.contains("authorizer") || need_authorizer.iter().any(|n| mentions(src, n)) {
            need_authorizer.push(name.clone());
        }
        let mut scope = vars.clone();
        scope.push(("variables", cel_map(&values)));
        match checked_eval(format!("spec.variables[{i}].expression"), src, &scope) {
            Ok(v) => {
                values.insert(cel::objects::Key::String(name.into()), v);
            }
            Err(e) => failed.push((name, error_text(&e))),
        }
    }
    vars.push(("variables", cel_map(&values)));
    let mut out = Vec::new();
    for (i, validation) in items("validations") {
        let src = validation["expression"].as_str().unwrap_or_default();
        let reason = validation["reason"]
            .as_str()
            .unwrap_or("Invalid")
            .to_string();
        if let Some((name, why)) = failed
            .iter()
            .find(|(name, _)| src.contains(&format!("variables.{name}")))
        {
            if !ignore_errors {
                let why = format!("composited variable \"{name}\" fails to evaluate: {why}");
                out.push(error_violation(src, why));
            }
            continue;
        }
        match checked_eval(format!("spec.validations[{i}].expression"), src, &vars) {
            Ok(cel::Value::Bool(true)) => {}
            Ok(cel::Value::Bool(false)) => {
                let field = format!("spec.validations[{i}].messageExpression");
                let message_expression = validation["messageExpression"]
                    .as_str()
                    .filter(|m| !need_authorizer.iter().any(|n| mentions(m, n)));
                let from_expression =
                    message_expression.and_then(|m| match checked_eval(field, m, &vars) {
                        Ok(cel::Value::String(s)) if !s.trim().is_empty() => Some(s.to_string()),
                        _ => None,
                    });
                let message = from_expression
                    .or_else(|| validation["message"].as_str().map(String::from))
                    .unwrap_or_else(|| format!("failed expression: {src}"));
                out.push(Violation { message, reason });
            }
            Ok(_) | Err(_) if ignore_errors => {}
            Ok(other) => out.push(error_violation(src, format!("{other:?} is not a bool"))),
            Err(e) => out.push(error_violation(src, error_text(&e))),
        }
    }
    out
}

/// Whether `src` refers to `variables.<name>`.
fn mentions(src: &str, name: &str) -> bool {
    let needle = format!("variables.{name}");
    src.match_indices(&needle).any(|(at, _)| {
        !src[at + needle.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn cel_map(values: &HashMap<cel::objects::Key, cel::Value>) -> cel::Value {
    cel::Value::Map(cel::objects::Map {
        map: std::sync::Arc::new(values.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn validations_variables_and_messages() {
        let policy = json!({"spec": {
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "matchConditions": [{"name": "c", "expression": "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)"}],
        "variables": [{"name": "max", "expression": "int(params.data.max)"}],
        "validations": [
            {"expression": "object.spec.replicas <= variables.max", "messageExpression": "'at most ' + string(variables.max)", "reason": "Forbidden"},
            {"expression": "object.metadata.name.startsWith('app-')", "message": "name must start with app-"},
            {"expression": "object.spec.replicas != 3"},
        ]}});
        let params = json!({"data": {"max": "5"}});
        let run = |object: Value| {
            evaluate(
                &policy,
                &Inputs {
                    object: &object,
                    old_object: &Value::Null,
                    request: &json!({"operation": "CREATE"}),
                    params: &params,
                    namespace_object: &Value::Null,
                    authorizer: None,
                },
            )
        };
        let v = run(json!({"metadata": {"name": "x"}, "spec": {"replicas": 7}}));
        assert_eq!(
            v[0],
            Violation {
                message: "at most 5".into(),
                reason: "Forbidden".into()
            }
        );
        assert_eq!(v[1].message, "name must start with app-");
        let v = run(json!({"metadata": {"name": "app-a"}, "spec": {"replicas": 3}}));
        assert_eq!(
            v,
            vec![Violation {
                message: "failed expression: object.spec.replicas != 3".into(),
                reason: "Invalid".into()
            }]
        );
        assert!(run(json!({"metadata": {"name": "x", "labels": {"exempt": "y"}}, "spec": {"replicas": 9}})).is_empty());
    }

    /// An authorizer that allows `get` of anything to `alice` only.
    struct AliceGets;

    impl crate::registry::schema::cel_types::authz::Authorize for AliceGets {
        fn authorize(
            &self,
            user: &crate::support::user::User,
            a: &crate::registry::schema::cel_types::authz::Attributes,
        ) -> crate::registry::schema::cel_types::authz::Decision {
            let allowed = user.username == "alice" && a.verb == "get";
            crate::registry::schema::cel_types::authz::Decision {
                allowed,
                reason: if allowed {
                    format!("{} {}/{}", a.verb, a.resource, a.subresource)
                } else {
                    String::new()
                },
                error: None,
            }
        }
    }

    #[test]
    fn authorizer_is_bound_to_the_requesting_user() {
        use crate::registry::schema::cel_types::authz::{Attributes, variables};
        let policy = json!({"spec": {
        "variables": [{"name": "may", "expression": "authorizer.group('').resource('pods').check('get').allowed()"}],
        "validations": [
            {"expression": "variables.may", "message": "may not get pods"},
            {"expression": "authorizer.requestResource.check('get').reason() == 'get deployments/scale'", "message": "request resource"},
            {"expression": "!authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('get').allowed()", "message": "service account"},
            {"expression": "authorizer.path('/healthz').check('get').errored() == false", "message": "path"},
            {"expression": "authorizer.path(' ').check('get').allowed()", "message": "empty path"},
        ]}});
        let request = Attributes {
            group: "apps".into(),
            resource: "deployments".into(),
            subresource: "scale".into(),
            ..Attributes::default()
        };
        let run = |user: &str| {
            let user = crate::support::user::User {
                username: user.into(),
                ..Default::default()
            };
            let bound = variables(user, std::sync::Arc::new(AliceGets), &request);
            evaluate(
                &policy,
                &Inputs {
                    object: &json!({}),
                    old_object: &Value::Null,
                    request: &json!({"operation": "CREATE"}),
                    params: &Value::Null,
                    namespace_object: &Value::Null,
                    authorizer: Some(&bound),
                },
            )
        };
        let messages = |v: Vec<Violation>| v.into_iter().map(|v| v.message).collect::<Vec<_>>();
        let empty_path = "expression 'authorizer.path(' ').check('get').allowed()' resulted in error: path must not be empty";
        assert_eq!(messages(run("alice")), vec![empty_path.to_string()]);
        assert_eq!(
            messages(run("bob")),
            vec![
                "may not get pods".to_string(),
                "request resource".into(),
                empty_path.into()
            ]
        );
    }
}
