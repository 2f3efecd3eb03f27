//! Reading a schema node: its type, flags, properties, items and junctor branches, and the
//! real server's paths (`openAPIV3Schema.properties[spec].items`).

use serde_json::{Map, Value};

/// The path of property `k` below `path`, as the apiextensions server writes it.
pub(crate) fn key(path: &str, k: &str) -> String {
    format!("{path}.properties[{k}]")
}

/// The node's `type`, empty when absent.
pub(crate) fn type_of(s: &Map<String, Value>) -> &str {
    s.get("type").and_then(Value::as_str).unwrap_or("")
}

/// Whether the boolean keyword `key` is `true`.
pub(crate) fn flag(s: &Map<String, Value>, key: &str) -> bool {
    s.get(key).and_then(Value::as_bool).unwrap_or(false)
}

pub(crate) fn props(s: &Map<String, Value>) -> Option<&Map<String, Value>> {
    s.get("properties").and_then(Value::as_object)
}

pub(crate) fn items(s: &Map<String, Value>) -> Option<&Map<String, Value>> {
    s.get("items").and_then(Value::as_object)
}

/// The object entries of the list keyword `k` (`allOf`, `anyOf`, `oneOf`), with their index.
pub(crate) fn list<'a>(s: &'a Map<String, Value>, k: &str) -> Vec<(usize, &'a Map<String, Value>)> {
    s.get(k)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .enumerate()
                .filter_map(|(i, v)| v.as_object().map(|o| (i, o)))
                .collect()
        })
        .unwrap_or_default()
}
