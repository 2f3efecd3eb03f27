//! The errors of a strategic merge patch that the real server's merge code raises, in its
//! words: maps printed as Go's `%v` prints them, most of them a 500 there.

use serde_json::{Map, Value};

use super::PatchError;
use super::go_print::{go_print, go_type};

/// An unknown `$patch` directive.
pub fn bad_directive(d: &Value, m: &Map<String, Value>) -> PatchError {
    PatchError::Internal(format!(
        "unknown patch type: {} in map: {}",
        go_print(d),
        go_print(&Value::Object(m.clone()))
    ))
}

/// Go's refusals of a `$setElementOrder` list of a list merged by `key`: every element a
/// map holding the key (a first element that is not a map is worded otherwise when the
/// patch does not also list the field's elements).
pub fn check_element_order(order: &[Value], key: &str, patched: bool) -> Result<(), PatchError> {
    for (i, item) in order.iter().enumerate() {
        match item {
            Value::Object(m) if !m.contains_key(key) => return Err(missing_key(m, key)),
            Value::Object(_) => {}
            _ if i == 0 && !patched => {
                return Err(PatchError::Internal("value for key 0 is not a map".into()));
            }
            other => {
                return Err(PatchError::Internal(format!(
                    "expected a map[string]interface {{}}, but received a {}",
                    go_type(other)
                )));
            }
        }
    }
    Ok(())
}

/// Go's refusal of a list merged with a patch list whose elements are not all of one type
/// (maps and something else), printing both lists.
pub fn mixed_element_types(original: &[Value], patch: &[Value]) -> Result<(), PatchError> {
    let mut maps = original.iter().chain(patch).map(Value::is_object);
    let first = maps.next();
    if first.is_some_and(|first| maps.any(|m| m != first)) {
        return Err(PatchError::Internal(format!(
            "list element types are not identical: [{} {}]",
            go_print(&Value::Array(original.to_vec())),
            go_print(&Value::Array(patch.to_vec()))
        )));
    }
    Ok(())
}

/// A list element (or `$setElementOrder` element) without its list's merge key.
pub fn missing_key(m: &Map<String, Value>, key: &str) -> PatchError {
    PatchError::Internal(format!(
        "map: {} does not contain declared merge key: {key}",
        go_print(&Value::Object(m.clone()))
    ))
}
