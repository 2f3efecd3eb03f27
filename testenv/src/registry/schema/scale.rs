//! The checks a custom resource with a `scale` subresource gets besides its schema: the
//! value at `specReplicasPath` and `statusReplicasPath` must be a non-negative int32, and
//! the one at `labelSelectorPath` a string. Paths are reported as written in the CRD,
//! leading dot included (`.spec.replicas: Invalid value: -1: should be a non-negative
//! integer`), as the real server does.

use serde_json::Value;

use super::errors::{FieldError, go_float};

/// The three paths of a CRD's scale subresource.
#[derive(Debug, Clone, Copy)]
pub struct ScalePaths<'a> {
    /// `specReplicasPath`.
    pub spec_replicas: &'a str,
    /// `statusReplicasPath`.
    pub status_replicas: &'a str,
    /// `labelSelectorPath`, if set.
    pub label_selector: Option<&'a str>,
}

/// Go's `%v` and `%T` of a JSON value as unstructured decoding types it.
fn go_print(v: &Value) -> (String, &'static str) {
    match v {
        Value::String(s) => (s.clone(), "string"),
        Value::Bool(b) => (b.to_string(), "bool"),
        Value::Number(n) if n.is_i64() || n.is_u64() => (n.to_string(), "int64"),
        Value::Number(n) => (go_float(n.as_f64().unwrap_or_default()), "float64"),
        Value::Array(_) => ("[...]".into(), "[]interface {}"),
        Value::Object(_) => ("map[...]".into(), "map[string]interface {}"),
        Value::Null => ("<nil>".into(), "<nil>"),
    }
}

/// The value at `path` (`.a.b`), `Ok(None)` when absent, or unstructured's accessor error
/// when it (or a map on the way) has another type than `expected`.
fn nested<'v>(object: &'v Value, path: &str, expected: &str) -> Result<Option<&'v Value>, String> {
    let fields: Vec<&str> = path.trim_start_matches('.').split('.').collect();
    let mut cur = object;
    for (i, field) in fields.iter().enumerate() {
        let Value::Object(map) = cur else {
            let (v, t) = go_print(cur);
            return Err(format!(
                ".{} accessor error: {v} is of the type {t}, expected map[string]interface{{}}",
                fields[..i].join(".")
            ));
        };
        match map.get(*field) {
            Some(next) => cur = next,
            None => return Ok(None),
        }
    }
    let ok = match expected {
        "int64" => cur.as_i64().is_some(),
        _ => cur.is_string(),
    };
    if ok || cur.is_null() {
        Ok(Some(cur).filter(|v| !v.is_null()))
    } else {
        let (v, t) = go_print(cur);
        Err(format!(
            ".{} accessor error: {v} is of the type {t}, expected {expected}",
            fields.join(".")
        ))
    }
}

fn replicas(object: &Value, path: &str, errs: &mut Vec<FieldError>) {
    match nested(object, path, "int64") {
        Err(e) => errs.push(FieldError::invalid(path, &Value::from(0), &e)),
        Ok(Some(v)) => {
            let n = v.as_i64().unwrap_or_default();
            if n < 0 {
                errs.push(FieldError::invalid(
                    path,
                    v,
                    "should be a non-negative integer",
                ));
            } else if n > i64::from(i32::MAX) {
                errs.push(FieldError::invalid(
                    path,
                    v,
                    &format!("should be less than or equal to {}", i32::MAX),
                ));
            }
        }
        Ok(None) => {}
    }
}

/// Appends the scale checks' errors for `object`.
pub fn check_scale(object: &Value, paths: ScalePaths<'_>, errs: &mut Vec<FieldError>) {
    replicas(object, paths.spec_replicas, errs);
    replicas(object, paths.status_replicas, errs);
    if let Some(path) = paths.label_selector
        && let Err(e) = nested(object, path, "string")
    {
        errs.push(FieldError::invalid(path, &Value::from(""), &e));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(object: Value) -> Vec<String> {
        let mut errs = Vec::new();
        let paths = ScalePaths {
            spec_replicas: ".spec.replicas",
            status_replicas: ".status.replicas",
            label_selector: Some(".status.selector"),
        };
        check_scale(&object, paths, &mut errs);
        errs.iter().map(FieldError::to_message).collect()
    }

    #[test]
    fn replicas_and_selector_as_the_real_server_checks_them() {
        assert!(
            check(json!({"spec": {"replicas": 3}, "status": {"replicas": 1, "selector": "a=b"}}))
                .is_empty()
        );
        assert!(check(json!({})).is_empty());
        assert_eq!(
            check(json!({"spec": {"replicas": -1}})),
            [".spec.replicas: Invalid value: -1: should be a non-negative integer"]
        );
        assert_eq!(
            check(
                json!({"spec": {"replicas": "three"}, "status": {"replicas": 2147483648_i64, "selector": 1}})
            ),
            [
                ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: three is of the type string, expected int64",
                ".status.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647",
                r#".status.selector: Invalid value: "": .status.selector accessor error: 1 is of the type int64, expected string"#,
            ]
        );
    }
}
