//! Schemas in Swagger 2.0 form, from the OpenAPI v3 shapes: references as
//! `#/definitions/<name>` (a lone `allOf` reference becomes the reference itself), no
//! `default`, and what Swagger 2.0 cannot say left out as kube-apiserver leaves it out.
//!
//! For custom resources kube-apiserver also drops `allOf`, `anyOf`, `oneOf` and `not`,
//! and leaves untyped the fields clients must not check: `nullable` ones and those with
//! `x-kubernetes-preserve-unknown-fields` (without their `properties` and `items`); a kind
//! whose root preserves unknown fields is a bare `object`.

use serde_json::{Map, Value, json};

const V3_REF: &str = "#/components/schemas/";
const V2_REF: &str = "#/definitions/";

/// Which rules apply: the built-in kinds' or a custom resource's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rules {
    /// Built-in schemas: only the form changes.
    Builtin,
    /// CRD schemas: combinators dropped, nullable and unknown-field-preserving fields untyped.
    Custom,
}

/// The Swagger 2.0 form of a v3 schema.
pub fn convert(schema: &Value, rules: Rules) -> Value {
    match schema {
        Value::Object(m) => Value::Object(convert_map(m, rules)),
        Value::Array(a) => Value::Array(a.iter().map(|s| convert(s, rules)).collect()),
        other => other.clone(),
    }
}

/// The Swagger 2.0 form of a custom kind's root schema.
pub fn convert_root(schema: &Value) -> Value {
    let preserves = schema["x-kubernetes-preserve-unknown-fields"] == json!(true);
    if !preserves {
        return convert(schema, Rules::Custom);
    }
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    for key in ["description", "x-kubernetes-group-version-kind"] {
        if let Some(v) = schema.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    Value::Object(out)
}

/// A `$ref` to a v3 component, as a v2 definition reference.
pub fn reference(v3: &str) -> String {
    match v3.strip_prefix(V3_REF) {
        Some(name) => format!("{V2_REF}{name}"),
        None => v3.to_string(),
    }
}

fn convert_map(m: &Map<String, Value>, rules: Rules) -> Map<String, Value> {
    let mut m = m.clone();
    // `allOf: [{$ref}]` (with a description or default beside it) is a plain reference.
    if let Some(Value::Array(all)) = m.get("allOf")
        && let [only] = all.as_slice()
        && let Some(r) = only.get("$ref").and_then(Value::as_str)
        && only.as_object().is_some_and(|o| o.len() == 1)
    {
        let r = r.to_string();
        m.remove("allOf");
        m.insert("$ref".into(), json!(r));
    }
    m.remove("default");
    // A value of several types (quantities, int-or-string) is written as a string.
    if let Some(Value::Array(choices)) = m.get("oneOf")
        && !m.contains_key("type")
        && choices.iter().all(|c| {
            c.as_object()
                .is_some_and(|o| o.len() == 1 && o.contains_key("type"))
        })
        && choices.iter().any(|c| c["type"] == "string")
    {
        m.remove("oneOf");
        m.insert("type".into(), json!("string"));
    }
    if rules == Rules::Custom {
        for key in ["allOf", "anyOf", "oneOf", "not"] {
            m.remove(key);
        }
        let nullable = m.remove("nullable") == Some(json!(true));
        if nullable || m.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true)) {
            for key in ["type", "items", "properties"] {
                m.remove(key);
            }
        }
    }
    let mut out = Map::new();
    for (k, v) in m {
        let v = match k.as_str() {
            "$ref" => json!(reference(v.as_str().unwrap_or_default())),
            "properties" | "patternProperties" | "definitions" => match v {
                Value::Object(props) => Value::Object(
                    props
                        .iter()
                        .map(|(name, s)| (name.clone(), convert(s, rules)))
                        .collect(),
                ),
                other => other,
            },
            "items" | "additionalProperties" | "not" | "allOf" | "anyOf" | "oneOf" => {
                convert(&v, rules)
            }
            _ => v,
        };
        out.insert(k, v);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_defaults_and_several_types() {
        let v3 = json!({"type": "object", "properties": {
            "spec": {"default": {}, "allOf": [{"$ref": "#/components/schemas/a.B"}]},
            "n": {"type": "string", "default": ""},
            "q": {"oneOf": [{"type": "string"}, {"type": "number"}]},
            "l": {"type": "array", "items": {"default": {}, "allOf": [{"$ref": "#/components/schemas/a.C"}]},
                  "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
        }});
        let v2 = convert(&v3, Rules::Builtin);
        assert_eq!(
            v2["properties"]["spec"],
            json!({"$ref": "#/definitions/a.B"})
        );
        assert_eq!(v2["properties"]["n"], json!({"type": "string"}));
        assert_eq!(v2["properties"]["q"], json!({"type": "string"}));
        assert_eq!(
            v2["properties"]["l"]["items"],
            json!({"$ref": "#/definitions/a.C"})
        );
        assert_eq!(
            v2["properties"]["l"]["x-kubernetes-patch-merge-key"],
            "name"
        );
    }

    #[test]
    fn custom_rules_untype_what_swagger_2_cannot_say() {
        let v3 = json!({"type": "object", "properties": {
            "size": {"type": "integer", "format": "int32", "minimum": 1, "nullable": true, "default": 3},
            "obj": {"type": "object", "nullable": true, "properties": {"a": {"type": "string"}}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"a": {"type": "string"}}},
            "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
            "choice": {"type": "object", "oneOf": [{"required": ["a"]}], "properties": {"default": {"type": "string"}}},
        }});
        let v2 = convert(&v3, Rules::Custom);
        let p = &v2["properties"];
        assert_eq!(p["size"], json!({"format": "int32", "minimum": 1}));
        assert_eq!(p["obj"], json!({}));
        assert_eq!(
            p["free"],
            json!({"x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(p["port"], json!({"x-kubernetes-int-or-string": true}));
        assert_eq!(
            p["choice"],
            json!({"type": "object", "properties": {"default": {"type": "string"}}})
        );
        let root = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"kind": {"type": "string"}}, "x-kubernetes-group-version-kind": [{"kind": "K"}]});
        assert_eq!(
            convert_root(&root),
            json!({"type": "object", "x-kubernetes-group-version-kind": [{"kind": "K"}]})
        );
    }
}
