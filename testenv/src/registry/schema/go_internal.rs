//! A CRD's `spec.versions` as the real server prints it in a validation message.
//!
//! kube-apiserver validates the internal (hub) form of a CustomResourceDefinition, whose Go
//! types carry no JSON tags, and prints a bad composite value with `encoding/json`. So
//! `spec.versions: Invalid value: [...]` shows every field of the internal
//! `CustomResourceDefinitionVersion` under its Go name (`"Name"`, `"Served"`, ...,
//! `"Schema":{"OpenAPIV3Schema":{"ID":"",...}}`), nil pointers and slices as `null`, and
//! the per-version fields that are identical in every version (schema, subresources,
//! printer columns, selectable fields) as `null`: the v1-to-internal conversion moves them
//! to the spec's top level.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::go_encode::{float as json_float, string as json_string};

/// A value of the internal Go types, printed as `encoding/json` prints it.
#[derive(Debug, Clone)]
enum Go {
    /// A nil pointer, slice or map, or a JSON `null`.
    Null,
    /// A `bool`.
    Bool(bool),
    /// An `int64` or `int32`.
    Int(i64),
    /// A `float64`.
    Float(f64),
    /// A `string`.
    Str(String),
    /// A non-nil slice.
    List(Vec<Go>),
    /// A struct: its fields in declaration order.
    Struct(Vec<(&'static str, Go)>),
    /// A non-nil `map[string]...` (printed with sorted keys).
    Map(BTreeMap<String, Go>),
}

impl Go {
    /// Semantic equality as apimachinery's `Semantic.DeepEqual` sees it: an empty slice or
    /// map equals a nil one.
    fn semantic_eq(&self, other: &Go) -> bool {
        let empty = |g: &Go| match g {
            Go::Null => true,
            Go::List(l) => l.is_empty(),
            Go::Map(m) => m.is_empty(),
            _ => false,
        };
        match (self, other) {
            (Go::List(a), Go::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.semantic_eq(y))
            }
            (Go::Map(a), Go::Map(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((ka, va), (kb, vb))| ka == kb && va.semantic_eq(vb))
            }
            (Go::Struct(a), Go::Struct(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((ka, va), (kb, vb))| ka == kb && va.semantic_eq(vb))
            }
            (Go::Bool(a), Go::Bool(b)) => a == b,
            (Go::Int(a), Go::Int(b)) => a == b,
            (Go::Float(a), Go::Float(b)) => a.to_bits() == b.to_bits(),
            (Go::Str(a), Go::Str(b)) => a == b,
            (Go::Null, Go::Null) => true,
            (a, b) => (matches!(a, Go::Null) && empty(b)) || (matches!(b, Go::Null) && empty(a)),
        }
    }

    fn write(&self, out: &mut String) {
        match self {
            Go::Null => out.push_str("null"),
            Go::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Go::Int(i) => out.push_str(&i.to_string()),
            Go::Float(f) => out.push_str(&json_float(*f)),
            Go::Str(s) => json_string(s, out),
            Go::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Go::Struct(fields) => {
                out.push('{');
                for (i, (name, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    json_string(name, out);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
            Go::Map(entries) => {
                out.push('{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    json_string(key, out);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// An `interface{}` decoded from JSON as apimachinery decodes it (integers as int64, other
/// numbers as float64, objects as maps).
fn any(v: &Value) -> Go {
    match v {
        Value::Null => Go::Null,
        Value::Bool(b) => Go::Bool(*b),
        Value::Number(n) => n
            .as_i64()
            .map_or_else(|| Go::Float(n.as_f64().unwrap_or(0.0)), Go::Int),
        Value::String(s) => Go::Str(s.clone()),
        Value::Array(items) => Go::List(items.iter().map(any).collect()),
        Value::Object(m) => Go::Map(m.iter().map(|(k, v)| (k.clone(), any(v))).collect()),
    }
}

fn string(v: &Value, key: &str) -> Go {
    Go::Str(v.get(key).and_then(Value::as_str).unwrap_or("").to_string())
}

fn string_ptr(v: &Value, key: &str) -> Go {
    v.get(key)
        .and_then(Value::as_str)
        .map_or(Go::Null, |s| Go::Str(s.to_string()))
}

fn boolean(v: &Value, key: &str) -> Go {
    Go::Bool(v.get(key).and_then(Value::as_bool).unwrap_or(false))
}

fn bool_ptr(v: &Value, key: &str) -> Go {
    v.get(key)
        .and_then(Value::as_bool)
        .map_or(Go::Null, Go::Bool)
}

fn int(v: &Value, key: &str) -> Go {
    Go::Int(v.get(key).and_then(Value::as_i64).unwrap_or(0))
}

fn int_ptr(v: &Value, key: &str) -> Go {
    v.get(key).and_then(Value::as_i64).map_or(Go::Null, Go::Int)
}

fn float_ptr(v: &Value, key: &str) -> Go {
    v.get(key)
        .and_then(Value::as_f64)
        .map_or(Go::Null, Go::Float)
}

/// A `*JSON` (`default`, `example`): nil when absent, the decoded value otherwise.
fn json_ptr(v: &Value, key: &str) -> Go {
    v.get(key).map_or(Go::Null, any)
}

/// A slice whose items `f` converts: nil when absent or not a list.
fn list(v: &Value, key: &str, f: impl Fn(&Value) -> Go) -> Go {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(Go::Null, |items| Go::List(items.iter().map(f).collect()))
}

/// A `map[string]T` whose values `f` converts: nil when absent or not an object.
fn map(v: &Value, key: &str, f: impl Fn(&Value) -> Go) -> Go {
    v.get(key).and_then(Value::as_object).map_or(Go::Null, |m| {
        Go::Map(m.iter().map(|(k, v)| (k.clone(), f(v))).collect())
    })
}

fn str_item(v: &Value) -> Go {
    Go::Str(v.as_str().unwrap_or("").to_string())
}

/// `*JSONSchemaPropsOrBool` (`additionalProperties`, `additionalItems`).
fn props_or_bool(v: &Value, key: &str) -> Go {
    match v.get(key) {
        Some(Value::Bool(b)) => Go::Struct(vec![("Allows", Go::Bool(*b)), ("Schema", Go::Null)]),
        Some(s @ Value::Object(_)) => {
            Go::Struct(vec![("Allows", Go::Bool(true)), ("Schema", props(s))])
        }
        _ => Go::Null,
    }
}

/// `*JSONSchemaPropsOrArray` (`items`).
fn props_or_array(v: &Value) -> Go {
    match v.get("items") {
        Some(Value::Array(items)) => Go::Struct(vec![
            ("Schema", Go::Null),
            ("JSONSchemas", Go::List(items.iter().map(props).collect())),
        ]),
        Some(s @ Value::Object(_)) => {
            Go::Struct(vec![("Schema", props(s)), ("JSONSchemas", Go::Null)])
        }
        _ => Go::Null,
    }
}

/// A `JSONSchemaPropsOrStringArray` (a `dependencies` entry).
fn props_or_strings(v: &Value) -> Go {
    match v {
        Value::Array(items) => Go::Struct(vec![
            ("Schema", Go::Null),
            ("Property", Go::List(items.iter().map(str_item).collect())),
        ]),
        _ => Go::Struct(vec![("Schema", props(v)), ("Property", Go::Null)]),
    }
}

fn validation_rule(v: &Value) -> Go {
    Go::Struct(vec![
        ("Rule", string(v, "rule")),
        ("Message", string(v, "message")),
        ("MessageExpression", string(v, "messageExpression")),
        ("Reason", string_ptr(v, "reason")),
        ("FieldPath", string(v, "fieldPath")),
        ("OptionalOldSelf", bool_ptr(v, "optionalOldSelf")),
    ])
}

/// The internal `JSONSchemaProps` of a v1 schema node.
fn props(v: &Value) -> Go {
    let docs = v
        .get("externalDocs")
        .filter(|d| d.is_object())
        .map_or(Go::Null, |d| {
            Go::Struct(vec![
                ("Description", string(d, "description")),
                ("URL", string(d, "url")),
            ])
        });
    Go::Struct(vec![
        ("ID", string(v, "id")),
        ("Schema", string(v, "$schema")),
        ("Ref", string_ptr(v, "$ref")),
        ("Description", string(v, "description")),
        ("Type", string(v, "type")),
        ("Nullable", boolean(v, "nullable")),
        ("Format", string(v, "format")),
        ("Title", string(v, "title")),
        ("Default", json_ptr(v, "default")),
        ("Maximum", float_ptr(v, "maximum")),
        ("ExclusiveMaximum", boolean(v, "exclusiveMaximum")),
        ("Minimum", float_ptr(v, "minimum")),
        ("ExclusiveMinimum", boolean(v, "exclusiveMinimum")),
        ("MaxLength", int_ptr(v, "maxLength")),
        ("MinLength", int_ptr(v, "minLength")),
        ("Pattern", string(v, "pattern")),
        ("MaxItems", int_ptr(v, "maxItems")),
        ("MinItems", int_ptr(v, "minItems")),
        ("UniqueItems", boolean(v, "uniqueItems")),
        ("MultipleOf", float_ptr(v, "multipleOf")),
        ("Enum", list(v, "enum", any)),
        ("MaxProperties", int_ptr(v, "maxProperties")),
        ("MinProperties", int_ptr(v, "minProperties")),
        ("Required", list(v, "required", str_item)),
        ("Items", props_or_array(v)),
        ("AllOf", list(v, "allOf", props)),
        ("OneOf", list(v, "oneOf", props)),
        ("AnyOf", list(v, "anyOf", props)),
        (
            "Not",
            v.get("not")
                .filter(|n| n.is_object())
                .map_or(Go::Null, props),
        ),
        ("Properties", map(v, "properties", props)),
        (
            "AdditionalProperties",
            props_or_bool(v, "additionalProperties"),
        ),
        ("PatternProperties", map(v, "patternProperties", props)),
        ("Dependencies", map(v, "dependencies", props_or_strings)),
        ("AdditionalItems", props_or_bool(v, "additionalItems")),
        ("Definitions", map(v, "definitions", props)),
        ("ExternalDocs", docs),
        ("Example", json_ptr(v, "example")),
        (
            "XPreserveUnknownFields",
            bool_ptr(v, "x-kubernetes-preserve-unknown-fields"),
        ),
        (
            "XEmbeddedResource",
            boolean(v, "x-kubernetes-embedded-resource"),
        ),
        ("XIntOrString", boolean(v, "x-kubernetes-int-or-string")),
        (
            "XListMapKeys",
            list(v, "x-kubernetes-list-map-keys", str_item),
        ),
        ("XListType", string_ptr(v, "x-kubernetes-list-type")),
        ("XMapType", string_ptr(v, "x-kubernetes-map-type")),
        (
            "XValidations",
            list(v, "x-kubernetes-validations", validation_rule),
        ),
    ])
}

/// A version's `*CustomResourceValidation` (`schema`).
fn validation(version: &Value) -> Go {
    version
        .get("schema")
        .filter(|s| s.is_object())
        .map_or(Go::Null, |s| {
            let schema = s
                .get("openAPIV3Schema")
                .filter(|o| o.is_object())
                .map_or(Go::Null, props);
            Go::Struct(vec![("OpenAPIV3Schema", schema)])
        })
}

/// A version's `*CustomResourceSubresources`.
fn subresources(version: &Value) -> Go {
    version
        .get("subresources")
        .filter(|s| s.is_object())
        .map_or(Go::Null, |s| {
            let status = s
                .get("status")
                .filter(|x| x.is_object())
                .map_or(Go::Null, |_| Go::Struct(Vec::new()));
            let scale = s
                .get("scale")
                .filter(|x| x.is_object())
                .map_or(Go::Null, |x| {
                    Go::Struct(vec![
                        ("SpecReplicasPath", string(x, "specReplicasPath")),
                        ("StatusReplicasPath", string(x, "statusReplicasPath")),
                        ("LabelSelectorPath", string_ptr(x, "labelSelectorPath")),
                    ])
                });
            Go::Struct(vec![("Status", status), ("Scale", scale)])
        })
}

fn column(v: &Value) -> Go {
    Go::Struct(vec![
        ("Name", string(v, "name")),
        ("Type", string(v, "type")),
        ("Format", string(v, "format")),
        ("Description", string(v, "description")),
        ("Priority", int(v, "priority")),
        ("JSONPath", string(v, "jsonPath")),
    ])
}

fn selectable_field(v: &Value) -> Go {
    Go::Struct(vec![("JSONPath", string(v, "jsonPath"))])
}

/// The per-version fields the conversion hoists when every version has the same value.
const HOISTED: [&str; 4] = [
    "Schema",
    "Subresources",
    "AdditionalPrinterColumns",
    "SelectableFields",
];

/// The internal `[]CustomResourceDefinitionVersion` of a v1 CRD's `spec.versions` (`None`
/// when the CRD has none: a nil slice), printed as the real server prints it after
/// `Invalid value: ` (see the module documentation).
pub fn internal_versions(versions: Option<&[Value]>) -> String {
    let Some(versions) = versions else {
        return "null".into();
    };
    let mut converted: Vec<Vec<(&'static str, Go)>> = versions
        .iter()
        .map(|v| {
            vec![
                ("Name", string(v, "name")),
                ("Served", boolean(v, "served")),
                ("Storage", boolean(v, "storage")),
                ("Deprecated", boolean(v, "deprecated")),
                ("DeprecationWarning", string_ptr(v, "deprecationWarning")),
                ("Schema", validation(v)),
                ("Subresources", subresources(v)),
                (
                    "AdditionalPrinterColumns",
                    list(v, "additionalPrinterColumns", column),
                ),
                (
                    "SelectableFields",
                    list(v, "selectableFields", selectable_field),
                ),
            ]
        })
        .collect();
    for field in HOISTED {
        let value = |fields: &[(&'static str, Go)]| {
            fields
                .iter()
                .find(|(name, _)| *name == field)
                .map_or(Go::Null, |(_, v)| v.clone())
        };
        let Some(first) = converted.first().map(|f| value(f)) else {
            break;
        };
        if converted.iter().all(|f| value(f).semantic_eq(&first)) {
            for fields in &mut converted {
                for (name, v) in fields.iter_mut() {
                    if *name == field {
                        *v = Go::Null;
                    }
                }
            }
        }
    }
    let mut out = String::new();
    Go::List(converted.into_iter().map(Go::Struct).collect()).write(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The internal form of `{type: object}`, every other field at its zero value.
    const OBJECT_SCHEMA: &str = r#"{"ID":"","Schema":"","Ref":null,"Description":"","Type":"object","Nullable":false,"Format":"","Title":"","Default":null,"Maximum":null,"ExclusiveMaximum":false,"Minimum":null,"ExclusiveMinimum":false,"MaxLength":null,"MinLength":null,"Pattern":"","MaxItems":null,"MinItems":null,"UniqueItems":false,"MultipleOf":null,"Enum":null,"MaxProperties":null,"MinProperties":null,"Required":null,"Items":null,"AllOf":null,"OneOf":null,"AnyOf":null,"Not":null,"Properties":null,"AdditionalProperties":null,"PatternProperties":null,"Dependencies":null,"AdditionalItems":null,"Definitions":null,"ExternalDocs":null,"Example":null,"XPreserveUnknownFields":null,"XEmbeddedResource":false,"XIntOrString":false,"XListMapKeys":null,"XListType":null,"XMapType":null,"XValidations":null}"#;

    #[test]
    fn versions_print_as_kube_apiserver_prints_them() {
        // kube-apiserver v1.34.9's answer to a CRD with these versions (differential 013#1).
        let versions = [
            json!({"name": "V1", "served": true, "storage": false}),
            json!({"name": "v2", "served": false, "storage": false,
                "schema": {"openAPIV3Schema": {"type": "object"}}}),
        ];
        assert_eq!(
            internal_versions(Some(&versions)),
            format!(
                r#"[{{"Name":"V1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}},{{"Name":"v2","Served":false,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":{{"OpenAPIV3Schema":{OBJECT_SCHEMA}}},"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}}]"#
            )
        );
    }

    #[test]
    fn identical_per_version_fields_are_hoisted() {
        let version = |name: &str, storage: bool| {
            json!({"name": name, "served": true, "storage": storage,
                "schema": {"openAPIV3Schema": {"type": "object"}},
                "subresources": {"status": {}},
                "additionalPrinterColumns": []})
        };
        let both = [version("v1", true), version("v2", true)];
        let printed = internal_versions(Some(&both));
        assert!(
            printed.starts_with(r#"[{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}"#),
            "{printed}"
        );
        // One version differing keeps every version's own value.
        let mut other = version("v2", false);
        other["subresources"] = json!({"status": {}, "scale": {"specReplicasPath": ".spec.n", "statusReplicasPath": ".status.n"}});
        let printed = internal_versions(Some(&[version("v1", true), other]));
        assert!(
            printed.contains(r#""Subresources":{"Status":{},"Scale":null}"#),
            "{printed}"
        );
        assert!(
            printed.contains(r#""Subresources":{"Status":{},"Scale":{"SpecReplicasPath":".spec.n","StatusReplicasPath":".status.n","LabelSelectorPath":null}}"#),
            "{printed}"
        );
        assert!(printed.contains(r#""Schema":null"#), "{printed}");
    }

    #[test]
    fn values_print_as_encoding_json_prints_them() {
        let schema = json!({"type": "object", "properties": {
            "b": {"type": "number", "maximum": 1e21, "minimum": 0.0000001, "multipleOf": 0.5,
                "default": 2.0, "enum": [1, "<a&b>"]},
            "a": {"type": "array", "items": {"type": "string"}, "additionalProperties": false},
        }});
        let versions = [
            json!({"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}),
            json!({"name": "v2", "served": true, "storage": false}),
        ];
        let printed = internal_versions(Some(&versions));
        for want in [
            r#""Maximum":1e+21"#,
            r#""Minimum":1e-7"#,
            r#""MultipleOf":0.5"#,
            r#""Default":2,"#,
            r#""Enum":[1,"\u003ca\u0026b\u003e"]"#,
            r#""Properties":{"a":{"ID""#,
            r#""Items":{"Schema":{"ID":"","Schema":"","Ref":null,"Description":"","Type":"string""#,
            r#""AdditionalProperties":{"Allows":false,"Schema":null}"#,
        ] {
            assert!(printed.contains(want), "missing {want} in {printed}");
        }
    }
}
