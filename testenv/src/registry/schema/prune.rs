//! Structural pruning: drops every field the schema does not specify, as the apiextensions
//! apiserver does when it decodes a custom resource.
//!
//! Rules (apiextensions' pruning algorithm):
//! - at the resource root `apiVersion`, `kind` and `metadata` are never touched (metadata is
//!   the server's ObjectMeta business, not the schema's);
//! - `x-kubernetes-preserve-unknown-fields: true` keeps unknown fields of that node (known
//!   ones are still pruned inside);
//! - `x-kubernetes-embedded-resource: true` keeps the node's `apiVersion`, `kind` (strings)
//!   and `metadata`;
//! - an object with `additionalProperties` prunes each value with that schema;
//! - an object node without properties, additionalProperties or preserve-unknown-fields is
//!   emptied; list items are pruned with `items`.

use super::values::{child, index};
use serde_json::{Map, Value};

/// Removes fields not in `schema` from `object` and returns the removed paths, sorted, each
/// with a leading dot (`.spec.foo`, `.spec.list[0].bar`).
///
/// The server reports them as `unknown field "spec.foo"` (see [`unknown_field_message`]):
/// a Warning header for `fieldValidation=Warn`, a 400 `strict decoding error` for `Strict`
/// (see [`strict_decoding_error`]), nothing for `Ignore`.
pub fn prune(object: &mut Value, schema: &Value) -> Vec<String> {
    let mut pruned = Vec::new();
    if let Value::Object(map) = object {
        let s = schema.as_object();
        prune_object(map, s, "", true, &mut pruned);
    }
    pruned.sort();
    pruned.into_iter().map(|p| format!(".{p}")).collect()
}

/// The fields of `object` that `schema` does not declare, as server-side apply reports them
/// when it types an applied configuration: the first such field of each object (in key
/// order; the real server takes one per object, in Go's map order), with a leading dot.
pub fn undeclared_fields(object: &Value, schema: &Value) -> Vec<String> {
    let mut copy = object.clone();
    let mut seen_parents = std::collections::HashSet::new();
    prune(&mut copy, schema)
        .into_iter()
        .filter(|path| {
            let parent = path
                .rfind(['.', '['])
                .map_or("", |i| &path[..i])
                .to_string();
            seen_parents.insert(parent)
        })
        .collect()
}

/// The text the server uses for one pruned path: `unknown field "spec.foo"` (the path may be
/// given with or without its leading dot).
pub fn unknown_field_message(path: &str) -> String {
    format!(
        "unknown field {}",
        super::errors::go_quote(path.strip_prefix('.').unwrap_or(path))
    )
}

/// The message of the 400 BadRequest the server returns for `fieldValidation=Strict` when
/// fields were pruned: `strict decoding error: unknown field "spec.a", unknown field "spec.b"`.
pub fn strict_decoding_error(paths: &[String]) -> String {
    let parts: Vec<String> = paths.iter().map(|p| unknown_field_message(p)).collect();
    format!("strict decoding error: {}", parts.join(", "))
}

/// The full message of that 400 as the apiserver words it:
/// `Memcached in version "v1alpha1" cannot be handled as a Memcached: strict decoding error:
/// unknown field "spec.foo"`.
pub fn strict_decoding_status_message(kind: &str, version: &str, paths: &[String]) -> String {
    format!(
        "{kind} in version {} cannot be handled as a {kind}: {}",
        super::errors::go_quote(version),
        strict_decoding_error(paths)
    )
}

fn flag(s: &Map<String, Value>, key: &str) -> bool {
    s.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn prune_value(v: &mut Value, s: Option<&Map<String, Value>>, path: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => prune_object(map, s, path, false, out),
        Value::Array(items) => {
            let item_schema = s.and_then(|s| s.get("items")).and_then(Value::as_object);
            let preserve = s.is_some_and(|s| flag(s, "x-kubernetes-preserve-unknown-fields"));
            for (i, item) in items.iter_mut().enumerate() {
                if preserve && item_schema.is_none() {
                    continue;
                }
                prune_value(item, item_schema, &index(path, i), out);
            }
        }
        _ => {}
    }
}

fn prune_object(
    map: &mut Map<String, Value>,
    s: Option<&Map<String, Value>>,
    path: &str,
    resource_root: bool,
    out: &mut Vec<String>,
) {
    let preserve = s.is_some_and(|s| flag(s, "x-kubernetes-preserve-unknown-fields"));
    let embedded = s.is_some_and(|s| flag(s, "x-kubernetes-embedded-resource"));
    let props = s
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    let additional = s
        .and_then(|s| s.get("additionalProperties"))
        .and_then(Value::as_object);
    let mut remove = Vec::new();
    for (k, v) in map.iter_mut() {
        let p = child(path, k);
        if resource_root && matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
            continue;
        }
        if embedded
            && (matches!(k.as_str(), "apiVersion" | "kind") && v.is_string() || k == "metadata")
        {
            continue;
        }
        if let Some(prop) = props.and_then(|p| p.get(k)) {
            prune_value(v, prop.as_object(), &p, out);
        } else if let Some(add) = additional {
            prune_value(v, Some(add), &p, out);
        } else if !preserve {
            remove.push(k.clone());
            out.push(p);
        }
    }
    for k in remove {
        map.remove(&k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prunes_unknown_fields_and_reports_paths() {
        let schema = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "size": {"type": "integer"},
            "list": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "tpl": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {"spec": {"type": "object"}}},
        }}}});
        let mut obj = json!({
            "apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a", "labels": {"x": "y"}},
            "status": {"ready": true},
            "spec": {"size": 1, "foo": 2, "list": [{"a": "x", "b": 1}],
                     "labels": {"k": "v"}, "free": {"anything": {"goes": 1}},
                     "tpl": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"x": 1}, "other": 1}}
        });
        let pruned = prune(&mut obj, &schema);
        assert_eq!(
            pruned,
            vec![
                ".spec.foo",
                ".spec.list[0].b",
                ".spec.tpl.other",
                ".spec.tpl.spec.x",
                ".status"
            ]
        );
        assert_eq!(
            obj,
            json!({
                "apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a", "labels": {"x": "y"}},
                "spec": {"size": 1, "list": [{"a": "x"}], "labels": {"k": "v"}, "free": {"anything": {"goes": 1}},
                         "tpl": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}}
            })
        );
        assert_eq!(
            unknown_field_message(&pruned[0]),
            r#"unknown field "spec.foo""#
        );
        assert_eq!(
            strict_decoding_status_message("Memcached", "v1alpha1", &pruned[..1]),
            r#"Memcached in version "v1alpha1" cannot be handled as a Memcached: strict decoding error: unknown field "spec.foo""#
        );
        assert_eq!(
            strict_decoding_error(&pruned[..2]),
            r#"strict decoding error: unknown field "spec.foo", unknown field "spec.list[0].b""#
        );
    }

    #[test]
    fn preserve_unknown_fields_at_root_keeps_everything() {
        let schema = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
        let mut obj = json!({"spec": {"a": 1}, "extra": [1]});
        assert!(prune(&mut obj, &schema).is_empty());
        assert_eq!(obj, json!({"spec": {"a": 1}, "extra": [1]}));
    }
}
