//! JSON values as CEL sees them: typed by their structural schema, as the apiextensions
//! apiserver converts them (`integer` is `int`, `number` is `double`, int-or-string is
//! whichever it holds), with object property names escaped into CEL identifiers.

use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// CEL's reserved words; a property with one of these names is `__name__` in CEL, and no
/// admission policy variable may have one as its name.
pub const RESERVED: &[&str] = &[
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
        Value::String(s) => string(s, schema),
        Value::Array(items) => {
            let item_schema = schema.get("items").unwrap_or(&Value::Null);
            cel::Value::List(Arc::new(
                items.iter().map(|i| to_cel(i, item_schema)).collect(),
            ))
        }
        Value::Object(map) => object(map, schema),
    }
}

/// A string typed by its schema's format: `date-time` and `date` are timestamps,
/// `duration` a duration, `byte` bytes (base64), as the apiextensions server decodes them;
/// a value that does not parse stays a string (schema validation refuses it anyway).
fn string(s: &str, schema: &Value) -> cel::Value {
    let plain = || cel::Value::String(Arc::new(s.to_string()));
    if schema_type(schema) != "string" {
        return plain();
    }
    match schema.get("format").and_then(Value::as_str).unwrap_or("") {
        "date-time" => {
            chrono::DateTime::parse_from_rfc3339(s).map_or_else(|_| plain(), cel::Value::Timestamp)
        }
        "date" => chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map_or_else(plain, |t| cel::Value::Timestamp(t.and_utc().fixed_offset())),
        "duration" => go_duration(s).map_or_else(plain, cel::Value::Duration),
        "byte" => base64_decode(s).map_or_else(plain, |b| cel::Value::Bytes(Arc::new(b))),
        _ => plain(),
    }
}

/// A Go duration (`1h2m3.5s`, `300ms`, `-1.5h`).
pub fn go_duration(s: &str) -> Option<chrono::Duration> {
    let (neg, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Some(chrono::Duration::zero());
    }
    if rest.is_empty() {
        return None;
    }
    let mut nanos: f64 = 0.0;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        let number: f64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = match &rest[..unit_len] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        rest = &rest[unit_len..];
        nanos += number * unit;
    }
    let nanos = if neg { -nanos } else { nanos };
    (nanos.abs() < i64::MAX as f64).then(|| chrono::Duration::nanoseconds(nanos as i64))
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let value = serde_json::Value::String(s.to_string());
    serde_json::from_value::<k8s_openapi::ByteString>(value)
        .ok()
        .map(|b| b.0)
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
