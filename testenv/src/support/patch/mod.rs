//! Patch application for PATCH requests: JSON merge patch (RFC 7386), JSON patch (RFC 6902)
//! and, for built-in kinds, strategic merge patch (in `strategic`).
//!
//! All functions work on `serde_json::Value` so that the endpoints can apply them to any
//! stored object, built-in or custom.

pub mod go_print;
pub mod strategic;
pub mod strategic_errors;
pub mod strategic_leftover;

/// Why a patch could not be applied; the endpoints turn it into a 422/400 `Status`.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    /// The patch body is not valid JSON (or not the JSON shape the patch type needs).
    #[error("the patch body is not valid: {0}")]
    Malformed(String),
    /// A JSON patch operation failed (missing path, failed `test`, ...).
    #[error("the JSON patch could not be applied: {0}")]
    Operation(String),
    /// A strategic merge patch was sent for a kind that does not support it (custom resources).
    #[error(
        "strategic merge patch is not supported for {0}; use a JSON merge patch or a JSON patch instead"
    )]
    Unsupported(String),
    /// A strategic merge patch the real server's merge code fails on (a 500 there), with
    /// Go's words (maps printed as Go's `%v` prints them).
    #[error("{0}")]
    Internal(String),
    /// A strategic merge patch the real server refuses as a bad request, with its words.
    #[error("{0}")]
    Refused(String),
    /// A strategic merge patch directive or list item is invalid.
    #[error("the strategic merge patch is not valid: {0}")]
    Invalid(String),
}

/// Applies an RFC 7386 JSON merge patch to `target` in place, as kube-apiserver's library
/// (evanphx/json-patch) does.
///
/// `null` values in the patch delete fields; objects merge into objects; anything else
/// replaces the target value. A value the patch adds where there was nothing, `null` or no
/// object loses its `null` members, in objects inside lists too (the lists keep their `null`
/// elements); one written over an object is taken as it is.
pub fn merge_patch(target: &mut serde_json::Value, patch: &serde_json::Value) {
    match (target.as_object_mut(), patch) {
        (Some(object), serde_json::Value::Object(fields)) => {
            for (key, value) in fields {
                if value.is_null() {
                    object.remove(key);
                    continue;
                }
                match object.get_mut(key) {
                    Some(current) if !current.is_null() => merge_patch(current, value),
                    _ => {
                        object.insert(key.clone(), pruned(value));
                    }
                }
            }
        }
        (Some(_), other) => *target = other.clone(),
        (None, other) => *target = pruned(other),
    }
}

/// A merge patch's value where it adds one: `null` members dropped from its objects.
fn pruned(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(fields) => fields
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.clone(), pruned(v)))
            .collect(),
        serde_json::Value::Array(items) => items.iter().map(pruned).collect(),
        other => other.clone(),
    }
}

/// Applies an RFC 6902 JSON patch (`application/json-patch+json`) to `target`.
///
/// The patch is applied atomically: on error `target` is left unchanged.
pub fn json_patch(
    target: &mut serde_json::Value,
    patch: &serde_json::Value,
) -> Result<(), PatchError> {
    let ops: json_patch::Patch =
        serde_json::from_value(patch.clone()).map_err(|e| PatchError::Malformed(e.to_string()))?;
    let mut work = target.clone();
    for (index, op) in ops.0.into_iter().enumerate() {
        if tests_absent_as_null(&work, &op) {
            continue;
        }
        let op = with_list_indices(&work, op);
        // kube-apiserver's JSON patch library replaces a missing member of an object by
        // adding it.
        let op = match op {
            json_patch::PatchOperation::Replace(r)
                if work.pointer(r.path.as_str()).is_none()
                    && r.path.parent().is_some_and(|p| {
                        work.pointer(p.as_str())
                            .is_some_and(serde_json::Value::is_object)
                    }) =>
            {
                json_patch::PatchOperation::Add(json_patch::AddOperation {
                    path: r.path,
                    value: r.value,
                })
            }
            other => other,
        };
        json_patch::patch(&mut work, &[op]).map_err(|mut e| {
            e.operation = index; // the index in the whole patch, as the client sent it
            PatchError::Operation(e.to_string())
        })?;
    }
    *target = work;
    Ok(())
}

/// `op` with the list indices of its paths as kube-apiserver's JSON patch library reads them
/// (Go's `strconv.Atoi`, a negative index counting from the end: `-1` is the last item, or
/// the end of the list for an `add`), written as RFC 6902 writes them.
fn with_list_indices(
    doc: &serde_json::Value,
    op: json_patch::PatchOperation,
) -> json_patch::PatchOperation {
    let Ok(mut value) = serde_json::to_value(&op) else {
        return op;
    };
    let kind = value["op"].as_str().unwrap_or_default().to_string();
    let moved_out;
    let mut doc = doc;
    if let Some(from) = value["from"].as_str().map(str::to_string) {
        let from = list_indices(doc, &from, false);
        if kind == "move" {
            let mut after = doc.clone();
            moved_out = remove_at(&mut after, &from).then_some(after);
            doc = moved_out.as_ref().unwrap_or(doc);
        }
        value["from"] = serde_json::Value::String(from);
    }
    if let Some(path) = value["path"].as_str() {
        let adds = matches!(kind.as_str(), "add" | "move" | "copy");
        value["path"] = serde_json::Value::String(list_indices(doc, path, adds));
    }
    serde_json::from_value(value).unwrap_or(op)
}

/// Removes the value at `pointer` from `doc`; whether it was there.
fn remove_at(doc: &mut serde_json::Value, pointer: &str) -> bool {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return false;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    match doc.pointer_mut(parent) {
        Some(serde_json::Value::Object(map)) => map.remove(&last).is_some(),
        Some(serde_json::Value::Array(items)) => match last.parse::<usize>() {
            Ok(i) if i < items.len() => {
                items.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// `pointer` with each list index in `doc` written plainly: a negative one counted from the
/// end (for the last token of an `add`, from one past the end).
fn list_indices(doc: &serde_json::Value, pointer: &str, add: bool) -> String {
    let Some(rest) = pointer.strip_prefix('/') else {
        return pointer.to_string();
    };
    let tokens: Vec<&str> = rest.split('/').collect();
    let mut at = Some(doc);
    let mut out = String::new();
    for (i, token) in tokens.iter().enumerate() {
        let last = i + 1 == tokens.len();
        let mut written = (*token).to_string();
        if let Some(serde_json::Value::Array(items)) = at
            && let Ok(index) = token.parse::<i64>()
        {
            let len = i64::try_from(items.len()).unwrap_or(i64::MAX);
            let size = if last && add { len + 1 } else { len };
            let resolved = if index < 0 { index + size } else { index };
            if resolved >= 0 {
                written = resolved.to_string();
            }
        }
        at = match at {
            Some(serde_json::Value::Array(items)) => {
                written.parse::<usize>().ok().and_then(|i| items.get(i))
            }
            Some(serde_json::Value::Object(map)) => {
                map.get(&token.replace("~1", "/").replace("~0", "~"))
            }
            _ => None,
        };
        out.push('/');
        out.push_str(&written);
    }
    out
}

/// Whether `op` is a `test` of `null` at a path the document does not have. kube-apiserver's
/// JSON patch library treats a missing value as `null` there, so the test passes (clients such
/// as kube-runtime's `finalizer()` rely on it to add the first finalizer safely).
fn tests_absent_as_null(doc: &serde_json::Value, op: &json_patch::PatchOperation) -> bool {
    match op {
        json_patch::PatchOperation::Test(test) => {
            test.value.is_null() && doc.pointer(test.path.as_str()).is_none()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_test_of_null_passes_where_the_path_is_absent_and_fails_where_it_has_a_value() {
        let mut t = json!({"metadata": {"name": "a"}});
        let add_first = json!([
            {"op": "test", "path": "/metadata/finalizers", "value": null},
            {"op": "add", "path": "/metadata/finalizers", "value": ["x"]}
        ]);
        json_patch(&mut t, &add_first).unwrap();
        assert_eq!(t["metadata"]["finalizers"], json!(["x"]));
        // Now the path holds a value: the same test fails and nothing changes.
        let before = t.clone();
        assert!(matches!(
            json_patch(&mut t, &add_first),
            Err(PatchError::Operation(_))
        ));
        assert_eq!(t, before);
    }

    #[test]
    fn merge_patch_deletes_with_null_and_replaces_lists() {
        let mut t = json!({"a": 1, "b": {"c": 2, "d": 3}, "l": [1, 2]});
        merge_patch(&mut t, &json!({"b": {"c": null}, "l": [3]}));
        assert_eq!(t, json!({"a": 1, "b": {"d": 3}, "l": [3]}));
        // What it adds loses its null members, in lists too; what it writes over an object
        // stays as sent.
        let patch = json!({"a": {"x": [null, {"y": null, "z": 1}]}, "b": [{"n": null}]});
        merge_patch(&mut t, &patch);
        assert_eq!(
            t,
            json!({"a": {"x": [null, {"z": 1}]}, "b": [{"n": null}], "l": [3]})
        );
    }

    #[test]
    fn json_patch_is_atomic() {
        let mut t = json!({"a": 1});
        let err = json_patch(
            &mut t,
            &json!([{"op": "replace", "path": "/a", "value": 2}, {"op": "test", "path": "/a", "value": 5}]),
        );
        assert!(err.is_err());
        assert_eq!(t, json!({"a": 1}));
        json_patch(&mut t, &json!([{"op": "add", "path": "/b", "value": [1]}])).unwrap();
        assert_eq!(t, json!({"a": 1, "b": [1]}));
    }

    #[test]
    fn negative_list_indices_count_from_the_end() {
        let mut t = json!({"l": [0, 1, 2], "m": [[5, 6]]});
        let ops = json!([
            {"op": "remove", "path": "/l/-1"},
            {"op": "add", "path": "/l/-1", "value": 9},
            {"op": "replace", "path": "/m/-1/-2", "value": 4},
            {"op": "move", "from": "/l/-3", "path": "/l/-1"},
            {"op": "copy", "from": "/m/-1/-1", "path": "/l/-3"},
            {"op": "test", "path": "/l/-1", "value": 0}
        ]);
        json_patch(&mut t, &ops).expect("applies");
        assert_eq!(t, json!({"l": [1, 6, 9, 0], "m": [[4, 6]]}));
        let past = json!([{"op": "remove", "path": "/l/-5"}]);
        assert!(json_patch(&mut t, &past).is_err());
    }
}
