//! Defaults inside a CRD schema must be valid: every `default` validates against its node's
//! schema and is already pruned (`must not have unknown fields`).

use serde_json::{Map, Value};

use super::errors::FieldError;
use super::prune::prune;
use super::validate::validate;
use super::values::{items, key, props};

/// Every `default` in the structural part must validate against its node's schema and be
/// pruned already (`must not have unknown fields`). Defaults inside root metadata are not
/// allowed except for name/generateName, which the server checks elsewhere.
pub(crate) fn defaults(s: &Map<String, Value>, path: &str, root: bool, errs: &mut Vec<FieldError>) {
    if let Some(d) = s.get("default").filter(|d| !d.is_null()) {
        let node = Value::Object(s.clone());
        let dpath = format!("{path}.default");
        for e in validate(d, &node) {
            let field = match e.field.as_str() {
                "" => dpath.clone(),
                "<nil>" => e.field.clone(),
                f => format!("{dpath}.{f}"),
            };
            errs.push(FieldError { field, ..e });
        }
        let mut pruned = d.clone();
        if d.is_object() && !prune_nested(&mut pruned, &node).is_empty() {
            errs.push(FieldError::invalid(
                dpath,
                d,
                "must not have unknown fields",
            ));
        }
    }
    if let Some(it) = items(s) {
        defaults(it, &format!("{path}.items"), false, errs);
    }
    if let Some(p) = props(s) {
        for (k, v) in p {
            if root && k == "metadata" {
                continue;
            }
            if let Some(v) = v.as_object() {
                defaults(v, &key(path, k), false, errs);
            }
        }
    }
    if let Some(a) = s.get("additionalProperties").and_then(Value::as_object) {
        defaults(a, &format!("{path}.additionalProperties"), false, errs);
    }
}

/// Prunes a value that is not a resource root (so `apiVersion`/`kind`/`metadata` are ordinary
/// fields unless the node is an embedded resource).
fn prune_nested(v: &mut Value, schema: &Value) -> Vec<String> {
    // Wrap the value as a field of a synthetic root so root-level exemptions do not apply.
    let mut wrapper = serde_json::json!({ "v": v.take() });
    let root = serde_json::json!({"type": "object", "properties": {"v": schema}});
    let pruned = prune(&mut wrapper, &root);
    *v = wrapper["v"].take();
    pruned
}
