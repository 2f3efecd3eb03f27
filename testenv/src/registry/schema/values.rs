//! Reading schema nodes and JSON values as kube-openapi and the apiextensions server do:
//! kube-openapi paths (`spec.list[0].name`), type names, flags and properties of a schema node,
//! equality where numbers compare by value, and RE2 `pattern` matching.

use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;

/// Appends `key` to a kube-openapi path (`spec` + `replicas` = `spec.replicas`).
pub(crate) fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Appends an index to a path (`spec.list` + 0 = `spec.list[0]`).
pub(crate) fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// The JSON-schema type name kube-openapi reports for a value. The real server decodes a
/// JSON number as an int64 when it is one and as a float64 otherwise; a float64 counts as
/// an integer when it is integral and within ±2^53 (`swag.IsFloat64AJSONInteger`), so
/// `3.0` is an integer and `18446744073709551615` (beyond int64) a number.
pub(crate) fn type_name(v: &Value) -> &'static str {
    const MAX_JSON_FLOAT: f64 = (1u64 << 53) as f64;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) => {
            if n.is_i64()
                || n.as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() <= MAX_JSON_FLOAT)
            {
                "integer"
            } else {
                "number"
            }
        }
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether `v` has (or is compatible with) the schema type `t`.
pub(crate) fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "integer" => type_name(v) == "integer",
        "number" => v.is_number(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    }
}

pub(crate) fn flag(s: &Map<String, Value>, key: &str) -> bool {
    s.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// The types a schema node allows (`x-kubernetes-int-or-string` means integer or string).
pub(crate) fn schema_types(s: &Map<String, Value>) -> Vec<String> {
    if flag(s, "x-kubernetes-int-or-string") {
        return vec!["integer".into(), "string".into()];
    }
    match s.get("type").and_then(Value::as_str) {
        Some(t) if !t.is_empty() => vec![t.to_string()],
        _ => Vec::new(),
    }
}

/// JSON equality where numbers compare by value (`1` equals `1.0`), as Go's decoded values do.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, a)| y.get(k).is_some_and(|b| json_eq(a, b)))
        }
        _ => a == b,
    }
}

/// The schema a child property of an object node uses, if any (`properties` first, then
/// `additionalProperties`).
pub(crate) fn property_schema<'a>(s: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if let Some(p) = s
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|p| p.get(key))
    {
        return Some(p);
    }
    match s.get("additionalProperties") {
        Some(add @ Value::Object(_)) => Some(add),
        _ => None,
    }
}

pub(crate) fn key(path: &str, k: &str) -> String {
    format!("{path}.properties[{k}]")
}

pub(crate) fn props(s: &Map<String, Value>) -> Option<&Map<String, Value>> {
    s.get("properties").and_then(Value::as_object)
}

pub(crate) fn items(s: &Map<String, Value>) -> Option<&Map<String, Value>> {
    s.get("items").and_then(Value::as_object)
}

thread_local! {
    static REGEX_CACHE: RefCell<HashMap<String, Option<regex::Regex>>> = RefCell::new(HashMap::new());
}

/// Whether `text` matches the (RE2-syntax, unanchored) `pattern`; `None` if the pattern
/// does not compile.
pub(crate) fn pattern_matches(pattern: &str, text: &str) -> Option<bool> {
    REGEX_CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() > 512 {
            cache.clear();
        }
        cache
            .entry(pattern.to_string())
            .or_insert_with(|| regex::Regex::new(pattern).ok())
            .as_ref()
            .map(|re| re.is_match(text))
    })
}
