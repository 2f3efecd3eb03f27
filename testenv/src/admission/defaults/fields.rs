//! Helpers for defaulting a JSON object the way Go's defaulters do: a field is unset when it
//! is absent or `null`, and defaults never overwrite a set value.

use serde_json::{Map, Value};

/// Whether a field counts as unset (absent or `null`).
pub(crate) fn is_unset(map: &Map<String, Value>, key: &str) -> bool {
    map.get(key).is_none_or(Value::is_null)
}

/// Sets `key` to `value` when it is unset.
pub(crate) fn set_default(map: &mut Map<String, Value>, key: &str, value: Value) {
    if is_unset(map, key) {
        map.insert(key.to_string(), value);
    }
}

/// Sets `key` when it is unset or an empty string (Go's `if x == ""` defaulting).
pub(crate) fn set_default_str(map: &mut Map<String, Value>, key: &str, value: &str) {
    if map
        .get(key)
        .is_none_or(|v| v.is_null() || v.as_str() == Some(""))
    {
        map.insert(key.to_string(), Value::from(value));
    }
}

/// Sets an integer `key` when it is unset or `0` (Go's `if x == 0` defaulting of plain ints).
pub(crate) fn set_default_nonzero(map: &mut Map<String, Value>, key: &str, value: i64) {
    if map
        .get(key)
        .is_none_or(|v| v.is_null() || v.as_f64() == Some(0.0))
    {
        map.insert(key.to_string(), Value::from(value));
    }
}

/// The object under `key`, created as `{}` when unset. `None` if the field holds a
/// non-object (left for validation to reject).
pub(crate) fn ensure_object<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
) -> Option<&'a mut Map<String, Value>> {
    if is_unset(map, key) {
        map.insert(key.to_string(), Value::Object(Map::new()));
    }
    map.get_mut(key).and_then(Value::as_object_mut)
}

/// The object under `key` if it exists (never creates it).
pub(crate) fn object_mut<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
) -> Option<&'a mut Map<String, Value>> {
    map.get_mut(key).and_then(Value::as_object_mut)
}

/// Every object element of the list under `key` (absent lists yield nothing).
pub(crate) fn each_object<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
) -> impl Iterator<Item = &'a mut Map<String, Value>> {
    map.get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}
