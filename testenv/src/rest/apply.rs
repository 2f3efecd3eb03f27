//! Server-side apply, approximated: each field manager's last applied configuration is kept
//! (in memory, per object uid), so that a field a manager applied before and leaves out
//! now is removed, unless another manager's applied configuration still sets it. Lists
//! are merged (strategic keys on built-ins) or replaced (custom resources), not tracked
//! item by item; `managedFields` are not published and there are no apply conflicts.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

/// (storage key, namespace, name)
type Key = (String, String, String);

/// The last configuration each manager applied to each object.
#[derive(Default)]
pub struct AppliedConfigs {
    /// object → (uid, manager → configuration)
    by_object: HashMap<Key, (String, BTreeMap<String, Value>)>,
}

/// Where an object is stored: (storage key, namespace, name).
pub type At<'a> = (&'a str, &'a str, &'a str);

fn key((storage_key, ns, name): At<'_>) -> Key {
    (storage_key.to_string(), ns.to_string(), name.to_string())
}

/// Paths (as key lists) of object fields present in `before` and absent from `after`.
fn removed_paths(
    before: &Map<String, Value>,
    after: &Map<String, Value>,
    prefix: &mut Vec<String>,
    out: &mut Vec<Vec<String>>,
) {
    for (k, v) in before {
        prefix.push(k.clone());
        match (v, after.get(k)) {
            (_, None) => out.push(prefix.clone()),
            (Value::Object(b), Some(Value::Object(a))) => removed_paths(b, a, prefix, out),
            _ => {}
        }
        prefix.pop();
    }
}

fn has_path(v: &Value, path: &[String]) -> bool {
    let mut cur = v;
    for seg in path {
        match cur.get(seg) {
            Some(next) => cur = next,
            None => return false,
        }
    }
    true
}

fn remove_path(v: &mut Value, path: &[String]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = v;
    for seg in parents {
        match cur.get_mut(seg) {
            Some(next) => cur = next,
            None => return,
        }
    }
    if let Some(m) = cur.as_object_mut() {
        m.remove(last);
    }
}

impl AppliedConfigs {
    /// Removes from `object` the fields `manager` applied before but not in `config`, unless
    /// another manager's configuration still sets them.
    pub fn prune_dropped(
        &self,
        at: At<'_>,
        uid: &str,
        manager: &str,
        config: &Value,
        object: &mut Value,
    ) {
        let Some((recorded_uid, managers)) = self.by_object.get(&key(at)) else {
            return;
        };
        if recorded_uid != uid {
            return;
        }
        let (Some(Value::Object(before)), Some(after)) =
            (managers.get(manager), config.as_object())
        else {
            return;
        };
        let mut paths = Vec::new();
        removed_paths(before, after, &mut Vec::new(), &mut paths);
        for path in paths {
            let kept_by_other = managers
                .iter()
                .any(|(m, c)| m != manager && has_path(c, &path));
            if !kept_by_other {
                remove_path(object, &path);
            }
        }
    }

    /// Records what `manager` applied to the object with `uid`.
    pub fn record(&mut self, at: At<'_>, uid: &str, manager: &str, config: Value) {
        let entry = self
            .by_object
            .entry(key(at))
            .or_insert_with(|| (uid.to_string(), BTreeMap::new()));
        if entry.0 != uid {
            *entry = (uid.to_string(), BTreeMap::new());
        }
        entry.1.insert(manager.to_string(), config);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dropped_fields_go_unless_another_manager_keeps_them() {
        let mut applied = AppliedConfigs::default();
        applied.record(
            ("k", "ns", "o"),
            "u1",
            "a",
            json!({"spec": {"x": 1, "y": 2, "z": 3}}),
        );
        applied.record(("k", "ns", "o"), "u1", "b", json!({"spec": {"z": 3}}));
        let mut object = json!({"spec": {"x": 1, "y": 2, "z": 3, "w": 4}});
        applied.prune_dropped(
            ("k", "ns", "o"),
            "u1",
            "a",
            &json!({"spec": {"x": 1}}),
            &mut object,
        );
        assert_eq!(object, json!({"spec": {"x": 1, "z": 3, "w": 4}}));
        // A re-created object (new uid) starts afresh.
        let mut fresh = json!({"spec": {"y": 2}});
        applied.prune_dropped(
            ("k", "ns", "o"),
            "u2",
            "a",
            &json!({"spec": {}}),
            &mut fresh,
        );
        assert_eq!(fresh, json!({"spec": {"y": 2}}));
    }
}
