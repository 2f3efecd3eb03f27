//! JSON written as kube-apiserver writes it. An object of a built-in kind (and every struct
//! in it) is written as Go's encoder writes its Go type ([`go_types`]): keys in declaration
//! order (`kind` before `apiVersion`), `omitempty` zero values and empty collections left
//! out, absent slices, maps, pointers without `omitempty` and zero times written `null`
//! (empty slices and maps without `omitempty` too: they come back from the real server's
//! protobuf storage as `nil`; a list's `items` excepted), absent struct values written from
//! their own fields; keys the type does not know follow in name order. Maps keep their keys
//! in name order, as Go sorts them.
//!
//! A custom resource (or a list of them) is unstructured on the real server: Go writes its
//! maps, `metadata` and managed fields entries included, with their keys sorted
//! (`apiVersion`, `kind`, `metadata`, ...; a list's `apiVersion`, `items`, `kind`,
//! `metadata`).
//!
//! Anything else (a document of a kind the Go types do not record, a document without a
//! kind) is written with `kind` before `apiVersion`, then `metadata`, `spec` and `status`
//! (or `items`); `metadata` (ObjectMeta and ListMeta), managed fields entries, owner
//! references, watch events and `Status` details in their Go order, other keys in name
//! order.

pub mod raw;
pub mod raw_bytes;
pub mod raw_json_patch;
pub mod raw_node;
pub mod raw_patch;
pub mod raw_path;
pub mod raw_sent;

use serde_json::{Map, Value};

use crate::support::go_types::{self, GoField, Shape, Target};
use crate::support::openapi_schemas;

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
    /// A group of an aggregated discovery document (`APIGroupDiscovery`).
    DiscoveryGroup,
    /// A version of a group there (`APIVersionDiscovery`).
    DiscoveryVersion,
    /// A resource of a version there (`APIResourceDiscovery`).
    DiscoveryResource,
    /// A subresource of a resource there (`APISubresourceDiscovery`).
    DiscoverySubresource,
    /// A resource's or subresource's `responseKind` (`GroupVersionKind`).
    ResponseKind,
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
/// `/version`'s `version.Info`.
const VERSION: &[&str] = &[
    "major",
    "minor",
    "emulationMajor",
    "emulationMinor",
    "minCompatibilityMajor",
    "minCompatibilityMinor",
    "gitVersion",
    "gitCommit",
    "gitTreeState",
    "buildDate",
    "goVersion",
    "compiler",
    "platform",
];
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
/// `/api`'s `APIVersions` (which has no `apiVersion`).
const API_VERSIONS: &[&str] = &["kind", "versions", "serverAddressByClientCIDRs"];
/// The Go types of aggregated discovery (`apidiscovery.k8s.io/v2`), which no OpenAPI schema
/// records.
const DISCOVERY_GROUP: &[&str] = &["metadata", "versions"];
const DISCOVERY_VERSION: &[&str] = &["version", "resources", "freshness"];
const DISCOVERY_RESOURCE: &[&str] = &[
    "resource",
    "responseKind",
    "scope",
    "singularResource",
    "verbs",
    "shortNames",
    "categories",
    "subresources",
];
const DISCOVERY_SUBRESOURCE: &[&str] = &["subresource", "responseKind", "acceptedTypes", "verbs"];
const RESPONSE_KIND: &[&str] = &["group", "version", "kind"];

/// The keys of `map` in the order they are written at `place`: those the place's Go type
/// names first, in its order, then the others by name.
fn ordered(map: &serde_json::Map<String, Value>, place: Place) -> Vec<&String> {
    let first: &[&str] = match place {
        Place::Object if map.get("kind").and_then(Value::as_str) == Some("Status") => STATUS,
        Place::Object if map.contains_key("type") && map.contains_key("object") => EVENT,
        Place::Object if map.contains_key("gitVersion") && map.contains_key("major") => VERSION,
        Place::Object if map.get("kind").and_then(Value::as_str) == Some("APIVersions") => {
            API_VERSIONS
        }
        Place::Object if map.contains_key("kind") || map.contains_key("metadata") => TYPED,
        Place::Metadata => METADATA,
        Place::ManagedField => MANAGED,
        Place::OwnerReference => OWNER,
        Place::Details => DETAILS,
        Place::Cause => CAUSE,
        Place::DiscoveryGroup => DISCOVERY_GROUP,
        Place::DiscoveryVersion => DISCOVERY_VERSION,
        Place::DiscoveryResource => DISCOVERY_RESOURCE,
        Place::DiscoverySubresource => DISCOVERY_SUBRESOURCE,
        Place::ResponseKind => RESPONSE_KIND,
        _ => &[],
    };
    let mut keys: Vec<&String> = first
        .iter()
        .filter_map(|k| map.get_key_value(*k).map(|(k, _)| k))
        .collect();
    keys.extend(map.keys().filter(|k| !first.contains(&k.as_str())));
    keys
}

/// Where the value under `key` of an object at `place` (of kind `kind`, if any) sits.
fn child(place: Place, key: &str, kind: Option<&str>) -> Place {
    match (place, key) {
        (Place::Object, "items") if kind == Some("APIGroupDiscoveryList") => Place::DiscoveryGroup,
        (Place::Object | Place::DiscoveryGroup, "metadata") => Place::Metadata,
        (Place::Object, "object" | "items") => Place::Object,
        (Place::Object, "details") if kind == Some("Status") => Place::Details,
        (Place::Metadata, "managedFields") => Place::ManagedField,
        (Place::Metadata, "ownerReferences") => Place::OwnerReference,
        (Place::Details, "causes") => Place::Cause,
        (Place::DiscoveryGroup, "versions") => Place::DiscoveryVersion,
        (Place::DiscoveryVersion, "resources") => Place::DiscoveryResource,
        (Place::DiscoveryResource, "subresources") => Place::DiscoverySubresource,
        (Place::DiscoveryResource | Place::DiscoverySubresource, "responseKind") => {
            Place::ResponseKind
        }
        _ => Place::Other,
    }
}

/// The Go struct of a document of a built-in kind (by its own `apiVersion` and `kind`).
fn built_in(map: &Map<String, Value>) -> Option<usize> {
    let kind = map.get("kind")?.as_str()?;
    let api_version = map.get("apiVersion")?.as_str()?;
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    go_types::index_of_kind(group, version, kind)
}

/// The groups of the kinds the server writes without serving them as resources.
const UNSERVED_BUILT_IN_GROUPS: &[&str] = &[
    "meta.k8s.io",
    "apidiscovery.k8s.io",
    "admission.k8s.io",
    "audit.k8s.io",
];

/// Whether a document is a custom resource or a list of them: a kind in an API group no
/// built-in kind belongs to.
fn custom(map: &Map<String, Value>) -> bool {
    let (Some(_), Some(api_version)) = (
        map.get("kind").and_then(Value::as_str),
        map.get("apiVersion").and_then(Value::as_str),
    ) else {
        return false;
    };
    let Some((group, _)) = api_version.rsplit_once('/') else {
        return false;
    };
    !UNSERVED_BUILT_IN_GROUPS.contains(&group) && !openapi_schemas::has_group(group)
}

/// `value` with every object's keys in name order, as Go writes a `map[string]interface{}`.
fn write_sorted(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.push(b'{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key).expect("a string serialises");
                out.push(b':');
                write_sorted(out, &map[key]);
            }
            out.push(b'}');
        }
        Value::Array(items) => write_items(out, items, write_sorted),
        scalar => write_scalar(out, scalar),
    }
}

fn key(out: &mut Vec<u8>, name: &str, first: &mut bool) {
    if !*first {
        out.push(b',');
    }
    *first = false;
    serde_json::to_writer(&mut *out, name).expect("a string serialises");
    out.push(b':');
}

/// Writes what Go writes for `field` when the object lacks it (or has it `null`): its zero
/// value, unless the field's tags leave that out.
fn write_absent(out: &mut Vec<u8>, field: &GoField, first: &mut bool) {
    let zero: &[u8] = match field.shape {
        _ if field.omit_zero => return,
        Shape::Struct => {
            key(out, &field.name, first);
            match field.target {
                Target::Struct(index) => write_struct(out, &Map::new(), index),
                _ => out.extend_from_slice(b"{}"),
            }
            return;
        }
        Shape::Time | Shape::Raw => b"null",
        Shape::Quantity => b"\"0\"",
        Shape::IntOrString => b"0",
        Shape::Duration => b"\"0s\"",
        _ if field.omit_empty => return,
        Shape::Pointer | Shape::Slice | Shape::Bytes | Shape::Map => b"null",
        Shape::String => b"\"\"",
        Shape::Int | Shape::Float => b"0",
        Shape::Bool => b"false",
    };
    key(out, &field.name, first);
    out.extend_from_slice(zero);
}

/// Writes `map`, a value of the Go struct at `index`, as Go's encoder writes it.
fn write_struct(out: &mut Vec<u8>, map: &Map<String, Value>, index: usize) {
    let go = go_types::structure(index);
    // An object whose raw fields may have kept texts: the writer looks them up once.
    let _writing = raw::is_raw_kind(index).then(|| raw::writing(map));
    let holds_raw = raw::holds_raw_field(index);
    out.push(b'{');
    let mut first = true;
    let mut known = 0;
    for field in &go.fields {
        match map.get(&field.name) {
            Some(value) => {
                known += 1;
                if value.is_null() || field.comes_back_nil(value) {
                    write_absent(out, field, &mut first);
                } else if !field.leaves_out(value) {
                    key(out, &field.name, &mut first);
                    if holds_raw && raw::is_raw_field(index, &field.name) {
                        out.extend_from_slice(raw::text(value).as_bytes());
                    } else {
                        write_go(out, value, &field.target);
                    }
                }
            }
            None => write_absent(out, field, &mut first),
        }
    }
    if known < map.len() {
        for (name, value) in map {
            if go.field(name).is_none() {
                key(out, name, &mut first);
                write(out, value, Place::Other);
            }
        }
    }
    out.push(b'}');
}

/// Writes `value`, whose Go type `target` gives.
fn write_go(out: &mut Vec<u8>, value: &Value, target: &Target) {
    match (target, value) {
        (Target::Struct(index) | Target::Schemas(index), Value::Object(map)) => {
            write_struct(out, map, *index);
        }
        (Target::List(inner), Value::Array(items)) => {
            write_items(out, items, |out, item| write_go(out, item, inner));
        }
        (Target::Schemas(_), Value::Array(items)) => {
            write_items(out, items, |out, item| write_go(out, item, target));
        }
        (Target::Map(inner), Value::Object(map)) => {
            out.push(b'{');
            let mut first = true;
            for (name, value) in map {
                key(out, name, &mut first);
                write_go(out, value, inner);
            }
            out.push(b'}');
        }
        // A raw value (an embedded object, a Table row's object) is written as a document.
        _ => write(out, value, Place::Object),
    }
}

fn write_items(out: &mut Vec<u8>, items: &[Value], mut each: impl FnMut(&mut Vec<u8>, &Value)) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        each(out, item);
    }
    out.push(b']');
}

fn write(out: &mut Vec<u8>, value: &Value, place: Place) {
    if place == Place::Object
        && let Value::Object(map) = value
        && let Some(index) = built_in(map)
    {
        return write_struct(out, map, index);
    }
    if place == Place::Object
        && let Value::Object(map) = value
        && custom(map)
    {
        return write_sorted(out, value);
    }
    match value {
        Value::Object(map) => {
            let kind = map.get("kind").and_then(Value::as_str);
            out.push(b'{');
            for (i, key) in ordered(map, place).into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key).expect("a string serialises");
                out.push(b':');
                write(out, &map[key], child(place, key, kind));
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
        scalar => write_scalar(out, scalar),
    }
}

/// A scalar as Go's encoder writes it: a float64 in Go's shortest form (`1000`, `1e+21`), not
/// Rust's (`1000.0`, `1e21`).
fn write_scalar(out: &mut Vec<u8>, scalar: &Value) {
    match scalar {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or_default();
            out.extend_from_slice(crate::support::go_encode::float(f).as_bytes());
        }
        _ => serde_json::to_writer(&mut *out, scalar).expect("a scalar serialises"),
    }
}

/// The Go type of a built-in document `root`, for writing parts of it with
/// [`to_vec_as`]; `None` for anything else.
pub fn root_target(root: &Value) -> Option<Target> {
    built_in(root.as_object()?).map(Target::Struct)
}

/// The Go type of the value under `key` of a value whose Go type is `target`.
pub fn member_target(target: &Target, key: &str) -> Option<Target> {
    match target {
        Target::Struct(index) => Some(go_types::structure(*index).field(key)?.target.clone()),
        Target::Map(inner) => Some((**inner).clone()),
        _ => None,
    }
}

/// The Go type of the entries of a list whose Go type is `target`.
pub fn item_target(target: &Target) -> Option<Target> {
    match target {
        Target::List(inner) => Some((**inner).clone()),
        Target::Schemas(_) => Some(target.clone()),
        _ => None,
    }
}

/// `value`, whose Go type is `target`, as JSON in the real server's field order.
pub fn to_vec_as(value: &Value, target: &Target) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    write_go(&mut out, value, target);
    out
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

    fn text(value: &Value) -> String {
        String::from_utf8(to_vec(value)).unwrap()
    }

    #[test]
    fn built_in_objects_are_written_as_go_writes_their_types() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"uid": "u", "name": "d", "labels": {"z": "1", "a": "2"}},
            "spec": {"template": {"spec": {"containers": [{"image": "i", "name": "c",
                "ports": [{"protocol": "TCP", "containerPort": 80}]}]}},
                "selector": {"matchLabels": {"a": "2"}}, "replicas": 1, "paused": false}});
        assert_eq!(
            text(&deployment),
            concat!(
                r#"{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d","uid":"u","labels":{"a":"2","z":"1"}},"#,
                r#""spec":{"replicas":1,"selector":{"matchLabels":{"a":"2"}},"template":{"metadata":{},"#,
                r#""spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{}}]}},"#,
                r#""strategy":{}},"status":{}}"#
            )
        );
        // omitempty zero values are left out, absent slices without omitempty are null.
        let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
            "spec": {"type": "ClusterIP", "externalName": "", "ports": [], "clusterIP": "10.0.0.1"}});
        assert_eq!(
            text(&service),
            r#"{"kind":"Service","apiVersion":"v1","metadata":{"name":"s"},"spec":{"clusterIP":"10.0.0.1","type":"ClusterIP"},"status":{"loadBalancer":{}}}"#
        );
        let role = json!({"kind": "Role", "apiVersion": "rbac.authorization.k8s.io/v1", "metadata": {"name": "r"}});
        assert_eq!(
            text(&role),
            r#"{"kind":"Role","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"name":"r"},"rules":null}"#
        );
        // Times that are not pointers are null; keys the type lacks follow in name order.
        let event = json!({"kind": "Event", "apiVersion": "v1", "metadata": {"name": "e"},
            "involvedObject": {}, "zz": 1, "aa": {"b": 1, "a": 2}, "count": 0});
        assert_eq!(
            text(&event),
            concat!(
                r#"{"kind":"Event","apiVersion":"v1","metadata":{"name":"e"},"involvedObject":{},"#,
                r#""source":{},"firstTimestamp":null,"lastTimestamp":null,"eventTime":null,"reportingComponent":"","#,
                r#""reportingInstance":"","aa":{"a":2,"b":1},"zz":1}"#
            )
        );
    }

    #[test]
    fn lists_and_watch_events_type_their_items() {
        let list = json!({"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {"resourceVersion": "5"},
            "items": [{"metadata": {"name": "a"}, "data": {"k": "v"}, "immutable": false}]});
        assert_eq!(
            text(&list),
            r#"{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"},"immutable":false,"data":{"k":"v"}}]}"#
        );
        // An empty list is `[]`, as the server builds it; a stored empty slice comes back nil.
        let empty = json!({"kind": "RoleList", "apiVersion": "rbac.authorization.k8s.io/v1",
            "metadata": {}, "items": [{"metadata": {"name": "r"}, "rules": []}]});
        assert_eq!(
            text(&empty),
            r#"{"kind":"RoleList","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{},"items":[{"metadata":{"name":"r"},"rules":null}]}"#
        );
        let none = json!({"kind": "RoleList", "apiVersion": "rbac.authorization.k8s.io/v1", "metadata": {}, "items": []});
        assert!(text(&none).ends_with(r#""items":[]}"#));
        let event = json!({"object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}, "type": "ADDED"});
        assert_eq!(
            text(&event),
            r#"{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}}"#
        );
        let status = json!({"code": 404, "kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": "m", "reason": "NotFound", "details": {"kind": "pods", "name": "x"}});
        assert_eq!(
            text(&status),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}"#
        );
    }

    #[test]
    fn crd_schemas_are_written_as_json_schema_props() {
        let crd = json!({"kind": "CustomResourceDefinition", "apiVersion": "apiextensions.k8s.io/v1",
            "metadata": {"name": "w"}, "spec": {"group": "g", "names": {"plural": "ws", "kind": "W"},
                "scope": "Namespaced", "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
                        "type": "array", "items": {"type": "string", "description": "d"}}}}}}]}});
        let written = text(&crd);
        assert!(
            written.contains(
                r#""openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"array","items":{"description":"d","type":"string"}}}}"#
            ),
            "{written}"
        );
    }

    #[test]
    fn custom_resources_are_written_with_sorted_keys_as_unstructured_maps() {
        let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget", "status": {"phase": "Pending"},
            "spec": {"b": 1, "a": 2, "empty": ""},
            "metadata": {"uid": "u", "name": "p", "namespace": "n", "labels": {"z": "1", "a": "2"},
                "managedFields": [{"time": "t", "manager": "m", "operation": "Update"}]}});
        assert_eq!(
            text(&widget),
            r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"labels":{"a":"2","z":"1"},"managedFields":[{"manager":"m","operation":"Update","time":"t"}],"name":"p","namespace":"n","uid":"u"},"spec":{"a":2,"b":1,"empty":""},"status":{"phase":"Pending"}}"#
        );
        let parsed: Value = serde_json::from_slice(&to_vec(&widget)).unwrap();
        assert_eq!(parsed, widget);
        let list = json!({"kind": "WidgetList", "apiVersion": "example.com/v1",
            "metadata": {"resourceVersion": "5", "continue": ""}, "items": [widget]});
        assert!(
            text(&list).starts_with(r#"{"apiVersion":"example.com/v1","items":[{"apiVersion""#)
        );
        let event = json!({"type": "ADDED", "object": {"kind": "Widget", "apiVersion": "example.com/v1", "metadata": {"name": "p"}}});
        assert_eq!(
            text(&event),
            r#"{"type":"ADDED","object":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"p"}}}"#
        );
        // A Status on a custom resource's path is a built-in type, in its Go order.
        let status =
            json!({"apiVersion": "v1", "kind": "Status", "code": 404, "status": "Failure"});
        assert!(text(&status).starts_with(r#"{"kind":"Status","apiVersion":"v1""#));
    }

    #[test]
    fn discovery_documents_are_written_in_their_go_types_order() {
        let versions =
            json!({"kind": "APIVersions", "serverAddressByClientCIDRs": [], "versions": ["v1"]});
        assert_eq!(
            text(&versions),
            r#"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}"#
        );
        let list = json!({"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
            "metadata": {}, "items": [{"versions": [{"freshness": "Current", "version": "v1",
            "resources": [{"verbs": ["get"], "scope": "Cluster", "resource": "r",
                "responseKind": {"kind": "K", "version": "", "group": ""},
                "subresources": [{"verbs": ["get"], "subresource": "status",
                    "responseKind": {"kind": "K", "version": "", "group": ""}}]}]}],
            "metadata": {"name": "g"}}]});
        assert_eq!(
            text(&list),
            concat!(
                r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"#,
                r#""items":[{"metadata":{"name":"g"},"versions":[{"version":"v1","resources":[{"resource":"r","#,
                r#""responseKind":{"group":"","version":"","kind":"K"},"scope":"Cluster","verbs":["get"],"#,
                r#""subresources":[{"subresource":"status","responseKind":{"group":"","version":"","kind":"K"},"#,
                r#""verbs":["get"]}]}],"freshness":"Current"}]}]}"#
            )
        );
    }
}
