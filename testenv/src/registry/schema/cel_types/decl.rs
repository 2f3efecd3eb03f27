//! The CEL declaration of a schema node, as apiextensions derives it (`SchemaDeclType`):
//! its type, and the most elements a value of it can have in one request, which the cost
//! estimator uses for sizes (`maxLength`, `maxItems`, `maxProperties`, else what fits in
//! the 3 MiB request limit).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::super::cel_value::escape_property;
use super::types::Type;
pub use super::types::{Decl, Shape};

/// kube-apiserver's request size limit, from which unbounded sizes are estimated.
const MAX_REQUEST_SIZE: i64 = 3 * 1024 * 1024;
/// The shortest JSON string, `""`.
const MIN_STRING_SIZE: i64 = 2;
/// The longest duration, timestamp and date as JSON strings, and the shortest ones.
const MAX_DURATION_SIZE: i64 = 32;
const MIN_DURATION_SIZE: i64 = 3;
const MAX_DATETIME_SIZE: i64 = 32;
const MIN_DATETIME_SIZE: i64 = 21;
const DATE_SIZE: i64 = 12;

fn scalar(t: Type, max: i64, min: i64) -> Decl {
    Decl {
        shape: Shape::Scalar(t),
        max_elements: max.max(0) as u64,
        min_size: min,
        name: String::new(),
    }
}

fn int(s: &Value, key: &str) -> Option<i64> {
    s.get(key).and_then(Value::as_i64)
}

/// The declaration of `schema` (a structural schema node), or `None` when CEL cannot see it.
/// `root` adds `apiVersion`, `kind` and `metadata.name`/`generateName`, as at the root of a
/// resource and of an embedded resource.
pub fn of_schema(schema: &Value, root: bool, name: &str) -> Option<Arc<Decl>> {
    let flag = |k: &str| schema.get(k).and_then(Value::as_bool) == Some(true);
    if flag("x-kubernetes-int-or-string") {
        let max = int(schema, "maxLength").map_or(MAX_REQUEST_SIZE - 2, |m| m.max(0) * 4);
        return Some(Arc::new(scalar(Type::Dyn, max, 1)));
    }
    let ty = schema.get("type").and_then(Value::as_str).unwrap_or("");
    let decl = match ty {
        "array" => {
            let items = schema.get("items").filter(|i| i.is_object())?;
            let item = of_schema(
                items,
                flag_of(items, "x-kubernetes-embedded-resource"),
                name,
            )?;
            let max = int(schema, "maxItems")
                .map_or((MAX_REQUEST_SIZE - 2) / (item.min_size + 1), |m| m.max(0));
            Decl {
                shape: Shape::List(item),
                max_elements: max as u64,
                min_size: 2,
                name: String::new(),
            }
        }
        "object" => {
            if let Some(add) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                let values = of_schema(add, flag_of(add, "x-kubernetes-embedded-resource"), name)?;
                let max = int(schema, "maxProperties")
                    .map_or((MAX_REQUEST_SIZE - 2) / (values.min_size + 6), |m| m.max(0));
                Decl {
                    shape: Shape::Map(values),
                    max_elements: max as u64,
                    min_size: 2,
                    name: String::new(),
                }
            } else {
                object(schema, root, name)
            }
        }
        "string" => match schema.get("format").and_then(Value::as_str).unwrap_or("") {
            "byte" => {
                let max = int(schema, "maxLength").map_or(MAX_REQUEST_SIZE - 2, |m| m.max(0));
                scalar(Type::Bytes, max, MIN_STRING_SIZE)
            }
            "duration" => scalar(Type::Duration, MAX_DURATION_SIZE, MIN_DURATION_SIZE),
            "date" => scalar(Type::Timestamp, DATE_SIZE, DATE_SIZE),
            "date-time" => scalar(Type::Timestamp, MAX_DATETIME_SIZE, MIN_DATETIME_SIZE),
            _ => {
                let max = match int(schema, "maxLength") {
                    Some(m) => m.max(0) * 4,
                    None => match schema.get("enum").and_then(Value::as_array) {
                        Some(e) if !e.is_empty() => e
                            .iter()
                            .filter_map(Value::as_str)
                            .map(|s| s.len() as i64)
                            .max()
                            .unwrap_or(0),
                        _ => MAX_REQUEST_SIZE - 2,
                    },
                };
                scalar(Type::String, max, MIN_STRING_SIZE)
            }
        },
        "boolean" => scalar(Type::Bool, 0, 4),
        "number" => scalar(Type::Double, 0, 1),
        "integer" => scalar(Type::Int, 0, 1),
        _ if root => object(schema, root, name),
        _ => return None,
    };
    Some(Arc::new(decl))
}

fn flag_of(schema: &Value, key: &str) -> bool {
    schema.get(key).and_then(Value::as_bool) == Some(true)
}

fn object(schema: &Value, root: bool, name: &str) -> Decl {
    let mut fields = BTreeMap::new();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut min_size = 2;
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (prop, sub) in props {
            let child_name = format!("{name}.{prop}");
            let embedded = flag_of(sub, "x-kubernetes-embedded-resource");
            let Some(decl) = of_schema(sub, embedded, &child_name) else {
                continue;
            };
            if required.contains(&prop.as_str()) && sub.get("default").is_none() {
                min_size += prop.len() as i64 + decl.min_size + 4;
            }
            if let Some(escaped) = escape_property(prop) {
                fields.insert(escaped, decl);
            }
        }
    }
    if root {
        let string = || Arc::new(scalar(Type::String, MAX_REQUEST_SIZE - 2, MIN_STRING_SIZE));
        for k in ["apiVersion", "kind"] {
            fields.entry(k.to_string()).or_insert_with(string);
        }
        let meta_ok = fields
            .get("metadata")
            .is_some_and(|m| m.field("name").is_some() && m.field("generateName").is_some());
        if !meta_ok {
            let meta: BTreeMap<String, Arc<Decl>> =
                [("name", string()), ("generateName", string())]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect();
            fields.insert(
                "metadata".into(),
                Arc::new(Decl {
                    shape: Shape::Object(meta),
                    max_elements: 0,
                    min_size: 2,
                    name: format!("{name}.metadata"),
                }),
            );
        }
    }
    Decl {
        shape: Shape::Object(fields),
        max_elements: 0,
        min_size,
        name: name.to_string(),
    }
}

/// The size estimate of the node at `path` below `root` (`self`, then field names,
/// `@items`, `@values`, `@keys`), as the real server's size estimator finds it.
pub fn max_elements(root: &Arc<Decl>, path: &[String]) -> Option<u64> {
    let mut cur = root;
    for step in path.iter().skip(1) {
        cur = match step.as_str() {
            "@items" | "@values" => cur.elem()?,
            // The keys of a map are plain strings with no size bound declared: the real
            // estimator finds 0 for them.
            "@keys" => return matches!(cur.shape, Shape::Map(_)).then_some(0),
            field => cur.field(field)?,
        };
    }
    Some(cur.max_elements)
}
