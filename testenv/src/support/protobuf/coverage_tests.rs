//! Every described message names exactly the fields of its type: each message reachable from a
//! kind kubectl sends is compared with the JSON properties of the same type in the real server's
//! OpenAPI schemas, so a field k8s.io/api has and no table describes fails here.

use std::collections::BTreeSet;

use serde_json::Value;

use super::kinds_typed::KINDS;
use super::schema::{Message, Shape, Ty};
use crate::support::openapi_schemas;

/// The JSON names a message describes, its inlined structs' included.
fn described(message: &'static Message) -> BTreeSet<&'static str> {
    let mut names = BTreeSet::new();
    for field in message.fields {
        match (field.shape, field.ty) {
            (Shape::Inline, Ty::Msg(inner)) => names.extend(described(inner)),
            _ => {
                names.insert(field.name);
            }
        }
    }
    names
}

/// The fields of `message` (inlined structs' included) that hold a described message, with
/// their shape.
fn nested(message: &'static Message) -> Vec<(&'static str, Shape, &'static Message)> {
    let mut out = Vec::new();
    for field in message.fields {
        match (field.shape, field.ty) {
            (Shape::Inline, Ty::Msg(inner)) => out.extend(nested(inner)),
            (shape, Ty::Msg(inner)) => out.push((field.name, shape, inner)),
            _ => {}
        }
    }
    out
}

/// Compares `message` at `path` with `schema`, and the messages it holds with the schemas of
/// their properties; each difference is pushed to `problems`.
fn compare(
    path: &str,
    message: &'static Message,
    schema: &Value,
    top_level: bool,
    problems: &mut Vec<String>,
) {
    compare_once(
        path,
        message,
        schema,
        top_level,
        problems,
        &mut BTreeSet::new(),
    );
}

/// [`compare`], each message compared once (a JSONSchemaProps holds JSONSchemaProps).
fn compare_once(
    path: &str,
    message: &'static Message,
    schema: &Value,
    top_level: bool,
    problems: &mut Vec<String>,
    seen: &mut BTreeSet<&'static str>,
) {
    if !seen.insert(message.name) {
        return;
    }
    let schema = openapi_schemas::resolve(schema);
    let Some(properties) = schema["properties"].as_object() else {
        // A struct without fields (a CRD's `subresources.status`) has no properties.
        if message.fields.is_empty() {
            return;
        }
        problems.push(format!(
            "{path} ({}): no properties in the schema",
            message.name
        ));
        return;
    };
    let names = described(message);
    // An embedded TypeMeta (a kind's, or an object's held by another, as a StatefulSet's claim
    // templates) has no protobuf field: the envelope carries the top level's.
    let type_meta = top_level || !(names.contains("apiVersion") || names.contains("kind"));
    let expected: BTreeSet<&str> = properties
        .keys()
        .map(String::as_str)
        .filter(|name| !(type_meta && matches!(*name, "apiVersion" | "kind")))
        .collect();
    for missing in expected.difference(&names) {
        problems.push(format!(
            "{path} ({}): `{missing}` not described",
            message.name
        ));
    }
    for extra in names.difference(&expected) {
        problems.push(format!(
            "{path} ({}): `{extra}` not in the schema",
            message.name
        ));
    }
    for (name, shape, inner) in nested(message) {
        let Some(property) = properties.get(name) else {
            continue;
        };
        let property = openapi_schemas::resolve(property);
        let inner_schema = match shape {
            Shape::List => &property["items"],
            Shape::Map => &property["additionalProperties"],
            _ => property,
        };
        compare_once(
            &format!("{path}.{name}"),
            inner,
            inner_schema,
            false,
            problems,
            seen,
        );
    }
}

#[test]
fn every_described_message_has_every_field_of_its_type() {
    let mut problems = Vec::new();
    let kinds = KINDS
        .iter()
        .chain(super::kinds_core::KINDS)
        .chain(super::kinds_more::KINDS_MORE);
    for (api_version, kind, message) in kinds {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let Some(schema) = openapi_schemas::of_kind(group, version, kind) else {
            problems.push(format!("{api_version} {kind}: no schema"));
            continue;
        };
        compare(kind, message, schema, true, &mut problems);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_missing_or_unknown_field_is_reported() {
    use super::schema::{ptr, val};
    static PARTIAL_PROBE: Message = Message::new(
        "Probe",
        &[
            val(2, "initialDelaySeconds", Ty::Int),
            ptr(99, "bogus", Ty::Int),
        ],
    );
    let schema = openapi_schemas::named("io.k8s.api.core.v1.Probe").expect("Probe is built in");
    let mut problems = Vec::new();
    compare("Probe", &PARTIAL_PROBE, schema, false, &mut problems);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`periodSeconds` not described")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`bogus` not in the schema")),
        "{problems:?}"
    );
}
