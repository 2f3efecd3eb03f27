//! Checks a CRD schema against the apiextensions.k8s.io/v1 structural-schema rules (the ones the
//! API server enforces when a CRD is created), so `manifests` fails with an explanation instead
//! of writing a CRD the server rejects.

use serde_json::{Map, Value};

/// One violation: where (`.spec.ports[*].name`) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON path of the field in the custom resource (`.spec.size`).
    pub path: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}",
            if self.path.is_empty() {
                "<root>"
            } else {
                &self.path
            },
            self.message
        )
    }
}

const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];
const FORBIDDEN: [(&str, &str); 9] = [
    (
        "$ref",
        "references are not allowed (a recursive type outside #[kubeforge::api], which cuts recursion itself)",
    ),
    ("definitions", "definitions are not allowed"),
    ("$defs", "definitions are not allowed"),
    ("$schema", "`$schema` is not allowed"),
    ("id", "`id` is not allowed"),
    ("patternProperties", "patternProperties is not allowed"),
    ("dependencies", "dependencies is not allowed"),
    ("additionalItems", "additionalItems is not allowed"),
    (
        "const",
        "`const` is not supported by the API server; use an enum with one value",
    ),
];

struct Checker {
    out: Vec<Violation>,
}

impl Checker {
    fn push(&mut self, path: &str, message: impl Into<String>) {
        self.out.push(Violation {
            path: path.to_string(),
            message: message.into(),
        });
    }

    /// A schema in a structural position (root, property, items, additionalProperties).
    fn structural(&mut self, schema: &Value, path: &str, root: bool) {
        let Some(obj) = schema.as_object() else {
            self.push(
                path,
                "a schema must be an object (boolean schemas are not allowed)",
            );
            return;
        };
        for (key, why) in FORBIDDEN {
            if obj.contains_key(key) {
                self.push(path, why);
            }
        }
        if obj.contains_key("$ref") {
            return;
        }
        let int_or_string = obj.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
        let preserve = obj.get("x-kubernetes-preserve-unknown-fields");
        if preserve == Some(&Value::Bool(false)) {
            self.push(
                path,
                "x-kubernetes-preserve-unknown-fields must be true or absent",
            );
        }
        let preserve = preserve == Some(&Value::Bool(true));
        let ty = obj.get("type").and_then(Value::as_str);
        match (ty, obj.get("type")) {
            (Some(t), _) if !TYPES.contains(&t) => self.push(path, format!("type `{t}` is not one of {}", TYPES.join(", "))),
            (None, Some(other)) => self.push(path, format!("type must be a single string, found {other}")),
            (None, None) if !int_or_string && !preserve => self.push(path, "type is missing: give the field a type (#[kubeforge(type_ = \"..\")]) or keep it free-form with #[kubeforge(preserve_unknown_fields)]"),
            _ => {}
        }
        if root && ty != Some("object") {
            self.push(path, "the root of a CRD schema must be of type object");
        }
        if int_or_string && ty.is_some() {
            self.push(path, "x-kubernetes-int-or-string excludes `type`");
        }
        if obj.get("uniqueItems") == Some(&Value::Bool(true)) {
            self.push(path, "uniqueItems: true is rejected by the API server; use #[kubeforge(list_type = \"set\")]");
        }
        if obj.contains_key("properties")
            && obj
                .get("additionalProperties")
                .is_some_and(|a| a != &Value::Bool(false))
        {
            self.push(path, "properties and additionalProperties are mutually exclusive: a struct with a #[serde(flatten)] map needs #[kubeforge(preserve_unknown_fields)] instead");
        }
        if obj.get("additionalProperties") == Some(&Value::Bool(false)) {
            self.push(path, "additionalProperties: false is not allowed");
        }
        if obj.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true))
            && ty != Some("object")
        {
            self.push(path, "x-kubernetes-embedded-resource needs type object");
        }
        if ty == Some("array") && !obj.get("items").is_some_and(Value::is_object) {
            self.push(path, "an array needs a single `items` schema");
        }
        self.list_type(obj, path);
        if let Some(Value::Object(props)) = obj.get("properties") {
            for (name, prop) in props {
                if root && name == "metadata" {
                    self.metadata(prop, path);
                    continue;
                }
                self.structural(prop, &format!("{path}.{name}"), false);
            }
        }
        if let Some(items) = obj.get("items") {
            self.structural(items, &format!("{path}[*]"), false);
        }
        if let Some(extra @ Value::Object(_)) = obj.get("additionalProperties") {
            self.structural(extra, &format!("{path}[*]"), false);
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(branches) = obj.get(key) {
                let Some(branches) = branches.as_array() else {
                    self.push(path, format!("{key} must be a list"));
                    continue;
                };
                if int_or_string && key != "oneOf" {
                    let ok = branches.iter().all(|b| {
                        b.as_object().is_some_and(|o| {
                            o.len() == 1
                                && matches!(
                                    o.get("type").and_then(Value::as_str),
                                    Some("integer" | "string")
                                )
                        })
                    });
                    if ok {
                        continue;
                    }
                }
                for b in branches {
                    self.value_validation(b, obj, path, key);
                }
            }
        }
        if let Some(not) = obj.get("not") {
            self.value_validation(not, obj, path, "not");
        }
    }

    fn metadata(&mut self, schema: &Value, path: &str) {
        let Some(obj) = schema.as_object() else {
            return;
        };
        if let Some(Value::Object(props)) = obj.get("properties") {
            for name in props.keys() {
                if name != "name" && name != "generateName" {
                    self.push(
                        &format!("{path}.metadata.{name}"),
                        "only metadata.name and metadata.generateName may be restricted",
                    );
                }
            }
        }
    }

    fn list_type(&mut self, obj: &Map<String, Value>, path: &str) {
        let list_type = obj.get("x-kubernetes-list-type").and_then(Value::as_str);
        let keys = obj.get("x-kubernetes-list-map-keys");
        let items = obj.get("items").and_then(Value::as_object);
        match (list_type, keys) {
            (Some("map"), None) => self.push(
                path,
                "x-kubernetes-list-type map needs x-kubernetes-list-map-keys",
            ),
            (Some(t), Some(_)) if t != "map" => self.push(
                path,
                "x-kubernetes-list-map-keys needs x-kubernetes-list-type map",
            ),
            (None, Some(_)) => self.push(
                path,
                "x-kubernetes-list-map-keys needs x-kubernetes-list-type map",
            ),
            _ => {}
        }
        if let (Some("map"), Some(Value::Array(keys)), Some(items)) = (list_type, keys, items) {
            if items.get("type").and_then(Value::as_str) != Some("object") {
                self.push(path, "a map list needs object items");
            }
            let required: Vec<&str> = items
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for key in keys.iter().filter_map(Value::as_str) {
                match items.get("properties").and_then(|p| p.get(key)) {
                    None => self.push(
                        path,
                        format!("list map key `{key}` is not a property of the items"),
                    ),
                    Some(prop) => {
                        let scalar = matches!(
                            prop.get("type").and_then(Value::as_str),
                            Some("string" | "integer" | "number" | "boolean")
                        );
                        if !scalar {
                            self.push(path, format!("list map key `{key}` must be a scalar"));
                        }
                        if !required.contains(&key) && prop.get("default").is_none() {
                            self.push(path, format!("list map key `{key}` must be required or have a default: make the field non-optional or add #[kubeforge(default = ..)]"));
                        }
                        if prop.get("nullable") == Some(&Value::Bool(true)) {
                            self.push(path, format!("list map key `{key}` must not be nullable"));
                        }
                    }
                }
            }
        }
        if list_type == Some("set")
            && let Some(items) = items
        {
            let scalar = matches!(
                items.get("type").and_then(Value::as_str),
                Some("string" | "integer" | "number" | "boolean")
            );
            if !scalar
                && items.get("x-kubernetes-map-type").and_then(Value::as_str) != Some("atomic")
            {
                self.push(path, "a set list needs scalar items (or atomic objects)");
            }
        }
    }

    /// A schema under allOf/anyOf/oneOf/not: only value validations allowed.
    fn value_validation(
        &mut self,
        schema: &Value,
        parent: &Map<String, Value>,
        path: &str,
        key: &str,
    ) {
        let Some(obj) = schema.as_object() else {
            self.push(path, format!("{key} branches must be objects"));
            return;
        };
        for forbidden in [
            "type",
            "default",
            "nullable",
            "additionalProperties",
            "description",
        ] {
            if obj.contains_key(forbidden) {
                self.push(path, format!("`{forbidden}` is not allowed inside {key}: enum variants of different shapes have no structural form; use a tagged enum or #[kubeforge(schemaless, preserve_unknown_fields)]"));
            }
        }
        for k in obj.keys().filter(|k| k.starts_with("x-kubernetes-")) {
            self.push(path, format!("`{k}` is not allowed inside {key}"));
        }
        if let Some(Value::Object(props)) = obj.get("properties") {
            let declared = parent.get("properties").and_then(Value::as_object);
            for (name, prop) in props {
                match declared.and_then(|d| d.get(name)) {
                    None => self.push(
                        path,
                        format!("property `{name}` inside {key} is not declared outside it"),
                    ),
                    Some(outer) => self.value_validation(
                        prop,
                        outer.as_object().unwrap_or(&Map::new()),
                        &format!("{path}.{name}"),
                        key,
                    ),
                }
            }
        }
        if let Some(items) = obj.get("items") {
            let outer = parent
                .get("items")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            self.value_validation(items, &outer, &format!("{path}[*]"), key);
        }
    }
}

/// All structural violations of a CRD version's `openAPIV3Schema`.
pub fn check(schema: &Value) -> Vec<Violation> {
    let mut checker = Checker { out: Vec::new() };
    checker.structural(schema, "", true);
    checker.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(schema: Value) -> Vec<String> {
        check(&schema).into_iter().map(|v| v.to_string()).collect()
    }

    #[test]
    fn accepts_a_structural_schema() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "required": ["size"], "properties": {
                "size": {"type": "integer", "minimum": 1},
                "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                "extra": {"x-kubernetes-preserve-unknown-fields": true},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}},
                "choice": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                           "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}
            }}
        }});
        assert_eq!(messages(schema), Vec::<String>::new());
    }

    #[test]
    fn rejects_non_structural_shapes() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "untagged": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "tree": {"$ref": "#/components/schemas/Tree"},
                "set": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
                "mixed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}
            }}
        }});
        let m = messages(schema).join("\n");
        assert!(m.contains(".spec.untagged: type is missing"), "{m}");
        assert!(
            m.contains(".spec.untagged: `type` is not allowed inside anyOf"),
            "{m}"
        );
        assert!(m.contains(".spec.tree: references are not allowed"), "{m}");
        assert!(m.contains(".spec.set: uniqueItems"), "{m}");
        assert!(
            m.contains(".spec.ports: list map key `name` must be required or have a default"),
            "{m}"
        );
        assert!(
            m.contains(".spec.mixed: properties and additionalProperties"),
            "{m}"
        );
    }

    #[test]
    fn root_and_metadata_rules() {
        let m = messages(json!({"type": "string"})).join("\n");
        assert!(
            m.contains("root of a CRD schema must be of type object"),
            "{m}"
        );
        let m = messages(json!({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}}})).join("\n");
        assert!(m.contains(".metadata.labels: only metadata.name"), "{m}");
    }
}
