//! A strategic merge patch as Go's `StrategicMergeMapPatch` leaves it. The real server quotes
//! the patch map in a strict decoding error after the merge, and the merge deletes from the
//! patch the directives it consumes: a map's `$patch: replace` and `$retainKeys`, and each
//! `$setElementOrder/<list>` together with `<list>` once merged into the original. It does so
//! only in the maps it merges into a map of the original; a map the original lacks is taken
//! as it is, and list entries are never changed (so their directives stay).

use serde_json::{Map, Value};

/// `patch` as merging it into `original` leaves it.
pub fn leftover(original: &Value, patch: &Value) -> Value {
    let mut out = patch.clone();
    if let (Some(original), Some(patch)) = (original.as_object(), out.as_object_mut()) {
        consume(original, patch);
    }
    out
}

fn consume(original: &Map<String, Value>, patch: &mut Map<String, Value>) {
    match patch.get("$patch").and_then(Value::as_str) {
        Some("replace") => {
            patch.remove("$patch");
            return;
        }
        Some(_) => return,
        None => {}
    }
    patch.remove("$retainKeys");
    let orders: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with("$setElementOrder/"))
        .cloned()
        .collect();
    for order in orders {
        patch.remove(&order);
        if let Some(list) = order.strip_prefix("$setElementOrder/") {
            patch.remove(list);
        }
    }
    for (key, value) in patch.iter_mut() {
        if let (Value::Object(inner), Some(Value::Object(before))) = (value, original.get(key)) {
            consume(before, inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn consumed_directives_are_gone_list_entries_untouched() {
        let original = json!({"metadata": {"labels": {"a": "b"}}, "spec": {"template": {"spec": {"containers": [{"name": "c"}]}}, "strategy": {}}});
        let patch = json!({
            "metadata": {"labels": {"$patch": "replace", "q": "r"}, "annotations": {"$patch": "replace"}},
            "spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "c"}],
                "containers": [{"name": "c"}], "$deleteFromPrimitiveList/x": ["a"]}},
                "strategy": {"$retainKeys": ["type"], "type": "Recreate"},
                "selector": {"$retainKeys": []}},
            "zz": [{"$patch": "delete", "name": "c"}]});
        assert_eq!(
            leftover(&original, &patch),
            json!({
                "metadata": {"labels": {"q": "r"}, "annotations": {"$patch": "replace"}},
                "spec": {"template": {"spec": {"$deleteFromPrimitiveList/x": ["a"]}},
                    "strategy": {"type": "Recreate"}, "selector": {"$retainKeys": []}},
                "zz": [{"$patch": "delete", "name": "c"}]})
        );
    }
}
