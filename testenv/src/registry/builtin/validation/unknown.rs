//! What Go's decoder keeps of a built-in body: it decodes the JSON into the kind's Go type,
//! so a member the type has no field for (`spec.zz`, `metadata.zz`) is gone from the object
//! the real server stores, returns and records managed fields for. The strict decoder
//! ([`super::strict`]) reports the same members as unknown fields.
//!
//! Values without declared fields are kept as they are (raw values,
//! `x-kubernetes-preserve-unknown-fields`, int-or-string and time values).

use serde_json::{Value, json};

use super::typed::resolve;
use crate::openapi::builtin::{component_prefix, schemas};

/// Drops from `object`, a body of `kind` in `group`/`version`, the members its Go type has
/// no field for, at every depth. A kind without a recorded schema is left as it is.
pub fn drop_unknown_fields(group: &str, version: &str, kind: &str, object: &mut Value) {
    let component = format!("{}.{kind}", component_prefix(group, version));
    let Some((name, _)) = schemas().get_key_value(&component) else {
        return;
    };
    let root = json!({"$ref": format!("#/components/schemas/{name}")});
    drop_in(object, &root);
}

/// A CRD schema's `items`, `additionalProperties` and `dependencies` values: a schema (or a
/// list of them) decoded by their own `UnmarshalJSON` into the schema's Go type, which drops
/// unknown members too, without reporting them.
const SCHEMA_OR: &[&str] = &[
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
];

fn drop_in(value: &mut Value, schema: &Value) {
    let (name, schema) = resolve(schema);
    if name.is_some_and(|n| SCHEMA_OR.contains(&n)) {
        let props = json!({"$ref": "#/components/schemas/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"});
        match value {
            Value::Object(_) => drop_in(value, &props),
            Value::Array(items) => items.iter_mut().for_each(|item| drop_in(item, &props)),
            _ => {}
        }
        return;
    }
    let opaque = schema.get("oneOf").is_some()
        || schema["x-kubernetes-preserve-unknown-fields"] == true
        || matches!(
            schema["format"].as_str(),
            Some("int-or-string" | "date-time")
        );
    if opaque {
        return;
    }
    match value {
        Value::Object(members) => {
            if let Some(fields) = schema["properties"].as_object() {
                members.retain(|key, _| fields.contains_key(key));
                for (key, member) in members.iter_mut() {
                    drop_in(member, &fields[key]);
                }
            } else if let Some(values) = schema.get("additionalProperties") {
                for member in members.values_mut() {
                    drop_in(member, values);
                }
            }
        }
        Value::Array(items) if schema["type"] == "array" => {
            for item in items {
                drop_in(item, &schema["items"]);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_members_are_dropped_at_every_depth_raw_values_kept() {
        let mut deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "zz": 1, "labels": {"a": "b"}}, "zz": 1,
            "spec": {"zz": 1, "replicas": 1, "template": {"spec": {"containers": [
                {"name": "c", "imagee": "i", "resources": {"limits": {"cpu": "1"}}}]}}}});
        drop_unknown_fields("apps", "v1", "Deployment", &mut deployment);
        assert_eq!(
            deployment,
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "d", "labels": {"a": "b"}},
                "spec": {"replicas": 1, "template": {"spec": {"containers": [
                    {"name": "c", "resources": {"limits": {"cpu": "1"}}}]}}}})
        );
        let mut revision = json!({"apiVersion": "apps/v1", "kind": "ControllerRevision",
            "metadata": {"name": "r"}, "revision": 1, "data": {"anything": {"goes": 1}}});
        let kept = revision.clone();
        drop_unknown_fields("apps", "v1", "ControllerRevision", &mut revision);
        assert_eq!(revision, kept);
    }

    #[test]
    fn a_crd_schema_loses_unknown_members_inside_items_and_additional_properties() {
        let mut crd = json!({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
            "type": "object", "zz": 1, "properties": {
                "a": {"type": "array", "items": {"type": "string", "zz": 1}},
                "m": {"type": "object", "additionalProperties": {"type": "string", "yy": 2}},
                "t": {"type": "array", "items": [{"type": "string", "xx": 3}]},
                "d": {"default": {"zz": 1}}}}}}]}});
        drop_unknown_fields(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
            &mut crd,
        );
        assert_eq!(
            crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"],
            json!({"type": "object", "properties": {
                "a": {"type": "array", "items": {"type": "string"}},
                "m": {"type": "object", "additionalProperties": {"type": "string"}},
                "t": {"type": "array", "items": [{"type": "string"}]},
                "d": {"default": {"zz": 1}}}})
        );
    }
}
