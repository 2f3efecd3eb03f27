//! The JSON patch a mutating webhook answers with.
//!
//! The defaulter changes a typed object; serializing that object drops fields the Rust type does
//! not know (or omits as empty), so diffing the raw request object against it would remove
//! them. Instead the patch carries only what the defaulter changed: the change between the
//! typed object before and after defaulting, replayed onto the raw object. The patch is what
//! diffing the raw object against that replayed result would give, computed in one walk of the
//! three documents without building the result: only the parts the defaulter changed are
//! visited below their top, and nothing is cloned but the values the patch carries.

use json_patch::{
    AddOperation, Patch, PatchOperation, RemoveOperation, ReplaceOperation, jsonptr::PointerBuf,
};
use serde_json::Value;

/// The RFC 6902 patch turning `original` (the raw object) into `original` plus the change
/// `before -> after` (both typed re-serializations), keeping everything in `original` the
/// change did not touch (unknown fields, fields the type omits). Arrays are merged element-wise
/// when all three have the same length, and otherwise replaced by `after`'s.
pub fn defaulting_patch(original: &Value, before: &Value, after: &Value) -> Patch {
    let mut patch = Patch::default();
    changes(original, before, after, &mut PointerBuf::new(), &mut patch);
    patch
}

/// Appends to `patch` the operations at `at` that carry the change `before -> after` onto
/// `original`.
fn changes(
    original: &Value,
    before: &Value,
    after: &Value,
    at: &mut PointerBuf,
    patch: &mut Patch,
) {
    if before == after {
        return;
    }
    match (original, before, after) {
        (Value::Object(o), Value::Object(b), Value::Object(a)) => {
            for (key, a_val) in a {
                at.push_back(key.as_str());
                match (o.get(key), b.get(key)) {
                    (_, Some(b_val)) if b_val == a_val => {}
                    (Some(o_val), Some(b_val)) => changes(o_val, b_val, a_val, at, patch),
                    (Some(o_val), None) => replaced(o_val, a_val, at, patch),
                    (None, _) => patch.0.push(PatchOperation::Add(AddOperation {
                        path: at.clone(),
                        value: a_val.clone(),
                    })),
                }
                at.pop_back();
            }
            for key in b
                .keys()
                .filter(|key| !a.contains_key(*key) && o.contains_key(*key))
            {
                at.push_back(key.as_str());
                patch
                    .0
                    .push(PatchOperation::Remove(RemoveOperation { path: at.clone() }));
                at.pop_back();
            }
        }
        (Value::Array(o), Value::Array(b), Value::Array(a))
            if o.len() == b.len() && b.len() == a.len() =>
        {
            for (index, ((o, b), a)) in o.iter().zip(b).zip(a).enumerate() {
                at.push_back(index);
                changes(o, b, a, at, patch);
                at.pop_back();
            }
        }
        _ => replaced(original, after, at, patch),
    }
}

/// Appends the operations at `at` turning `original` into `after` (json-patch's diff, under
/// `at`).
fn replaced(original: &Value, after: &Value, at: &PointerBuf, patch: &mut Patch) {
    if at.is_root() {
        patch.0.extend(json_patch::diff(original, after).0);
        return;
    }
    if !matches!(
        (original, after),
        (Value::Object(_), Value::Object(_)) | (Value::Array(_), Value::Array(_))
    ) {
        if original != after {
            patch.0.push(PatchOperation::Replace(ReplaceOperation {
                path: at.clone(),
                value: after.clone(),
            }));
        }
        return;
    }
    patch.0.extend(
        json_patch::diff(original, after)
            .0
            .into_iter()
            .map(|op| under(at, op)),
    );
}

/// `op` with its path moved under `at` (diff produces add, remove and replace only).
fn under(at: &PointerBuf, op: PatchOperation) -> PatchOperation {
    match op {
        PatchOperation::Add(AddOperation { path, value }) => PatchOperation::Add(AddOperation {
            path: at.concat(&path),
            value,
        }),
        PatchOperation::Remove(RemoveOperation { path }) => {
            PatchOperation::Remove(RemoveOperation {
                path: at.concat(&path),
            })
        }
        PatchOperation::Replace(ReplaceOperation { path, value }) => {
            PatchOperation::Replace(ReplaceOperation {
                path: at.concat(&path),
                value,
            })
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The reference model: the change replayed onto `original` as a document.
    fn rebase(original: &Value, before: &Value, after: &Value) -> Value {
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

    /// The patch equals diffing `original` against the replayed document, operation for
    /// operation, and applying it gives that document.
    fn check(original: &Value, before: &Value, after: &Value) -> Value {
        let expected = rebase(original, before, after);
        let patch = defaulting_patch(original, before, after);
        assert_eq!(
            patch,
            json_patch::diff(original, &expected),
            "{original} {before} {after}"
        );
        let mut patched = original.clone();
        json_patch::patch(&mut patched, &patch).unwrap();
        assert_eq!(patched, expected);
        patched
    }

    #[test]
    fn patch_keeps_unknown_fields_and_carries_only_changes() {
        let original = json!({"spec": {"size": null, "unknown": 1, "list": [{"a": 1, "x": 9}]}});
        let before = json!({"spec": {"list": [{"a": 1}]}});
        let after = json!({"spec": {"size": 3, "list": [{"a": 2}]}});
        assert_eq!(
            check(&original, &before, &after),
            json!({"spec": {"size": 3, "unknown": 1, "list": [{"a": 2, "x": 9}]}})
        );
    }

    #[test]
    fn removals_by_the_defaulter_are_kept_and_no_change_is_an_empty_patch() {
        let original = json!({"spec": {"a": 1, "b": 2}});
        let before = original.clone();
        let after = json!({"spec": {"a": 1}});
        assert_eq!(check(&original, &before, &after), after);
        assert!(defaulting_patch(&original, &before, &before).0.is_empty());
    }

    #[test]
    fn every_shape_of_change_matches_the_replayed_document() {
        let cases = [
            // Labels added to metadata that had none, beside unknown fields.
            (
                json!({"metadata": {"name": "n", "x-unknown": true}, "data": {"k": "v"}}),
                json!({"metadata": {"name": "n"}, "data": {"k": "v"}}),
                json!({"metadata": {"name": "n", "labels": {"d": "t"}}, "data": {"k": "v"}}),
            ),
            // A key the type omitted (null in the original) set; a key the original lacks.
            (
                json!({"spec": {"a": null, "keep": [1, 2]}}),
                json!({"spec": {"keep": [1, 2]}}),
                json!({"spec": {"a": {"deep": 1}, "keep": [1, 2], "new": "x"}}),
            ),
            // Arrays of other lengths are replaced by the typed one; same length, merged.
            (
                json!({"list": [{"a": 1, "u": 0}, {"a": 2}], "same": [{"a": 1, "u": 0}]}),
                json!({"list": [{"a": 1}, {"a": 2}], "same": [{"a": 1}]}),
                json!({"list": [{"a": 1}], "same": [{"a": 5}]}),
            ),
            // A type change of a member, and of the whole document.
            (
                json!({"v": {"o": 1}, "w": [1]}),
                json!({"v": {"o": 1}, "w": [1]}),
                json!({"v": "now a string", "w": {"k": 1}}),
            ),
            (json!([1, 2]), json!([1, 2]), json!({"k": [3]})),
            // Removed by the defaulter where the original never had it: no operation.
            (json!({"a": 1}), json!({"a": 1, "b": 2}), json!({"a": 1})),
            // Keys that need escaping in a pointer.
            (
                json!({"metadata": {"annotations": {"a/b": "1", "c~d": "2"}}}),
                json!({"metadata": {"annotations": {"a/b": "1", "c~d": "2"}}}),
                json!({"metadata": {"annotations": {"a/b": "3", "e/f": "4"}}}),
            ),
        ];
        for (original, before, after) in &cases {
            check(original, before, after);
        }
    }
}
