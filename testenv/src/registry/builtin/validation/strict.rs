//! What the strict JSON decoder of a built-in kind reports about a request body: unknown
//! fields and fields repeated in one object, in the order it meets them (`unknown field
//! "spec.containers[0].imagee"`, `duplicate field "data"`). `fieldValidation=Strict` refuses
//! the body with them (400), `Warn` (the default) sends each as a warning.
//!
//! The decoder skips what it does not know without looking inside (no repetitions are
//! reported in an unknown field), and hands values without declared fields over as they are
//! (raw values, `x-kubernetes-preserve-unknown-fields`).

use serde_json::{Value, json};

use super::typed::resolve;
use crate::openapi::builtin::{component_prefix, schemas};
use crate::support::go_decode::Node;
use crate::support::go_quote::go_quote;

/// The most strict errors the decoder keeps.
const MAX_ERRORS: usize = 100;

/// The strict decoding errors of a body `node` of `kind` in `group`/`version`, in document
/// order; `skip` says which paths (Go's names) hold raw values whose insides the decoder
/// does not read.
pub fn strict_errors(
    group: &str,
    version: &str,
    kind: &str,
    node: &Node,
    skip: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let component = format!("{}.{kind}", component_prefix(group, version));
    let Some((name, _)) = schemas().get_key_value(&component) else {
        return Vec::new();
    };
    let root = json!({"$ref": format!("#/components/schemas/{name}")});
    strict_errors_of(node, &root, skip)
}

/// The strict decoding errors of a body `node` decoded as the type `root` describes.
pub(super) fn strict_errors_of(
    node: &Node,
    root: &Value,
    skip: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut out = Vec::new();
    walk(node, root, "", skip, &mut out);
    out
}

/// The unknown fields of `object`, the result of a strategic merge patch to `kind` in
/// `group`/`version`, as the real server's patcher finds them converting the result (a Go
/// map, read in sorted key order at every level) into the Go type.
pub fn unknown_fields_sorted(
    group: &str,
    version: &str,
    kind: &str,
    object: &Value,
) -> Vec<String> {
    let component = format!("{}.{kind}", component_prefix(group, version));
    let Some((name, _)) = schemas().get_key_value(&component) else {
        return Vec::new();
    };
    let root = json!({"$ref": format!("#/components/schemas/{name}")});
    strict_errors_of(&sorted_node(object), &root, &|_| false)
}

/// `value` as a decoded document whose objects list their keys sorted.
fn sorted_node(value: &Value) -> Node {
    match value {
        Value::Null => Node::Null,
        Value::Bool(b) => Node::Bool(*b),
        Value::Number(n) => Node::Number(n.to_string()),
        Value::String(s) => Node::String(s.clone()),
        Value::Array(items) => Node::Array(items.iter().map(sorted_node).collect()),
        Value::Object(members) => {
            let mut sorted: Vec<(String, Node)> = members
                .iter()
                .map(|(k, v)| (k.clone(), sorted_node(v)))
                .collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            Node::Object(sorted)
        }
    }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn push(out: &mut Vec<String>, message: String) {
    if out.len() < MAX_ERRORS {
        out.push(message);
    }
}

fn walk(
    node: &Node,
    schema: &Value,
    path: &str,
    skip: &dyn Fn(&str) -> bool,
    out: &mut Vec<String>,
) {
    let (_, schema) = resolve(schema);
    let opaque = schema.get("oneOf").is_some()
        || schema["x-kubernetes-preserve-unknown-fields"] == true
        || matches!(
            schema["format"].as_str(),
            Some("int-or-string" | "date-time")
        );
    if opaque || (!path.is_empty() && skip(path)) {
        return;
    }
    match node {
        Node::Object(members) => {
            let properties = schema["properties"].as_object();
            let values = schema.get("additionalProperties");
            if properties.is_none() && values.is_none() {
                return;
            }
            let mut seen = std::collections::HashSet::new();
            for (key, value) in members {
                let here = child(path, key);
                let first = seen.insert(key.as_str());
                let field = match (properties, values) {
                    (Some(fields), _) => fields.get(key),
                    (None, values) => values,
                };
                // An unknown field is reported once, repeated or not.
                match field {
                    Some(field) => {
                        if !first {
                            push(out, format!("duplicate field {}", go_quote(&here)));
                        }
                        walk(value, field, &here, skip, out);
                    }
                    None if first => push(out, format!("unknown field {}", go_quote(&here))),
                    None => {}
                }
            }
        }
        Node::Array(items) if schema["type"] == "array" => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &schema["items"], &format!("{path}[{i}]"), skip, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::go_decode::parse;

    fn errors(kind: &str, body: &str) -> Vec<String> {
        let node = parse(body.as_bytes()).expect("JSON");
        strict_errors("", "v1", kind, &node, &|_| false)
    }

    #[test]
    fn unknown_and_repeated_fields_in_document_order() {
        let body = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","zzz":1,"name":"x"},"bogus":2,"data":{"a":"b"},"data":{"a":"c"},"aaa":{"b":1,"b":2},"bogus":3}"#;
        assert_eq!(
            errors("ConfigMap", body),
            [
                r#"unknown field "metadata.zzz""#,
                r#"duplicate field "metadata.name""#,
                r#"unknown field "bogus""#,
                r#"duplicate field "data""#,
                r#"unknown field "aaa""#,
            ]
        );
        let pod = r#"{"spec":{"containers":[{"name":"a","image":"i"},{"name":"b","imagee":"i","resources":{"limits":{"cpu":"1"}}}]}}"#;
        assert_eq!(
            errors("Pod", pod),
            [r#"unknown field "spec.containers[1].imagee""#]
        );
    }
}
