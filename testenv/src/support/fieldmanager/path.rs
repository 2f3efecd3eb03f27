//! Path elements of field sets: the `f:`, `k:`, `v:` and `i:` keys of `fieldsV1`, and the
//! `.spec.x[name="a"]` form conflict messages print.

use std::fmt;

use serde_json::Value;

use super::schema::MapKey;

/// One step from a value to one of its children.
///
/// The derived order (fields, then keys, then values, then indexes) is the order the real
/// server uses when it serializes a field set.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathElement {
    /// A field of a map or struct: `f:name`.
    Field(String),
    /// An item of a map list, by its key fields (canonical JSON object): `k:{"name":"a"}`.
    Key(String),
    /// An item of a set list, by its value (canonical JSON): `v:"a"`.
    Value(String),
    /// An item of a list by position: `i:0` (never produced for apply).
    Index(usize),
}

/// JSON with object keys sorted, so that equal values have equal text.
pub fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&m[k])))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

/// The `k:` element of a map-list item: its key fields (a missing one takes its default, and
/// is left out without one: a ResourceClaim's device statuses are keyed by driver, device,
/// pool and an optional shareID), or `None` when the item has none of them.
pub fn key_of(item: &Value, keys: &[MapKey]) -> Option<PathElement> {
    let m = item.as_object()?;
    let mut out = serde_json::Map::new();
    for k in keys {
        if let Some(v) = m
            .get(&k.name)
            .filter(|v| !v.is_null())
            .or(k.default.as_ref())
        {
            out.insert(k.name.clone(), v.clone());
        }
    }
    (!out.is_empty()).then(|| PathElement::Key(canonical(&Value::Object(out))))
}

impl PathElement {
    /// The `fieldsV1` key of this element.
    pub fn to_key(&self) -> String {
        match self {
            PathElement::Field(f) => format!("f:{f}"),
            PathElement::Key(k) => format!("k:{k}"),
            PathElement::Value(v) => format!("v:{v}"),
            PathElement::Index(i) => format!("i:{i}"),
        }
    }

    /// Reads a `fieldsV1` key (`f:`, `k:`, `v:` or `i:`).
    pub fn from_key(key: &str) -> Result<Self, String> {
        let (kind, rest) = key
            .split_once(':')
            .ok_or_else(|| format!("unknown field set key {key:?}: expected f:, k:, v: or i:"))?;
        let json = |text: &str| {
            serde_json::from_str::<Value>(text)
                .map(|v| canonical(&v))
                .map_err(|e| format!("field set key {key:?} is not valid JSON: {e}"))
        };
        match kind {
            "f" => Ok(PathElement::Field(rest.to_string())),
            "k" => Ok(PathElement::Key(json(rest)?)),
            "v" => Ok(PathElement::Value(json(rest)?)),
            "i" => rest
                .parse()
                .map(PathElement::Index)
                .map_err(|_| format!("field set key {key:?} has a bad index")),
            _ => Err(format!(
                "unknown field set key {key:?}: expected f:, k:, v: or i:"
            )),
        }
    }
}

/// A scalar as the real server prints it in paths: strings quoted, others as JSON.
fn print_value(v: &Value) -> String {
    v.to_string()
}

impl fmt::Display for PathElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathElement::Field(name) => write!(f, ".{name}"),
            PathElement::Key(k) => {
                let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(k) else {
                    return write!(f, "[{k}]");
                };
                let mut names: Vec<&String> = fields.keys().collect();
                names.sort();
                let parts: Vec<String> = names
                    .into_iter()
                    .map(|n| format!("{n}={}", print_value(&fields[n])))
                    .collect();
                write!(f, "[{}]", parts.join(","))
            }
            PathElement::Value(v) => write!(f, "[={v}]"),
            PathElement::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// A whole path printed as the real server does: `.spec.containers[name="a"].image`.
pub fn display(path: &[PathElement]) -> String {
    path.iter().map(ToString::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_round_trip_and_print() {
        let key = |name: &str| MapKey {
            name: name.into(),
            default: None,
        };
        let pe = key_of(
            &json!({"port": 80, "name": "http", "x": 1}),
            &[key("port"), key("name")],
        )
        .unwrap();
        assert_eq!(pe.to_key(), r#"k:{"name":"http","port":80}"#);
        assert_eq!(PathElement::from_key(&pe.to_key()).unwrap(), pe);
        assert_eq!(pe.to_string(), r#"[name="http",port=80]"#);
        assert!(key_of(&json!({"port": 80}), &[key("name")]).is_none());
        let protocol = MapKey {
            name: "protocol".into(),
            default: Some(json!("TCP")),
        };
        assert_eq!(
            key_of(&json!({"port": 80}), &[key("port"), protocol]),
            Some(PathElement::Key(r#"{"port":80,"protocol":"TCP"}"#.into()))
        );
        let v = PathElement::from_key(r#"v:"a""#).unwrap();
        assert_eq!(v.to_string(), r#"[="a"]"#);
        let path = [
            PathElement::Field("spec".into()),
            pe,
            PathElement::Field("image".into()),
        ];
        assert_eq!(display(&path), r#".spec[name="http",port=80].image"#);
        assert!(PathElement::from_key("x:1").is_err());
    }
}
