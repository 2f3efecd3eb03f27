//! A small object of a CRD version for generated tests: its required fields filled with the
//! simplest values the schema allows (defaults and the first enum value where it has them,
//! bounds and lengths respected). Patterns and CEL rules are not evaluated, so a schema with
//! those may need the example edited.

use serde_json::{Map, Value, json};

use super::crd::{Crd, CrdVersion};
use super::schema::{Additional, Node};

/// Objects nested deeper than this are left empty (a guard against recursive-looking schemas).
const MAX_DEPTH: usize = 64;

/// An object of `version` of `crd` named `name`: `apiVersion`, `kind`, `metadata.name`, `spec`
/// (whether required or not) and every other required root property.
pub fn example_object(crd: &Crd, version: &CrdVersion, name: &str) -> Value {
    let root = Node(&version.schema);
    let mut object = Map::new();
    object.insert(
        "apiVersion".into(),
        Value::String(format!("{}/{}", crd.group, version.name)),
    );
    object.insert("kind".into(), Value::String(crd.kind.clone()));
    object.insert("metadata".into(), json!({ "name": name }));
    if let Some(props) = root.properties() {
        let required = root.required();
        for (key, schema) in props {
            if ["apiVersion", "kind", "metadata", "status"].contains(&key.as_str()) {
                continue;
            }
            if key == "spec" || required.contains(&key.as_str()) {
                object.insert(key.clone(), value(Node(schema), 1));
            }
        }
    }
    Value::Object(object)
}

fn number(node: Node<'_>, key: &str) -> Option<f64> {
    node.0.get(key).and_then(Value::as_f64)
}

fn value(node: Node<'_>, depth: usize) -> Value {
    if let Some(default) = node.default() {
        return default.clone();
    }
    if let Some(first) = node
        .0
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if node.int_or_string() {
        return json!(1);
    }
    match node.ty() {
        Some("object") | None => object(node, depth),
        Some("array") => {
            let min = number(node, "minItems").unwrap_or(0.0) as usize;
            match node.items() {
                Some(items) if min > 0 && depth < MAX_DEPTH => {
                    Value::Array(vec![value(items, depth + 1); min])
                }
                _ => json!([]),
            }
        }
        Some("string") => Value::String(string(node)),
        Some("integer") => json!(integer(node)),
        Some("number") => json!(integer(node) as f64),
        Some("boolean") => json!(false),
        _ => Value::Null,
    }
}

fn object(node: Node<'_>, depth: usize) -> Value {
    let mut out = Map::new();
    if depth < MAX_DEPTH
        && let Some(props) = node.properties()
    {
        for required in node.required() {
            if let Some(schema) = props.get(required) {
                out.insert(required.to_owned(), value(Node(schema), depth + 1));
            }
        }
    }
    if let Additional::Schema(values) = node.additional() {
        let min = number(node, "minProperties").unwrap_or(0.0) as usize;
        for i in 0..min {
            out.insert(format!("key{i}"), value(values, depth + 1));
        }
    }
    Value::Object(out)
}

fn integer(node: Node<'_>) -> i64 {
    let min = number(node, "minimum");
    let max = number(node, "maximum");
    match (min, max) {
        (Some(min), _) => {
            let exclusive = node
                .0
                .get("exclusiveMinimum")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            min.ceil() as i64 + i64::from(exclusive)
        }
        (None, Some(max)) if max < 1.0 => max.floor() as i64,
        _ => 1,
    }
}

fn string(node: Node<'_>) -> String {
    let text = match node.format() {
        Some("date-time") => "2026-01-01T00:00:00Z",
        Some("date") => "2026-01-01",
        Some("byte") => "ZXhhbXBsZQ==",
        Some("duration") => "1h",
        Some("ipv4") => "192.0.2.1",
        Some("ipv6") => "2001:db8::1",
        Some("uri") => "https://example.com",
        Some("email") => "user@example.com",
        _ => "example",
    };
    let mut text = text.to_owned();
    let min = number(node, "minLength").unwrap_or(0.0) as usize;
    while text.len() < min {
        text.push('x');
    }
    if let Some(max) = number(node, "maxLength") {
        text.truncate(max as usize);
    }
    text
}
