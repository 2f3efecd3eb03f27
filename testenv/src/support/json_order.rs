//! JSON written in the order kube-apiserver writes it: `kind` before `apiVersion`, then
//! `metadata`, `spec` and `status` (or `items`, or a `Status`'s fields) as Go's types declare
//! them; `metadata` (ObjectMeta and ListMeta), managed fields entries, owner references,
//! watch events and `Status` details in their Go order too. Other objects keep their keys in
//! name order (serde_json's maps are sorted).

use serde_json::Value;

/// Where an object sits, which decides the order of its keys.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// A document, a list item, a watch event's object: anything that may carry `kind`.
    Object,
    /// `metadata` of an object or a list.
    Metadata,
    /// An entry of `metadata.managedFields`.
    ManagedField,
    /// An entry of `metadata.ownerReferences`.
    OwnerReference,
    /// `details` of a `Status`.
    Details,
    /// An entry of a `Status`'s `details.causes`.
    Cause,
    /// Anything else.
    Other,
}

const TYPED: &[&str] = &["kind", "apiVersion", "metadata", "spec", "status", "items"];
const STATUS: &[&str] = &[
    "kind",
    "apiVersion",
    "metadata",
    "status",
    "message",
    "reason",
    "details",
    "code",
];
const EVENT: &[&str] = &["type", "object"];
const METADATA: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "continue",
    "remainingItemCount",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];
const MANAGED: &[&str] = &[
    "manager",
    "operation",
    "apiVersion",
    "time",
    "fieldsType",
    "fieldsV1",
    "subresource",
];
const OWNER: &[&str] = &[
    "apiVersion",
    "kind",
    "name",
    "uid",
    "controller",
    "blockOwnerDeletion",
];
const DETAILS: &[&str] = &[
    "name",
    "group",
    "kind",
    "uid",
    "causes",
    "retryAfterSeconds",
];
const CAUSE: &[&str] = &["reason", "message", "field"];

/// The keys of `map` in the order they are written at `place`: those the place's Go type
/// names first, in its order, then the others by name.
fn ordered(map: &serde_json::Map<String, Value>, place: Place) -> Vec<&String> {
    let first: &[&str] = match place {
        Place::Object if map.get("kind").and_then(Value::as_str) == Some("Status") => STATUS,
        Place::Object if map.contains_key("type") && map.contains_key("object") => EVENT,
        Place::Object if map.contains_key("kind") || map.contains_key("metadata") => TYPED,
        Place::Metadata => METADATA,
        Place::ManagedField => MANAGED,
        Place::OwnerReference => OWNER,
        Place::Details => DETAILS,
        Place::Cause => CAUSE,
        _ => &[],
    };
    let mut keys: Vec<&String> = first
        .iter()
        .filter_map(|k| map.get_key_value(*k).map(|(k, _)| k))
        .collect();
    keys.extend(map.keys().filter(|k| !first.contains(&k.as_str())));
    keys
}

/// Where the value under `key` of an object at `place` sits.
fn child(place: Place, key: &str, parent_is_status: bool) -> Place {
    match (place, key) {
        (Place::Object, "metadata") => Place::Metadata,
        (Place::Object, "object" | "items") => Place::Object,
        (Place::Object, "details") if parent_is_status => Place::Details,
        (Place::Metadata, "managedFields") => Place::ManagedField,
        (Place::Metadata, "ownerReferences") => Place::OwnerReference,
        (Place::Details, "causes") => Place::Cause,
        _ => Place::Other,
    }
}

fn write(out: &mut Vec<u8>, value: &Value, place: Place) {
    match value {
        Value::Object(map) => {
            let is_status = map.get("kind").and_then(Value::as_str) == Some("Status");
            out.push(b'{');
            for (i, key) in ordered(map, place).into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key).expect("a string serialises");
                out.push(b':');
                write(out, &map[key], child(place, key, is_status));
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                // Entries of a list keep the place of the list (items, managed fields, ...).
                write(out, item, place);
            }
            out.push(b']');
        }
        scalar => serde_json::to_writer(&mut *out, scalar).expect("a scalar serialises"),
    }
}

/// `value` as JSON in the real server's field order.
pub fn to_vec(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    write(&mut out, value, Place::Object);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kind_comes_before_api_version_and_metadata_in_go_order() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "status": {"phase": "Pending"},
            "spec": {"b": 1, "a": 2},
            "metadata": {"uid": "u", "name": "p", "namespace": "n", "labels": {"z": "1", "a": "2"},
                "managedFields": [{"time": "t", "manager": "m", "operation": "Update"}]}});
        let text = String::from_utf8(to_vec(&pod)).unwrap();
        assert_eq!(
            text,
            r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"n","uid":"u","labels":{"a":"2","z":"1"},"managedFields":[{"manager":"m","operation":"Update","time":"t"}]},"spec":{"a":2,"b":1},"status":{"phase":"Pending"}}"#
        );
        let status = json!({"code": 404, "kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": "m", "reason": "NotFound", "details": {"kind": "pods", "name": "x"}});
        assert_eq!(
            String::from_utf8(to_vec(&status)).unwrap(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}"#
        );
        let event = json!({"type": "ADDED", "object": {"apiVersion": "v1", "kind": "ConfigMap", "data": {}, "metadata": {}}});
        assert!(String::from_utf8(to_vec(&event)).unwrap().starts_with(
            r#"{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{}"#
        ));
        let parsed: Value = serde_json::from_slice(&to_vec(&pod)).unwrap();
        assert_eq!(parsed, pod);
    }
}
