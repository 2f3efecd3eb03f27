//! `x-kubernetes-validations`: the CEL rules of a schema, checked when a CRD is written
//! ([`rule_errors`]: rules must compile) and evaluated on every node of a custom resource
//! that has a value ([`check_rules`]), as the apiextensions apiserver does.
//!
//! On update, `oldSelf` is the correlated old value (same object property, same keys in a
//! `map` list, same value in a `set` list); transition rules (those using `oldSelf`) are only
//! evaluated where it exists, unless `optionalOldSelf` binds it as an optional. Rules on a
//! value the update did not change are not re-evaluated (ratcheting), transition rules
//! excepted.

use super::cel::{self, OldSelf};
use super::errors::{FieldError, FieldErrorKind};
use super::values::{child, index, json_eq, property_schema};
use serde_json::Value;

/// Evaluates the rules of every node of `v` (and, on update, the transition rules against
/// `old`), appending the failures to `errs` with the real server's paths and texts. When
/// `errs` already holds an error that blocks the rules (a missing, unsupported, too long,
/// too many or wrongly typed value), the rules are not evaluated and the real server's
/// `<nil>: Invalid value: null: some validation rules were not checked ...` is added.
///
/// Schemas with rules are evaluated on a thread with a large stack (see
/// [`cel::on_large_stack`]): one thread per validated write of a kind with rules, none
/// without rules.
pub fn check_rules(
    v: &Value,
    schema: &Value,
    old: Option<&Value>,
    is_update: bool,
    path: &str,
    errs: &mut Vec<FieldError>,
) {
    if !has_rules(schema) {
        return;
    }
    // Schema errors of these kinds block the rules, as on the real server: the rules may
    // not hold on a value of the wrong shape.
    if errs.iter().any(|e| {
        matches!(
            e.kind,
            FieldErrorKind::NotSupported
                | FieldErrorKind::Required
                | FieldErrorKind::TooLong
                | FieldErrorKind::TooMany
                | FieldErrorKind::TypeInvalid
        )
    }) {
        errs.push(FieldError::invalid(
            "<nil>",
            &Value::Null,
            "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        ));
        return;
    }
    let found = cel::on_large_stack(|| {
        let mut found = Vec::new();
        check_node(v, schema, old, is_update, path, &mut found);
        found
    });
    errs.extend(found);
}

/// Whether `schema` has `x-kubernetes-validations` anywhere.
fn has_rules(schema: &Value) -> bool {
    match schema {
        Value::Object(m) => m.contains_key("x-kubernetes-validations") || m.values().any(has_rules),
        Value::Array(items) => items.iter().any(has_rules),
        _ => false,
    }
}

fn check_node(
    v: &Value,
    schema: &Value,
    old: Option<&Value>,
    is_update: bool,
    path: &str,
    errs: &mut Vec<FieldError>,
) {
    let Some(s) = schema.as_object() else {
        return;
    };
    if v.is_null() {
        return;
    }
    let unchanged = old.is_some_and(|o| json_eq(v, o));
    for rule in s
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        check_rule(rule, v, schema, old, is_update, unchanged, path, errs);
    }
    match v {
        Value::Object(obj) => {
            let mut keys: Vec<&String> = obj.keys().collect();
            keys.sort();
            for key in keys {
                if let Some(sub) = property_schema(s, key) {
                    let old_child = old.and_then(|o| o.get(key.as_str()));
                    let p = child(path, key);
                    check_node(&obj[key.as_str()], sub, old_child, is_update, &p, errs);
                }
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = s.get("items").filter(|i| i.is_object()) else {
                return;
            };
            for (i, item) in items.iter().enumerate() {
                let old_item = old.and_then(|olds| super::ratchet::correlate(item, olds, s));
                // Already on the large stack: recurse, never a thread per item.
                check_node(
                    item,
                    item_schema,
                    old_item,
                    is_update,
                    &index(path, i),
                    errs,
                );
            }
        }
        _ => {}
    }
}

#[allow(clippy::too_many_arguments)]
fn check_rule(
    rule: &Value,
    v: &Value,
    schema: &Value,
    old: Option<&Value>,
    is_update: bool,
    unchanged: bool,
    path: &str,
    errs: &mut Vec<FieldError>,
) {
    let Some(text) = rule.get("rule").and_then(Value::as_str) else {
        return;
    };
    // A rule that does not compile was refused with its CRD; one that slipped in (stored
    // before this check) is not enforced.
    let program = match cel::compile(text) {
        Ok(p) => p,
        Err(e) => {
            tracing::debug!(rule = text, error = %e, "x-kubernetes-validations rule not enforced");
            return;
        }
    };
    let optional_old = rule.get("optionalOldSelf").and_then(Value::as_bool) == Some(true);
    let old_self = if !program.uses_old_self {
        OldSelf::Unbound
    } else if optional_old {
        OldSelf::Optional(old.filter(|_| is_update))
    } else {
        match old.filter(|_| is_update) {
            Some(o) => OldSelf::Value(o),
            None => return,
        }
    };
    if unchanged && !program.uses_old_self {
        return;
    }
    let ty = Value::from(schema.get("type").and_then(Value::as_str).unwrap_or(""));
    let field = if path.is_empty() { "<nil>" } else { path };
    match cel::eval_bool(&program, v, old_self, schema) {
        Ok(true) => {}
        Ok(false) => errs.push(failure(rule, text, v, old_self, schema, path, &ty)),
        Err(e) if e.is_reported() => {
            // Runtime errors name the rule (or its message) like the real server.
            let shown = rule
                .get("message")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .unwrap_or(text.trim());
            errs.push(FieldError::invalid(
                field,
                &ty,
                &format!("{e} evaluating rule: {shown}"),
            ));
        }
        Err(e) => {
            tracing::debug!(rule = text, field, error = %e, "x-kubernetes-validations rule not enforced: the evaluator lacks what it uses");
        }
    }
}

/// The error of a rule that evaluated to false: message from `messageExpression`, then
/// `message`, then `failed rule: <rule>`; field from `fieldPath`; kind from `reason`.
fn failure(
    rule: &Value,
    text: &str,
    v: &Value,
    old_self: OldSelf<'_>,
    schema: &Value,
    path: &str,
    ty: &Value,
) -> FieldError {
    let from_expression = rule
        .get("messageExpression")
        .and_then(Value::as_str)
        .and_then(|e| cel::compile(e).ok())
        .and_then(|p| cel::eval_string(&p, v, old_self, schema).ok().flatten())
        .filter(|m| !m.trim().is_empty() && !m.contains(['\n', '\r']));
    let message = from_expression.unwrap_or_else(|| {
        rule.get("message")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
            .map_or_else(|| format!("failed rule: {}", text.trim()), str::to_string)
    });
    let mut field = if path.is_empty() {
        "<nil>".to_string()
    } else {
        path.to_string()
    };
    if let Some(fp) = rule
        .get("fieldPath")
        .and_then(Value::as_str)
        .filter(|f| !f.is_empty())
    {
        field = if path.is_empty() {
            fp.trim_start_matches('.').to_string()
        } else {
            format!("{path}{fp}")
        };
    }
    match rule.get("reason").and_then(Value::as_str) {
        Some("FieldValueRequired") => FieldError::required(field, &message),
        Some("FieldValueForbidden") => FieldError::forbidden(field, &message),
        Some("FieldValueDuplicate") => FieldError::duplicate(field, ty),
        _ => FieldError::new(field, FieldErrorKind::Invalid, Some(ty), &message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(new: Value, old: Option<Value>, schema: &Value) -> Vec<String> {
        let mut errs = Vec::new();
        check_rules(&new, schema, old.as_ref(), old.is_some(), "", &mut errs);
        errs.iter().map(FieldError::to_message).collect()
    }

    #[test]
    fn reasons_give_the_real_cause_types() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": [
                {"rule": "has(self.a)", "reason": "FieldValueRequired", "fieldPath": ".a", "message": "a is required"},
                {"rule": "false", "reason": "FieldValueDuplicate"},
                {"rule": "self.size() < 1", "reason": "FieldValueInvalid", "message": "too big"},
            ],
            "properties": {"b": {"type": "integer"}}}}});
        assert_eq!(
            run(json!({"spec": {"b": 1}}), None, &schema),
            [
                "spec.a: Required value: a is required",
                r#"spec: Duplicate value: "object""#,
                r#"spec: Invalid value: "object": too big"#,
            ]
        );
    }

    #[test]
    fn optional_old_self_and_ratcheting() {
        let schema = json!({"type": "object", "properties": {
            "v": {"type": "integer", "x-kubernetes-validations": [
                {"rule": "!oldSelf.hasValue() || self >= oldSelf.value()", "optionalOldSelf": true, "message": "may not decrease"},
                {"rule": "self < 10", "message": "below 10"},
            ]},
            "ios": {"x-kubernetes-int-or-string": true, "x-kubernetes-validations": [
                {"rule": "self == oldSelf", "message": "immutable"},
            ]},
        }});
        assert_eq!(
            run(json!({"v": 12}), None, &schema),
            ["v: Invalid value: \"integer\": below 10"]
        );
        // unchanged invalid value: ratcheted; transition rule still true
        assert!(run(json!({"v": 12}), Some(json!({"v": 12})), &schema).is_empty());
        assert_eq!(
            run(json!({"v": 11}), Some(json!({"v": 12})), &schema),
            [
                "v: Invalid value: \"integer\": may not decrease",
                "v: Invalid value: \"integer\": below 10",
            ]
        );
        assert_eq!(
            run(json!({"ios": "1"}), Some(json!({"ios": 1})), &schema),
            [r#"ios: Invalid value: "": immutable"#]
        );
        assert!(run(json!({"ios": "50%"}), Some(json!({"ios": "50%"})), &schema).is_empty());
    }
}
