//! Turns CRDs and RBAC objects into the exact bytes written to `config/`: YAML documents starting
//! with `---`, keys in a fixed order, optionally without descriptions.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

/// The annotation naming the generator, like controller-gen's `controller-gen.kubebuilder.io/version`.
pub const VERSION_ANNOTATION: &str = "kubeforge.io/version";

/// The size limit of the `kubectl.kubernetes.io/last-applied-configuration` annotation that
/// client-side `kubectl apply` stores the whole object in.
pub const LAST_APPLIED_LIMIT: usize = 262_144;

/// Removes every `description` of a schema tree (not properties that happen to be named so).
pub fn strip_descriptions(schema: &mut Value) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    obj.remove("description");
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        props.values_mut().for_each(strip_descriptions);
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(v) = obj.get_mut(key) {
            strip_descriptions(v);
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = obj.get_mut(key) {
            branches.iter_mut().for_each(strip_descriptions);
        }
    }
}

/// Writes integral bounds as integers (`minimum: 1`, as controller-gen does, not `1.0`):
/// `JSONSchemaProps` stores them as floats.
pub fn integral_bounds(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            for (key, v) in obj.iter_mut() {
                if matches!(key.as_str(), "minimum" | "maximum" | "multipleOf")
                    && let Some(f) = v.as_f64()
                    && f.fract() == 0.0
                    && f.abs() < 9.0e15
                {
                    *v = Value::from(f as i64);
                } else {
                    integral_bounds(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_bounds),
        _ => {}
    }
}

/// The CRD as JSON, with the generator annotation and (if asked) without descriptions.
pub fn crd_value(crd: &CustomResourceDefinition, no_descriptions: bool) -> Value {
    let mut crd = crd.clone();
    crd.metadata
        .annotations
        .get_or_insert_with(Default::default)
        .insert(VERSION_ANNOTATION.into(), env!("CARGO_PKG_VERSION").into());
    let mut value = serde_json::to_value(&crd).expect("CRDs serialize");
    integral_bounds(&mut value);
    if no_descriptions && let Some(Value::Array(versions)) = value.pointer_mut("/spec/versions") {
        for v in versions {
            if let Some(schema) = v.pointer_mut("/schema/openAPIV3Schema") {
                strip_descriptions(schema);
            }
        }
    }
    value
}

/// YAML documents, each starting with `---`.
pub fn yaml_documents(docs: &[Value]) -> Result<String, serde_saphyr::ser::Error> {
    let mut out = String::new();
    for doc in docs {
        out.push_str("---\n");
        out.push_str(&serde_saphyr::to_string(doc)?);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strips_descriptions_but_not_fields_named_description() {
        let mut schema = json!({"type": "object", "description": "root", "properties": {
            "description": {"type": "string", "description": "a field"},
            "list": {"type": "array", "items": {"type": "object", "description": "item"}}
        }});
        strip_descriptions(&mut schema);
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {
                "description": {"type": "string"},
                "list": {"type": "array", "items": {"type": "object"}}
            }})
        );
    }

    #[test]
    fn integral_bounds_become_integers() {
        let mut v = json!({"properties": {"a": {"minimum": 1.0, "maximum": 1.5, "multipleOf": 2.0, "default": 3.0}}});
        integral_bounds(&mut v);
        assert_eq!(
            v.to_string(),
            r#"{"properties":{"a":{"default":3.0,"maximum":1.5,"minimum":1,"multipleOf":2}}}"#
        );
    }

    #[test]
    fn documents_start_with_separators_and_are_stable() {
        let docs = [json!({"b": 1, "a": ["x"]}), json!({"c": true})];
        let first = yaml_documents(&docs).unwrap();
        assert!(first.starts_with("---\n"), "{first}");
        assert_eq!(first.matches("---\n").count(), 2, "{first}");
        assert_eq!(first, yaml_documents(&docs).unwrap());
        let back: Value = serde_saphyr::from_str(first.split("---\n").nth(1).unwrap()).unwrap();
        assert_eq!(back, docs[0]);
    }
}
