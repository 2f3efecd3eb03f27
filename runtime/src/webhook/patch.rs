//! The JSON patch a mutating webhook answers with.
//!
//! The defaulter changes a typed object; serializing that object drops fields the Rust type does
//! not know (or omits as empty), so diffing the raw request object against it would remove
//! them. Instead the patch carries only what the defaulter changed: the change between the
//! typed object before and after defaulting is replayed onto the raw object ([`rebase`]), and
//! the patch is the diff from the raw object to that result.

use serde_json::Value;

/// Applies the change `before -> after` (both typed re-serializations) onto `original` (the raw
/// object), keeping everything in `original` the change did not touch (unknown fields, fields
/// the type omits). Arrays are merged element-wise when all three have the same length, and
/// otherwise replaced by `after`'s.
pub fn rebase(original: &Value, before: &Value, after: &Value) -> Value {
    if before == after {
        return original.clone();
    }
    match (original, before, after) {
        (Value::Object(o), Value::Object(b), Value::Object(a)) => {
            let mut out = o.clone();
            for key in b.keys().filter(|key| !a.contains_key(*key)) {
                out.remove(key);
            }
            for (key, a_val) in a {
                match (o.get(key), b.get(key)) {
                    (_, Some(b_val)) if b_val == a_val => {}
                    (Some(o_val), Some(b_val)) => {
                        out.insert(key.clone(), rebase(o_val, b_val, a_val));
                    }
                    _ => {
                        out.insert(key.clone(), a_val.clone());
                    }
                }
            }
            Value::Object(out)
        }
        (Value::Array(o), Value::Array(b), Value::Array(a))
            if o.len() == b.len() && b.len() == a.len() =>
        {
            Value::Array(
                o.iter()
                    .zip(b)
                    .zip(a)
                    .map(|((o, b), a)| rebase(o, b, a))
                    .collect(),
            )
        }
        _ => after.clone(),
    }
}

/// The RFC 6902 patch turning `original` into `original` plus the change `before -> after`.
pub fn defaulting_patch(original: &Value, before: &Value, after: &Value) -> json_patch::Patch {
    json_patch::diff(original, &rebase(original, before, after))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patch_keeps_unknown_fields_and_carries_only_changes() {
        let original = json!({"spec": {"size": null, "unknown": 1, "list": [{"a": 1, "x": 9}]}});
        let before = json!({"spec": {"list": [{"a": 1}]}});
        let after = json!({"spec": {"size": 3, "list": [{"a": 2}]}});
        let patch = defaulting_patch(&original, &before, &after);
        let mut patched = original.clone();
        json_patch::patch(&mut patched, &patch).unwrap();
        assert_eq!(
            patched,
            json!({"spec": {"size": 3, "unknown": 1, "list": [{"a": 2, "x": 9}]}})
        );
    }

    #[test]
    fn removals_by_the_defaulter_are_kept_and_no_change_is_an_empty_patch() {
        let original = json!({"spec": {"a": 1, "b": 2}});
        let before = original.clone();
        let after = json!({"spec": {"a": 1}});
        let patch = defaulting_patch(&original, &before, &after);
        let mut patched = original.clone();
        json_patch::patch(&mut patched, &patch).unwrap();
        assert_eq!(patched, after);
        assert!(defaulting_patch(&original, &before, &before).0.is_empty());
    }
}
