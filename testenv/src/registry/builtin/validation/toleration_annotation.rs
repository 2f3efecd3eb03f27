//! The tolerations a pod's `scheduler.alpha.kubernetes.io/tolerations` annotation holds, decoded
//! as kube-apiserver v1.34 decodes it (`encoding/json` into `[]core.Toleration`): a syntax error
//! first, then the first value of a wrong JSON type, each worded as Go words it. Members are
//! matched to fields by name, exactly or else ignoring ASCII case; unknown members are ignored,
//! `null` leaves a field as it is (and clears `tolerationSeconds`), a later member wins.

use serde_json::{Map, Value};

use crate::support::go_json::{literal_end, number_end, skip_space, string_end, syntax_error};

/// A JSON value as written, numbers kept as their literal text.
enum Json {
    Null,
    Bool,
    Number(String),
    Text(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The JSON type as Go's `UnmarshalTypeError` names it.
    fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool => "bool",
            Json::Number(_) => "number",
            Json::Text(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }
}

/// The fields of `core.Toleration`: JSON name and Go type.
const FIELDS: &[(&str, &str)] = &[
    ("key", "string"),
    ("operator", "core.TolerationOperator"),
    ("value", "string"),
    ("effect", "core.TaintEffect"),
    ("tolerationSeconds", "int64"),
];

/// The tolerations of the annotation's `text`, as v1 toleration objects, or the message of
/// the error that stops their decoding.
pub fn decode(text: &str) -> Result<Vec<Value>, String> {
    if let Some(message) = syntax_error(text.as_bytes()) {
        return Err(message);
    }
    let doc = text.as_bytes();
    let (value, _) = parse(doc, skip_space(doc, 0)).ok_or("unexpected end of JSON input")?;
    let items = match value {
        Json::Null => return Ok(Vec::new()),
        Json::Array(items) => items,
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type []core.Toleration",
                other.kind()
            ));
        }
    };
    let mut first_error = None;
    let mut out = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let mut toleration = Map::new();
        match item {
            Json::Null => {}
            Json::Object(members) => {
                for (name, value) in members {
                    if let Err(e) = set_field(&mut toleration, &name, value, i) {
                        first_error.get_or_insert(e);
                    }
                }
            }
            other => {
                first_error.get_or_insert(format!(
                    "json: cannot unmarshal {} into .{i} of type core.Toleration",
                    other.kind()
                ));
            }
        }
        out.push(Value::Object(toleration));
    }
    first_error.map_or(Ok(out), Err)
}

/// Stores the member `name` of toleration `i`, if it names a field.
fn set_field(
    toleration: &mut Map<String, Value>,
    name: &str,
    value: Json,
    i: usize,
) -> Result<(), String> {
    let field = FIELDS
        .iter()
        .find(|(f, _)| *f == name)
        .or_else(|| FIELDS.iter().find(|(f, _)| f.eq_ignore_ascii_case(name)));
    let Some(&(field, go_type)) = field else {
        return Ok(());
    };
    let wrong = |what: String| {
        format!("json: cannot unmarshal {what} into Go struct field .{i}.{field} of type {go_type}")
    };
    match (field, value) {
        ("tolerationSeconds", Json::Null) => {
            toleration.remove(field);
        }
        ("tolerationSeconds", Json::Number(literal)) => match literal.parse::<i64>() {
            Ok(n) => {
                toleration.insert(field.into(), Value::from(n));
            }
            Err(_) => return Err(wrong(format!("number {literal}"))),
        },
        (_, Json::Null) => {}
        ("tolerationSeconds", other) => return Err(wrong(other.kind().into())),
        (_, Json::Text(s)) => {
            toleration.insert(field.into(), Value::String(s));
        }
        (_, other) => return Err(wrong(other.kind().into())),
    }
    Ok(())
}

/// The value starting at `i` of a syntactically valid document, and the index after it.
fn parse(doc: &[u8], i: usize) -> Option<(Json, usize)> {
    match *doc.get(i)? {
        b'{' => {
            let mut members = Vec::new();
            let mut at = skip_space(doc, i + 1);
            if doc.get(at) == Some(&b'}') {
                return Some((Json::Object(members), at + 1));
            }
            loop {
                let end = string_end(doc, at + 1).ok()?;
                let name = text(doc, at, end)?;
                at = skip_space(doc, end);
                // The `:` after the name.
                let (value, next) = parse(doc, skip_space(doc, at + 1))?;
                members.push((name, value));
                at = skip_space(doc, next);
                match doc.get(at)? {
                    b',' => at = skip_space(doc, at + 1),
                    _ => return Some((Json::Object(members), at + 1)),
                }
            }
        }
        b'[' => {
            let mut items = Vec::new();
            let mut at = skip_space(doc, i + 1);
            if doc.get(at) == Some(&b']') {
                return Some((Json::Array(items), at + 1));
            }
            loop {
                let (value, next) = parse(doc, at)?;
                items.push(value);
                at = skip_space(doc, next);
                match doc.get(at)? {
                    b',' => at = skip_space(doc, at + 1),
                    _ => return Some((Json::Array(items), at + 1)),
                }
            }
        }
        b'"' => {
            let end = string_end(doc, i + 1).ok()?;
            Some((Json::Text(text(doc, i, end)?), end))
        }
        b'-' | b'0'..=b'9' => {
            let end = number_end(doc, i).ok()?;
            let literal = std::str::from_utf8(&doc[i..end]).ok()?;
            Some((Json::Number(literal.into()), end))
        }
        b'n' => Some((Json::Null, literal_end(doc, i).ok()?)),
        _ => Some((Json::Bool, literal_end(doc, i).ok()?)),
    }
}

/// The unescaped text of the string literal at `start..end` (quotes included).
fn text(doc: &[u8], start: usize, end: usize) -> Option<String> {
    serde_json::from_slice(&doc[start..end]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tolerations_decode_as_go_does() {
        assert_eq!(decode("null"), Ok(vec![]));
        assert_eq!(
            decode(
                r#"[null, {"KEY": "a", "key": "b", "effect": null, "x": [1], "tolerationSeconds": -0}]"#
            ),
            Ok(vec![json!({}), json!({"key": "b", "tolerationSeconds": 0})])
        );
        assert_eq!(
            decode("not json"),
            Err("invalid character 'o' in literal null (expecting 'u')".into())
        );
        assert_eq!(
            decode("{}"),
            Err("json: cannot unmarshal object into Go value of type []core.Toleration".into())
        );
        assert_eq!(
            decode(r#"["s", {"key": 1}]"#),
            Err("json: cannot unmarshal string into .0 of type core.Toleration".into())
        );
        assert_eq!(
            decode(r#"[{"operator": true}]"#),
            Err("json: cannot unmarshal bool into Go struct field .0.operator of type core.TolerationOperator".into())
        );
        assert_eq!(
            decode(r#"[{}, {"tolerationSeconds": 1e2}]"#),
            Err("json: cannot unmarshal number 1e2 into Go struct field .1.tolerationSeconds of type int64".into())
        );
    }
}
