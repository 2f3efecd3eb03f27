//! JSON values as CEL sees them: typed by their structural schema, as the apiextensions
//! apiserver converts them (`integer` is `int`, `number` is `double`, int-or-string is
//! whichever it holds), with object property names escaped into CEL identifiers.

use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// CEL's reserved words; a property with one of these names is `__name__` in CEL.
const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// The name a schema property has in CEL, or `None` if it cannot be written as an
/// identifier (such a property is not accessible, as on the real server).
///
/// Escapes as apiextensions does: `__` becomes `__underscores__`, `.` `__dot__`, `-`
/// `__dash__`, `/` `__slash__`, and a reserved word `w` becomes `__w__`.
pub fn escape_property(name: &str) -> Option<String> {
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let escaped = name
        .replace("__", "__underscores__")
        .replace('.', "__dot__")
        .replace('-', "__dash__")
        .replace('/', "__slash__");
    let mut chars = escaped.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    (first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(escaped)
}

fn schema_type(schema: &Value) -> &str {
    schema.get("type").and_then(Value::as_str).unwrap_or("")
}

fn property_schema<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
    schema
        .get("properties")
        .and_then(|p| p.get(key))
        .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()))
}

/// Converts `value` to a CEL value, typed by `schema` (an empty schema types by the JSON
/// value: integral numbers are `int`).
pub fn to_cel(value: &Value, schema: &Value) -> cel::Value {
    match value {
        Value::Null => cel::Value::Null,
        Value::Bool(b) => cel::Value::Bool(*b),
        Value::Number(n) => match schema_type(schema) {
            "number" => cel::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            _ => match n.as_i64() {
                Some(i) => cel::Value::Int(i),
                None => match n.as_u64() {
                    Some(u) => cel::Value::UInt(u),
                    None => {
                        let f = n.as_f64().unwrap_or(f64::NAN);
                        if schema_type(schema) == "integer" && f.fract() == 0.0 {
                            cel::Value::Int(f as i64)
                        } else {
                            cel::Value::Float(f)
                        }
                    }
                },
            },
        },
        Value::String(s) => cel::Value::String(Arc::new(s.clone())),
        Value::Array(items) => {
            let item_schema = schema.get("items").unwrap_or(&Value::Null);
            cel::Value::List(Arc::new(
                items.iter().map(|i| to_cel(i, item_schema)).collect(),
            ))
        }
        Value::Object(map) => object(map, schema),
    }
}

fn object(map: &Map<String, Value>, schema: &Value) -> cel::Value {
    let declared = schema.get("properties").and_then(Value::as_object);
    let mut out: HashMap<cel::objects::Key, cel::Value> = HashMap::with_capacity(map.len());
    for (k, v) in map {
        let child = property_schema(schema, k).unwrap_or(&Value::Null);
        // Declared properties are struct fields in CEL and get escaped names; map keys
        // (additionalProperties, unknown fields) are kept as they are.
        let name = if declared.is_some_and(|d| d.contains_key(k)) {
            match escape_property(k) {
                Some(n) => n,
                None => continue,
            }
        } else {
            k.clone()
        };
        out.insert(cel::objects::Key::String(Arc::new(name)), to_cel(v, child));
    }
    cel::Value::Map(cel::objects::Map { map: Arc::new(out) })
}

/// A CEL value printed plainly for an error message (`3`, `"a"`).
pub fn debug_plain(v: &cel::Value) -> String {
    match v {
        cel::Value::Int(i) => i.to_string(),
        cel::Value::UInt(u) => u.to_string(),
        cel::Value::Float(f) => f.to_string(),
        cel::Value::String(s) => format!("{s:?}"),
        cel::Value::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn property_names_are_escaped_like_apiextensions() {
        assert_eq!(escape_property("replicas").as_deref(), Some("replicas"));
        assert_eq!(
            escape_property("my-field").as_deref(),
            Some("my__dash__field")
        );
        assert_eq!(
            escape_property("a.b/c").as_deref(),
            Some("a__dot__b__slash__c")
        );
        assert_eq!(
            escape_property("x__y").as_deref(),
            Some("x__underscores__y")
        );
        assert_eq!(
            escape_property("namespace").as_deref(),
            Some("__namespace__")
        );
        assert_eq!(escape_property("1abc"), None);
        assert_eq!(escape_property("a b"), None);
    }

    #[test]
    fn numbers_follow_the_schema_type() {
        let v = to_cel(&json!(1), &json!({"type": "number"}));
        assert_eq!(v, cel::Value::Float(1.0));
        let v = to_cel(&json!(1.0), &json!({"type": "integer"}));
        assert_eq!(v, cel::Value::Int(1));
        let v = to_cel(&json!("1"), &json!({"x-kubernetes-int-or-string": true}));
        assert_eq!(v, cel::Value::String(Arc::new("1".into())));
    }
}
