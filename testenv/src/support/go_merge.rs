//! A built-in kind's body as Go's decoder fills its Go value when an object repeats a member
//! (`{"spec":{...},"spec":{...}}`): the second decodes into the value the first left, so a
//! struct keeps the fields the second does not name, a map keeps its other keys (each key's
//! value decoded afresh), a list decodes each item into the item at its index (then takes the
//! second list's length), and `null` clears a pointer, slice or map but leaves a struct or a
//! scalar as it was. `serde_json` keeps the last member instead.

use serde_json::{Map, Value};

use super::go_decode::Node;
use super::go_types::{Shape, Target, structure};

/// `node` decoded as Go's decoder decodes it into a fresh value of the Go type `target`.
pub fn decoded(node: &Node, target: &Target) -> Value {
    let mut value = Value::Null;
    decode_into(&mut value, node, target, None);
    value
}

/// Decodes `node` into `current`, a value of the Go type `target` (a struct field's `shape`
/// when it is one).
fn decode_into(current: &mut Value, node: &Node, target: &Target, shape: Option<Shape>) {
    match (node, target) {
        (Node::Null, _) => {
            // Go sets a nil-able value (a pointer, slice, map or raw value) to nil and leaves
            // any other (a struct, a scalar) as it is.
            let nil_able = match shape {
                Some(shape) => matches!(
                    shape,
                    Shape::Pointer | Shape::Slice | Shape::Map | Shape::Bytes | Shape::Raw
                ),
                None => matches!(target, Target::List(_) | Target::Map(_)),
            };
            if nil_able {
                *current = Value::Null;
            }
        }
        (Node::Object(members), Target::Struct(index)) => {
            if !current.is_object() {
                *current = Value::Object(Map::new());
            }
            let go = structure(*index);
            for (key, value) in members {
                let map = current.as_object_mut().expect("made an object above");
                let slot = map.entry(key.clone()).or_insert(Value::Null);
                match go.field(key) {
                    Some(field) => decode_into(slot, value, &field.target, Some(field.shape)),
                    // Not a field of the type: what follows drops or refuses it.
                    None => *slot = plain(value),
                }
            }
        }
        (Node::Object(members), Target::Map(inner)) => {
            if !current.is_object() {
                *current = Value::Object(Map::new());
            }
            let map = current.as_object_mut().expect("made an object above");
            for (key, value) in members {
                map.insert(key.clone(), decoded(value, inner));
            }
        }
        (Node::Array(items), Target::List(inner)) => {
            if !current.is_array() {
                *current = Value::Array(Vec::new());
            }
            let list = current.as_array_mut().expect("made an array above");
            for (i, item) in items.iter().enumerate() {
                match list.get_mut(i) {
                    Some(slot) => decode_into(slot, item, inner, None),
                    None => list.push(decoded(item, inner)),
                }
            }
            list.truncate(items.len());
        }
        // Scalars, raw values, free-form values and what does not fit its type (the
        // decoder's type error refuses it): the value as written.
        _ => *current = plain(node),
    }
}

/// `node` as `serde_json` reads it (a repeated member: the last one).
fn plain(node: &Node) -> Value {
    match node {
        Node::Null => Value::Null,
        Node::Bool(b) => Value::Bool(*b),
        Node::Number(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        Node::String(text) => Value::String(text.clone()),
        Node::Array(items) => Value::Array(items.iter().map(plain).collect()),
        Node::Object(members) => {
            let mut map = Map::new();
            for (key, value) in members {
                map.insert(key.clone(), plain(value));
            }
            Value::Object(map)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::go_decode::parse;
    use crate::support::go_types::index_of_kind;
    use serde_json::json;

    fn decode(kind: &str, text: &str) -> Value {
        let target = Target::Struct(index_of_kind("", "v1", kind).unwrap());
        decoded(&parse(text.as_bytes()).unwrap(), &target)
    }

    // The answers a real kube-apiserver v1.34.9 gave to these bodies.
    #[test]
    fn maps_merge_their_keys_and_null_clears_them() {
        let cm = decode(
            "ConfigMap",
            r#"{"metadata":{"name":"d","labels":{"a":"1"},"labels":{"b":"2"}},"data":{"x":"1","y":"2"},"data":{"y":"3","z":"4"}}"#,
        );
        assert_eq!(cm["metadata"]["labels"], json!({"a": "1", "b": "2"}));
        assert_eq!(cm["data"], json!({"x": "1", "y": "3", "z": "4"}));
        let cleared = decode(
            "ConfigMap",
            r#"{"metadata":{"name":"d","labels":{"a":"1"},"labels":null},"data":{"x":"1"},"data":null}"#,
        );
        assert_eq!(
            (&cleared["metadata"]["labels"], &cleared["data"]),
            (&Value::Null, &Value::Null)
        );
    }

    #[test]
    fn structs_merge_lists_merge_by_index_and_null_leaves_a_struct() {
        let svc = decode(
            "Service",
            r#"{"spec":{"ports":[{"port":80,"name":"a"}],"selector":{"a":"b"}},"spec":{"ports":[{"port":81}]}}"#,
        );
        assert_eq!(svc["spec"]["ports"], json!([{"port": 81, "name": "a"}]));
        assert_eq!(svc["spec"]["selector"], json!({"a": "b"}));
        let kept = decode(
            "Service",
            r#"{"spec":{"ports":[{"port":80,"name":"a","port":82}],"selector":{"a":"b"}},"spec":null}"#,
        );
        assert_eq!(kept["spec"]["ports"], json!([{"port": 82, "name": "a"}]));
        let shorter = decode(
            "Service",
            r#"{"spec":{"ports":[{"port":80},{"port":90}]},"spec":{"ports":[{"name":"x"}]}}"#,
        );
        assert_eq!(shorter["spec"]["ports"], json!([{"port": 80, "name": "x"}]));
        let pod = decode(
            "Pod",
            r#"{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1"}},"resources":{"requests":{"cpu":"500m"}}}]},"spec":{"restartPolicy":"Never"}}"#,
        );
        assert_eq!(
            pod["spec"]["containers"][0]["resources"],
            json!({"limits": {"cpu": "1"}, "requests": {"cpu": "500m"}})
        );
        assert_eq!(pod["spec"]["restartPolicy"], "Never");
    }
}
