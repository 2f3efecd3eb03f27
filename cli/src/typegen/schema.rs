//! A read-only view of one node of a CRD's OpenAPI v3 schema (`JSONSchemaProps`), with the
//! keywords the type generator reads.

use serde_json::{Map, Value};

/// The Kubernetes extensions that shape how objects are stored and merged, carried into the
/// schema of the generated types (validations are not: the real CRD keeps those).
pub const CARRIED_EXTENSIONS: &[&str] = &[
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
];

/// One schema node.
#[derive(Debug, Clone, Copy)]
pub struct Node<'a>(pub &'a Value);

/// `additionalProperties` of an object node.
#[derive(Debug, Clone, Copy)]
pub enum Additional<'a> {
    /// Not given.
    None,
    /// `true` or `false`.
    Bool(bool),
    /// A schema for every value.
    Schema(Node<'a>),
}

impl<'a> Node<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key)
    }

    fn flag(&self, key: &str) -> bool {
        self.get(key).and_then(Value::as_bool).unwrap_or(false)
    }

    /// `type`.
    pub fn ty(&self) -> Option<&'a str> {
        self.get("type").and_then(Value::as_str)
    }

    /// `format`.
    pub fn format(&self) -> Option<&'a str> {
        self.get("format").and_then(Value::as_str)
    }

    /// `description`.
    pub fn description(&self) -> Option<&'a str> {
        self.get("description").and_then(Value::as_str)
    }

    /// `properties`, when non-empty.
    pub fn properties(&self) -> Option<&'a Map<String, Value>> {
        self.get("properties")
            .and_then(Value::as_object)
            .filter(|p| !p.is_empty())
    }

    /// `required`.
    pub fn required(&self) -> Vec<&'a str> {
        self.get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    /// `items` (a single schema; tuple forms are not structural).
    pub fn items(&self) -> Option<Node<'a>> {
        self.get("items").filter(|i| i.is_object()).map(Node)
    }

    /// `additionalProperties`.
    pub fn additional(&self) -> Additional<'a> {
        match self.get("additionalProperties") {
            Some(Value::Bool(b)) => Additional::Bool(*b),
            Some(v @ Value::Object(_)) => Additional::Schema(Node(v)),
            _ => Additional::None,
        }
    }

    /// The string values of `enum`, when it lists only strings.
    pub fn string_enum(&self) -> Option<Vec<&'a str>> {
        let values = self.get("enum")?.as_array()?;
        let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        (!strings.is_empty() && strings.len() == values.iter().filter(|v| !v.is_null()).count())
            .then_some(strings)
    }

    /// `nullable: true`.
    pub fn nullable(&self) -> bool {
        self.flag("nullable")
    }

    /// `x-kubernetes-preserve-unknown-fields: true`.
    pub fn preserves_unknown(&self) -> bool {
        self.flag("x-kubernetes-preserve-unknown-fields")
    }

    /// `x-kubernetes-int-or-string: true`.
    pub fn int_or_string(&self) -> bool {
        self.flag("x-kubernetes-int-or-string")
    }

    /// `x-kubernetes-embedded-resource: true`.
    pub fn embedded_resource(&self) -> bool {
        self.flag("x-kubernetes-embedded-resource")
    }

    /// `x-kubernetes-list-map-keys`.
    pub fn list_map_keys(&self) -> Option<Vec<String>> {
        let keys = self.get("x-kubernetes-list-map-keys")?.as_array()?;
        Some(
            keys.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        )
    }

    /// `default`.
    pub fn default(&self) -> Option<&'a Value> {
        self.get("default")
    }

    /// The extensions of [`CARRIED_EXTENSIONS`] this node has, in that order.
    pub fn carried_extensions(&self) -> Vec<(&'static str, &'a Value)> {
        CARRIED_EXTENSIONS
            .iter()
            .filter_map(|key| self.get(key).map(|v| (*key, v)))
            .collect()
    }
}

/// The schema without its descriptions (and the descriptions of the schemas inside it), for
/// the sub-schemas generated code states verbatim. Values (`default`, `enum`, `example`) are
/// data and stay as they are.
pub fn without_descriptions(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let out = map
        .iter()
        .filter(|(key, _)| key.as_str() != "description")
        .map(|(key, value)| {
            let value = match (key.as_str(), value) {
                ("properties" | "patternProperties" | "definitions", Value::Object(schemas)) => {
                    Value::Object(
                        schemas
                            .iter()
                            .map(|(name, s)| (name.clone(), without_descriptions(s)))
                            .collect(),
                    )
                }
                ("allOf" | "anyOf" | "oneOf", Value::Array(schemas)) => {
                    Value::Array(schemas.iter().map(without_descriptions).collect())
                }
                ("items" | "additionalProperties" | "not", s) => without_descriptions(s),
                (_, other) => other.clone(),
            };
            (key.clone(), value)
        })
        .collect();
    Value::Object(out)
}
