//! `/openapi/v2`: the whole API in one Swagger 2.0 document, as kube-apiserver serves it to
//! client-go's `OpenAPISchema()` (kubectl's `explain --output=plaintext-openapiv2`, Helm's
//! validation, strategic-merge metadata), in JSON or in gnostic's protobuf form.
//!
//! It is built from the same documents as `/openapi/v3` (no second source of truth): every
//! path of the built-in and custom group-versions, the built-in definitions and each custom
//! kind's schema and list schema, turned into Swagger 2.0 by [`operations`] and [`schema`],
//! with the parameters the real document shares moved under `parameters` by [`shared`].

mod operations;
mod proto;
mod schema;
mod shared;
mod wire;

use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use super::builtin;
use super::embedded::{Form, add_embedded_properties};
use super::hash::document_hash;
use super::{group_version_document, str_at, versions};
use schema::{Rules, convert, convert_root};

/// The media type of the protobuf form (what client-go asks for), as requested.
pub const PROTOBUF_ACCEPT: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
/// The media type of the protobuf form, as the real server names it in `Content-Type`.
pub const PROTOBUF_CONTENT_TYPE: &str =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// The representation a request's `Accept` header asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `application/json` (also `*/*` and no `Accept` at all).
    Json,
    /// gnostic's `openapi.v2.Document` message.
    Protobuf,
}

/// The first representation `accept` names that the server can give, `None` when it names
/// none (the real server then answers 406).
pub fn negotiate(accept: &str) -> Option<Format> {
    if accept.trim().is_empty() {
        return Some(Format::Json);
    }
    accept
        .split(',')
        .map(|t| t.split(';').next().unwrap_or_default().trim())
        .find_map(|t| match t {
            "application/json" | "application/*" | "*/*" => Some(Format::Json),
            PROTOBUF_ACCEPT | PROTOBUF_CONTENT_TYPE => Some(Format::Protobuf),
            _ => None,
        })
}

/// One encoded answer: the body, its content type and the entity tag the real server sends
/// for it (the same for both representations, a digest of the document).
pub struct Encoded {
    /// The body.
    pub body: Vec<u8>,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The `ETag` value, quoted.
    pub etag: String,
}

/// The document in the representation asked for.
pub fn encode(doc: &Value, format: Format) -> Encoded {
    let etag = format!("\"{}\"", document_hash(doc));
    match format {
        Format::Json => Encoded {
            body: serde_json::to_vec(doc).unwrap_or_default(),
            content_type: "application/json",
            etag,
        },
        Format::Protobuf => Encoded {
            body: proto::document(doc),
            content_type: PROTOBUF_CONTENT_TYPE,
            etag,
        },
    }
}

/// The built-in part: every path of the built-in documents and every built-in definition.
fn builtin_part() -> &'static (Map<String, Value>, Map<String, Value>) {
    static PART: OnceLock<(Map<String, Value>, Map<String, Value>)> = OnceLock::new();
    PART.get_or_init(|| {
        let mut paths = Map::new();
        for d in builtin::documents() {
            for (path, item) in d.doc["paths"].as_object().into_iter().flatten() {
                paths.insert(path.clone(), operations::path_item(item));
            }
        }
        let definitions = builtin::schemas()
            .iter()
            .map(|(name, s)| (name.clone(), convert(s, Rules::Builtin)))
            .collect();
        (paths, definitions)
    })
}

/// The `/openapi/v2` document for the built-in kinds and the CRDs given.
pub fn openapi_v2(crds: &[Value]) -> Value {
    let (builtin_paths, builtin_definitions) = builtin_part();
    let mut paths = builtin_paths.clone();
    let mut definitions = builtin_definitions.clone();
    let mut done: Vec<(String, String)> = Vec::new();
    for crd in crds {
        let group = str_at(crd, &["spec", "group"]);
        for v in versions(crd) {
            let version = v.get("name").and_then(Value::as_str).unwrap_or_default();
            let key = (group.to_string(), version.to_string());
            if done.contains(&key) {
                continue;
            }
            done.push(key);
            let Some(doc) = group_version_document(crds, group, version, Form::V2) else {
                continue;
            };
            for (path, item) in doc["paths"].as_object().into_iter().flatten() {
                paths.insert(path.clone(), operations::path_item(item));
            }
            for (name, s) in doc["components"]["schemas"]
                .as_object()
                .into_iter()
                .flatten()
            {
                if definitions.contains_key(name) {
                    continue;
                }
                let mut converted = if s.get("x-kubernetes-group-version-kind").is_some() {
                    convert_root(s)
                } else {
                    convert(s, Rules::Custom)
                };
                // Added after the conversion, as the real builder adds them.
                add_embedded_properties(&mut converted, Form::V2);
                definitions.insert(name.clone(), converted);
            }
        }
    }
    let parameters = shared::share(&mut paths);
    json!({
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": "1.34"},
        "paths": paths,
        "definitions": definitions,
        "parameters": parameters,
        "securityDefinitions": {"BearerToken": {
            "type": "apiKey", "name": "authorization", "in": "header",
            "description": "Bearer Token authentication",
        }},
        "security": [{"BearerToken": []}],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd() -> Value {
        json!({
            "metadata": {"name": "gadgets.probe.example.com"},
            "spec": {"group": "probe.example.com", "scope": "Namespaced",
                "names": {"plural": "gadgets", "kind": "Gadget", "listKind": "GadgetList"},
                "versions": [
                    {"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                     "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object",
                        "properties": {"size": {"type": "integer", "nullable": true}}}}}}},
                    {"name": "v2", "served": true, "storage": false,
                     "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
                    {"name": "v3", "served": false, "storage": false}
                ]}
        })
    }

    #[test]
    fn document_has_built_in_and_custom_paths_and_definitions() {
        let doc = openapi_v2(&[crd()]);
        assert_eq!(doc["swagger"], "2.0");
        let defs = &doc["definitions"];
        let deployment = &defs["io.k8s.api.apps.v1.Deployment"];
        assert_eq!(
            deployment["properties"]["spec"]["$ref"],
            "#/definitions/io.k8s.api.apps.v1.DeploymentSpec"
        );
        assert_eq!(
            deployment["x-kubernetes-group-version-kind"][0]["kind"],
            "Deployment"
        );
        let gadget = &defs["com.example.probe.v1.Gadget"];
        assert_eq!(
            gadget["properties"]["metadata"]["$ref"],
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
        );
        assert_eq!(
            gadget["properties"]["spec"]["properties"]["size"],
            json!({})
        );
        assert_eq!(
            defs["com.example.probe.v2.Gadget"],
            json!({"type": "object", "x-kubernetes-group-version-kind": [{"group": "probe.example.com", "kind": "Gadget", "version": "v2"}]})
        );
        assert!(defs.get("com.example.probe.v3.Gadget").is_none());
        assert_eq!(
            defs["com.example.probe.v1.GadgetList"]["properties"]["items"]["items"]["$ref"],
            "#/definitions/com.example.probe.v1.Gadget"
        );
        let item =
            &doc["paths"]["/apis/probe.example.com/v1/namespaces/{namespace}/gadgets/{name}"];
        assert_eq!(item["patch"]["x-kubernetes-action"], "patch");
        assert!(
            doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["put"]
                .is_object()
        );
        // every reference resolves
        let text = doc.to_string();
        for part in text.split("#/definitions/").skip(1) {
            let name = &part[..part.find('"').unwrap()];
            assert!(defs.get(name).is_some(), "dangling $ref {name}");
        }
        assert!(!text.contains("#/components/"));
        // Shared parameters are referred to, and every reference resolves.
        let parameters = doc["parameters"].as_object().unwrap();
        assert!(parameters.keys().any(|k| k.starts_with("namespace-")));
        for part in text.split("#/parameters/").skip(1) {
            let name = &part[..part.find('"').unwrap()];
            assert!(parameters.contains_key(name), "dangling $ref {name}");
        }
        let item_params = item
            .as_object()
            .unwrap()
            .values()
            .filter_map(|v| v.as_array().or_else(|| v["parameters"].as_array()))
            .flatten();
        for p in item_params {
            if let Some(name) = p["name"].as_str() {
                assert!(
                    ["name", "body", "dryRun", "fieldValidation"].contains(&name),
                    "{p}"
                );
            }
        }
    }

    #[test]
    fn embedded_resources_get_object_properties_unless_they_preserve_unknown_fields() {
        let crd = json!({
            "metadata": {"name": "bundles.probe.example.com"},
            "spec": {"group": "probe.example.com", "scope": "Namespaced",
                "names": {"plural": "bundles", "kind": "Bundle"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
                        "type": "object", "properties": {
                            "raw": {"type": "object", "x-kubernetes-embedded-resource": true,
                                "x-kubernetes-preserve-unknown-fields": true},
                            "typed": {"type": "object", "x-kubernetes-embedded-resource": true,
                                "properties": {"spec": {"type": "object"}}}}}}}}}]}
        });
        let v2 = openapi_v2(std::slice::from_ref(&crd));
        let p =
            &v2["definitions"]["com.example.probe.v1.Bundle"]["properties"]["spec"]["properties"];
        assert_eq!(
            p["raw"],
            json!({"x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(p["typed"]["required"], json!(["kind", "apiVersion"]));
        assert_eq!(
            p["typed"]["properties"]["metadata"]["$ref"],
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
        );
        assert_eq!(p["typed"]["properties"]["spec"], json!({"type": "object"}));
        let v3 = super::super::openapi_v3_group_version(&[crd], "probe.example.com", "v1").unwrap();
        let p = &v3["components"]["schemas"]["com.example.probe.v1.Bundle"]["properties"]["spec"]["properties"];
        assert_eq!(p["raw"]["required"], json!(["kind", "apiVersion"]));
        assert_eq!(p["raw"]["properties"]["kind"]["type"], "string");
    }

    #[test]
    fn accept_picks_json_or_protobuf() {
        assert_eq!(negotiate(""), Some(Format::Json));
        assert_eq!(negotiate("application/json, */*"), Some(Format::Json));
        assert_eq!(negotiate(PROTOBUF_ACCEPT), Some(Format::Protobuf));
        assert_eq!(negotiate("text/html"), None);
        let doc = openapi_v2(&[]);
        let (j, p) = (encode(&doc, Format::Json), encode(&doc, Format::Protobuf));
        assert_eq!(j.etag, p.etag);
        assert_ne!(encode(&openapi_v2(&[crd()]), Format::Json).etag, j.etag);
    }
}
