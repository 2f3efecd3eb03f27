//! Structural defaulting of custom resources, as the apiextensions apiserver does on
//! decode (after pruning, before validation):
//!
//! 1. a `null` value of a property that is not `nullable` and has no `default` is removed;
//! 2. a property with a `default` that is absent (or `null` while not nullable) gets a copy of
//!    the default;
//! 3. defaulting recurses into every value that exists (including values just defaulted),
//!    through `properties`, `additionalProperties` and `items`.
//!
//! Defaults are never applied inside objects that do not exist: a default on `spec.a.b`
//! does nothing when `spec.a` is absent, unless `spec.a` itself has a default.

use serde_json::{Map, Value};

/// Applies the schema's `default`s to `object` in place (see the module docs for the rules).
pub fn apply_defaults(object: &mut Value, schema: &Value) {
    if let Some(s) = schema.as_object() {
        prune_nulls(object, s);
        default_value(object, s);
    }
}

fn flag(s: &Map<String, Value>, key: &str) -> bool {
    s.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn items(s: &Map<String, Value>) -> Option<&Map<String, Value>> {
    s.get("items").and_then(Value::as_object)
}

fn additional(s: &Map<String, Value>) -> Option<&Map<String, Value>> {
    s.get("additionalProperties").and_then(Value::as_object)
}

fn props(s: &Map<String, Value>) -> Option<&Map<String, Value>> {
    s.get("properties").and_then(Value::as_object)
}

/// `null` for a non-nullable field counts as absent.
fn is_non_nullable_null(v: &Value, s: &Map<String, Value>) -> bool {
    v.is_null() && !flag(s, "nullable")
}

fn prune_nulls(v: &mut Value, s: &Map<String, Value>) {
    match v {
        Value::Object(map) => {
            if let Some(props) = props(s) {
                map.retain(|k, v| {
                    !(v.is_null()
                        && props
                            .get(k)
                            .and_then(Value::as_object)
                            .is_some_and(|p| !p.contains_key("default") && !flag(p, "nullable")))
                });
            }
            for (k, v) in map.iter_mut() {
                let sub = props(s)
                    .and_then(|p| p.get(k))
                    .and_then(Value::as_object)
                    .or_else(|| additional(s));
                if let Some(sub) = sub {
                    prune_nulls(v, sub);
                }
            }
        }
        Value::Array(list) => {
            if let Some(item) = items(s) {
                for v in list {
                    prune_nulls(v, item);
                }
            }
        }
        _ => {}
    }
}

fn default_value(v: &mut Value, s: &Map<String, Value>) {
    match v {
        Value::Object(map) => {
            if let Some(props) = props(s) {
                for (k, prop) in props {
                    let Some(prop) = prop.as_object() else {
                        continue;
                    };
                    let Some(default) = prop.get("default") else {
                        continue;
                    };
                    let absent = map.get(k).is_none_or(|cur| is_non_nullable_null(cur, prop));
                    if absent {
                        map.insert(k.clone(), default.clone());
                    }
                }
            }
            for (k, v) in map.iter_mut() {
                if let Some(prop) = props(s).and_then(|p| p.get(k)).and_then(Value::as_object) {
                    default_value(v, prop);
                } else if let Some(add) = additional(s) {
                    if is_non_nullable_null(v, add)
                        && let Some(d) = add.get("default")
                    {
                        *v = d.clone();
                    }
                    default_value(v, add);
                }
            }
        }
        Value::Array(list) => {
            if let Some(item) = items(s) {
                for v in list {
                    if is_non_nullable_null(v, item)
                        && let Some(d) = item.get("default")
                    {
                        *v = d.clone();
                    }
                    default_value(v, item);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_absent_fields_and_recurse() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "size": {"type": "integer", "default": 1},
            "image": {"type": "string", "default": "memcached:1.6"},
            "opts": {"type": "object", "default": {}, "properties": {"verbose": {"type": "boolean", "default": false}}},
            "absent": {"type": "object", "properties": {"x": {"type": "integer", "default": 5}}},
            "ports": {"type": "array", "items": {"type": "object", "properties": {"protocol": {"type": "string", "default": "TCP"}}}},
            "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {"w": {"type": "integer", "default": 2}}}},
        }}}});
        let mut obj = json!({"spec": {"size": 3, "ports": [{"port": 80}, {"protocol": "UDP"}], "map": {"a": {}}}});
        apply_defaults(&mut obj, &schema);
        assert_eq!(
            obj,
            json!({"spec": {"size": 3, "image": "memcached:1.6", "opts": {"verbose": false},
                "ports": [{"port": 80, "protocol": "TCP"}, {"protocol": "UDP"}], "map": {"a": {"w": 2}}}})
        );
    }

    #[test]
    fn null_handling_follows_nullable() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "a": {"type": "string", "default": "x"},
            "b": {"type": "string"},
            "c": {"type": "string", "nullable": true, "default": "y"},
            "d": {"type": "string", "nullable": true},
        }}}});
        let mut obj = json!({"spec": {"a": null, "b": null, "c": null, "d": null}});
        apply_defaults(&mut obj, &schema);
        assert_eq!(obj, json!({"spec": {"a": "x", "c": null, "d": null}}));
    }
}
