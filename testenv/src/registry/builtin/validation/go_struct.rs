//! Tables of kube-apiserver's internal Go structs, and how `encoding/json` writes a v1 value
//! as one of them (no tags: Go field names, declaration order, zero values included). The
//! errors that print an internal object (a Pod update's diff, a PersistentVolume's immutable
//! source) describe their types with these tables ([`super::pod_go`], [`super::pv_go`]).

use serde_json::{Map, Value};

use super::go_diff::GoValue;

/// How a Go field is written when the v1 object has it, and when it does not.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    /// A string (`""` when absent).
    Str,
    /// An integer (`0` when absent).
    Int,
    /// A bool (`false` when absent).
    Bool,
    /// A `resource.Quantity` value (`"0"` when absent).
    Quantity,
    /// A pointer, slice or map of values JSON writes as v1 does (`null` when absent).
    Json,
    /// A struct value (its zero value when absent).
    Struct(&'static [Field]),
    /// A pointer to a struct (`null` when absent).
    Ptr(&'static [Field]),
    /// A slice of structs (`null` when absent).
    Slice(&'static [Field]),
    /// A field of a JSON-tagged struct with `omitempty`, embedded in an internal one (a
    /// claim template's `metav1.ObjectMeta`): left out when absent or empty.
    Omit,
    /// An embedded struct (the v1 object's field holds it): its fields written in place.
    Embed(&'static [Field]),
}

/// A Go field: its name, the v1 JSON key it comes from, and how it is written.
pub(super) type Field = (&'static str, &'static str, Kind);

use Kind::{Bool, Embed, Int, Json, Omit, Ptr, Quantity, Slice, Str, Struct};

/// The fields of a struct described by `table`, read from a v1 object (absent: zero values).
pub(super) fn fields(
    table: &'static [Field],
    object: Option<&Map<String, Value>>,
) -> Vec<(&'static str, GoValue)> {
    let mut out = Vec::new();
    for (name, key, kind) in table {
        let value = object.and_then(|o| o.get(*key));
        match kind {
            Embed(inner) => out.extend(fields(inner, value.and_then(Value::as_object))),
            Omit if value.is_none_or(empty) => {}
            _ => out.push((*name, field(*kind, value))),
        }
    }
    out
}

/// Whether `encoding/json` leaves a value out under `omitempty`.
fn empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// One field of `kind` holding `value` (absent or `null`: the kind's zero value).
pub(super) fn field(kind: Kind, value: Option<&Value>) -> GoValue {
    let value = value.filter(|v| !v.is_null());
    let json = |zero: Value| GoValue::Json(value.cloned().unwrap_or(zero));
    match kind {
        Str => json(Value::from("")),
        Int => json(Value::from(0)),
        Bool => json(Value::Bool(false)),
        Quantity => json(Value::from("0")),
        Json | Omit | Embed(_) => json(Value::Null),
        Struct(table) => GoValue::Struct(fields(table, value.and_then(Value::as_object))),
        Ptr(table) => match value.and_then(Value::as_object) {
            Some(object) => GoValue::Struct(fields(table, Some(object))),
            None => GoValue::Json(Value::Null),
        },
        Slice(table) => match value.and_then(Value::as_array) {
            Some(items) => GoValue::List(
                items
                    .iter()
                    .map(|item| fields(table, item.as_object()))
                    .collect(),
            ),
            None => GoValue::Json(Value::Null),
        },
    }
}

/// A label selector as Go prints it in an error (`metav1.LabelSelector` as JSON: its
/// fields in the struct's order, empty ones left out), `null` when there is none.
pub(super) fn selector_as_go(selector: &Value) -> String {
    let Some(map) = selector.as_object() else {
        return "null".into();
    };
    let mut parts = Vec::new();
    if let Some(labels) = map
        .get("matchLabels")
        .and_then(Value::as_object)
        .filter(|m| !m.is_empty())
    {
        parts.push(format!("\"matchLabels\":{}", Value::Object(labels.clone())));
    }
    if let Some(exprs) = map
        .get("matchExpressions")
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty())
    {
        let exprs: Vec<String> = exprs
            .iter()
            .map(|e| {
                let mut fields = vec![
                    format!(
                        "\"key\":{}",
                        Value::String(e["key"].as_str().unwrap_or_default().into())
                    ),
                    format!(
                        "\"operator\":{}",
                        Value::String(e["operator"].as_str().unwrap_or_default().into())
                    ),
                ];
                if let Some(values) = e["values"].as_array().filter(|v| !v.is_empty()) {
                    fields.push(format!("\"values\":{}", Value::Array(values.clone())));
                }
                format!("{{{}}}", fields.join(","))
            })
            .collect();
        parts.push(format!("\"matchExpressions\":[{}]", exprs.join(",")));
    }
    format!("{{{}}}", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::super::go_diff::marshal;
    use super::*;
    use serde_json::json;

    const INNER: &[Field] = &[("A", "a", Str), ("N", "n", Int)];
    const OUTER: &[Field] = &[
        ("P", "p", Ptr(INNER)),
        ("S", "s", Struct(INNER)),
        ("L", "l", Slice(INNER)),
        ("B", "b", Bool),
        ("Q", "q", Quantity),
        ("J", "j", Json),
        ("o", "o", Omit),
    ];

    #[test]
    fn absent_fields_are_written_as_their_go_zero_values() {
        let value = GoValue::Struct(fields(OUTER, json!({"l": [{"a": "x"}]}).as_object()));
        assert_eq!(
            marshal(&value),
            r#"{"P":null,"S":{"A":"","N":0},"L":[{"A":"x","N":0}],"B":false,"Q":"0","J":null}"#
        );
        let value = GoValue::Struct(fields(OUTER, json!({"p": {"n": 2}, "o": 1}).as_object()));
        assert!(marshal(&value).starts_with(r#"{"P":{"A":"","N":2},"#));
        assert!(marshal(&value).ends_with(r#""J":null,"o":1}"#));
    }
}
