//! `x-kubernetes-embedded-resource`: a field holding a whole object (a pod template, a
//! raw manifest) is published with the `apiVersion`, `kind` and `metadata` properties every
//! object has, and with `kind` and `apiVersion` required, as kube-apiserver publishes a
//! CRD's schema. The properties replace any the CRD declares under those names. In the
//! Swagger 2.0 form (applied after the v2 conversion, as there) a field that preserves
//! unknown fields gets nothing: kubectl would check it against the added properties.

use serde_json::{Map, Value, json};

use super::meta::{META, METADATA_DOC};

const API_VERSION_DOC: &str = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const KIND_DOC: &str = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

/// The document form the schema is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// OpenAPI v3 (`#/components/schemas/`, references wrapped in `allOf`).
    V3,
    /// Swagger 2.0 (`#/definitions/`, plain references).
    V2,
}

fn metadata(form: Form) -> Value {
    let name = format!("{META}.ObjectMeta");
    match form {
        Form::V3 => json!({
            "description": METADATA_DOC,
            "allOf": [{"$ref": format!("#/components/schemas/{name}")}],
        }),
        Form::V2 => json!({
            "description": METADATA_DOC,
            "$ref": format!("#/definitions/{name}"),
        }),
    }
}

fn is_true(schema: &Map<String, Value>, key: &str) -> bool {
    schema.get(key) == Some(&Value::Bool(true))
}

/// Adds the object properties to every embedded-resource field of `schema`, at any depth
/// (properties, array items, map values).
pub fn add_embedded_properties(schema: &mut Value, form: Form) {
    let Some(s) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Object(properties)) = s.get_mut("properties") {
        for p in properties.values_mut() {
            add_embedded_properties(p, form);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = s.get_mut(key) {
            add_embedded_properties(child, form);
        }
    }
    if !is_true(s, "x-kubernetes-embedded-resource")
        || (form == Form::V2 && is_true(s, "x-kubernetes-preserve-unknown-fields"))
    {
        return;
    }
    let properties = s
        .entry("properties")
        .or_insert_with(|| json!({}))
        .as_object_mut();
    if let Some(properties) = properties {
        properties.insert(
            "apiVersion".into(),
            json!({"description": API_VERSION_DOC, "type": "string"}),
        );
        properties.insert(
            "kind".into(),
            json!({"description": KIND_DOC, "type": "string"}),
        );
        properties.insert("metadata".into(), metadata(form));
    }
    let required = s.entry("required").or_insert_with(|| json!([]));
    if let Some(required) = required.as_array_mut() {
        for name in ["kind", "apiVersion"] {
            if !required.iter().any(|r| r == name) {
                required.push(json!(name));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                "x-kubernetes-preserve-unknown-fields": true},
            "typed": {"type": "object", "x-kubernetes-embedded-resource": true,
                "required": ["apiVersion", "x"],
                "properties": {"x": {"type": "string"}, "kind": {"type": "string", "description": "mine"}}},
            "list": {"type": "array", "items": {"type": "object", "x-kubernetes-embedded-resource": true}},
            "byKey": {"type": "object", "additionalProperties": {"type": "object",
                "x-kubernetes-embedded-resource": true}},
            "plain": {"type": "object", "properties": {"a": {"type": "string"}}},
        }})
    }

    #[test]
    fn embedded_fields_get_the_object_properties() {
        let mut s = schema();
        add_embedded_properties(&mut s, Form::V3);
        let p = &s["properties"];
        let template = &p["template"];
        assert_eq!(template["required"], json!(["kind", "apiVersion"]));
        assert_eq!(template["properties"]["apiVersion"]["type"], "string");
        assert_eq!(
            template["properties"]["metadata"]["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
        );
        // Declared names are replaced, required names are not repeated.
        assert_eq!(p["typed"]["required"], json!(["apiVersion", "x", "kind"]));
        assert_eq!(
            p["typed"]["properties"]["kind"]["description"],
            json!(KIND_DOC)
        );
        assert_eq!(p["typed"]["properties"]["x"], json!({"type": "string"}));
        assert_eq!(
            p["list"]["items"]["required"],
            json!(["kind", "apiVersion"])
        );
        assert!(p["byKey"]["additionalProperties"]["properties"]["metadata"].is_object());
        assert_eq!(p["plain"], schema()["properties"]["plain"]);
    }

    #[test]
    fn swagger_form_leaves_fields_that_preserve_unknown_fields() {
        let mut s = schema();
        add_embedded_properties(&mut s, Form::V2);
        let p = &s["properties"];
        assert_eq!(p["template"], schema()["properties"]["template"]);
        assert_eq!(
            p["typed"]["properties"]["metadata"],
            json!({"description": METADATA_DOC,
                "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"})
        );
    }
}
