//! What the decoder reports about a body sent in a group's internal version
//! (`apps/__internal`): it decodes the body into the internal Go type, whose fields carry no
//! JSON names. Its `TypeMeta` and `ObjectMeta` are embedded, so `apiVersion`, `kind` and the
//! metadata's own fields (`name`, `labels`, ...) are read at the top level with their JSON
//! names and types, and every other field answers only to its Go name (`Spec`): a member
//! such as `metadata` or `spec` is an unknown field. The real server then refuses the body
//! (its apiVersion is not the resource's) with these warnings, or with `fieldValidation=Strict`
//! refuses it with them.
//!
//! The internal types are not published (no OpenAPI schema describes them), so a field's Go
//! name is taken as the served version's JSON name with its first letter upper-cased (`spec`
//! → `Spec`) and its type as the served field's; inside a field of a struct type only the
//! JSON type is checked (an object, or a list for a list of structs), named by the internal
//! package (`apps.DeploymentSpec`).

use serde_json::{Map, Value, json};

use super::strict::strict_errors_of;
use super::typed::{decode_error_of, resolve};
use crate::openapi::builtin::{component_prefix, schemas};
use crate::support::go_decode::Node;

/// The component of the metadata every internal type embeds.
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// The members the JSON decoder knows for the internal type of `kind`, served as
/// `group`/`version`: `TypeMeta`'s and `ObjectMeta`'s fields by their JSON names, the type's
/// own fields by their Go names, each with the served field's schema, except that a struct
/// (or a list of structs) is left unchecked inside and named by its Go type in `structs`.
fn internal_schema(
    group: &str,
    version: &str,
    kind: &str,
    package: &str,
) -> Option<(Value, Vec<(String, String)>)> {
    let served = schemas().get(&format!("{}.{kind}", component_prefix(group, version)))?;
    let meta = schemas().get(OBJECT_META)?;
    let mut properties = Map::new();
    let mut structs = Vec::new();
    properties.insert("apiVersion".into(), json!({"type": "string"}));
    properties.insert("kind".into(), json!({"type": "string"}));
    for (name, schema) in meta["properties"].as_object()? {
        properties.insert(name.clone(), schema.clone());
    }
    for (name, field) in served["properties"].as_object()? {
        if matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
            continue;
        }
        let mut chars = name.chars();
        let Some(first) = chars.next() else { continue };
        let go_name: String = first.to_uppercase().chain(chars).collect();
        let (list, element) = match field["type"].as_str() {
            Some("array") => ("[]", &field["items"]),
            _ => ("", field),
        };
        match resolve(element) {
            (Some(component), schema) if schema.get("properties").is_some() => {
                let short = component.rsplit('.').next().unwrap_or(component);
                structs.push((go_name.clone(), format!("{list}{package}.{short}")));
                properties.insert(
                    go_name,
                    json!({"x-kubernetes-preserve-unknown-fields": true}),
                );
            }
            _ => {
                properties.insert(go_name, field.clone());
            }
        }
    }
    Some((json!({"type": "object", "properties": properties}), structs))
}

/// The decoder's first type error and its strict errors (unknown and repeated fields, in
/// document order) for a body `node` in the internal version of `kind`, the resource served
/// as `group`/`version` whose internal Go type is `go_type` (`apps.Deployment`).
pub fn internal_decoding(
    group: &str,
    version: &str,
    kind: &str,
    go_type: &str,
    node: &Node,
) -> (Option<String>, Vec<String>) {
    let (package, name) = go_type.rsplit_once('.').unwrap_or(("", go_type));
    let Some((schema, structs)) = internal_schema(group, version, kind, package) else {
        return (None, Vec::new());
    };
    let type_error = match node {
        Node::Object(members) => members.iter().find_map(|(key, value)| {
            match structs.iter().find(|(go_name, _)| go_name == key) {
                Some((_, ty)) => {
                    let fits = match value {
                        Node::Null => true,
                        Node::Object(_) => !ty.starts_with("[]"),
                        Node::Array(_) => ty.starts_with("[]"),
                        _ => false,
                    };
                    (!fits).then(|| {
                        format!(
                            "json: cannot unmarshal {} into Go struct field {name}.{key} of type {ty}",
                            value.go_kind()
                        )
                    })
                }
                None => {
                    let single = Node::Object(vec![(key.clone(), value.clone())]);
                    decode_error_of(&single, &schema, name)
                }
            }
        }),
        _ => decode_error_of(node, &schema, name),
    };
    (type_error, strict_errors_of(node, &schema, &|_| false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::go_decode::parse;

    fn decoding(body: &str) -> (Option<String>, Vec<String>) {
        let node = parse(body.as_bytes()).expect("JSON");
        internal_decoding("apps", "v1", "Deployment", "apps.Deployment", &node)
    }

    #[test]
    fn only_the_metadata_fields_and_go_names_are_known() {
        let body = r#"{"apiVersion":"apps/__internal","kind":"Deployment","name":"x",
            "ownerReferences":[{"foo":1,"name":"a"}],"Foo":1,"Spec":{"zz":1},"name":"y",
            "metadata":1,"metadata":2,"spec":{}}"#;
        let (type_error, strict) = decoding(body);
        assert_eq!(type_error, None);
        assert_eq!(
            strict,
            [
                r#"unknown field "ownerReferences[0].foo""#,
                r#"unknown field "Foo""#,
                r#"duplicate field "name""#,
                r#"unknown field "metadata""#,
                r#"unknown field "spec""#,
            ]
        );
    }

    #[test]
    fn the_metadata_fields_are_typed_under_the_internal_type_name() {
        let (type_error, _) = decoding(r#"{"labels":{"a":1}}"#);
        assert_eq!(
            type_error.as_deref(),
            Some(
                "json: cannot unmarshal number into Go struct field Deployment.labels of type string"
            )
        );
        let (type_error, _) = decoding(r#"{"name":"x","Spec":1,"labels":{"a":1}}"#);
        assert_eq!(
            type_error.as_deref(),
            Some(
                "json: cannot unmarshal number into Go struct field Deployment.Spec of type apps.DeploymentSpec"
            )
        );
    }
}
