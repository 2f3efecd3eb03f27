//! The OpenAPI v3 documents of the built-in API, as kube-apiserver v1.34 publishes them under
//! `/openapi/v3`: one per group-version (the paths of its resources and subresources, see
//! [`paths`]), one per group, and `api`, `apis`, `version` and the service account issuer's
//! `.well-known/openid-configuration` and `openid/v1/jwks`.
//!
//! The component schemas are the real server's (`schemas.json`, loaded by
//! `support::openapi_schemas`, recorded from kube-apiserver
//! v1.34.9 by `scripts/record-discovery.sh`, descriptions left out): every field, type,
//! format, default, enum and `x-kubernetes-*` extension (list types and map keys, patch
//! strategies, int-or-string, group-version-kinds). Each document carries exactly the
//! schemas its paths refer to, directly or through other schemas, as the real ones do.
//! `tests/embedded/parity` compares the documents with the recording.
//!
//! The documents never change within a process; they are built once, on first use.

mod names;
mod paths;

use std::collections::BTreeSet;
use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use names::tag;
pub use names::{component_prefix, index_key};
use paths::{group_version_paths, single_get};

use super::hash::document_hash;
use crate::registry::builtin_resources;
use crate::support::openapi_schemas;
use crate::support::resource::ResourceDef;

const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1";
const OBJECT_TYPES: &[&str] = &[
    "application/json",
    "application/vnd.kubernetes.protobuf",
    "application/yaml",
];

/// Every component schema of the built-in documents, by name (loaded once by
/// [`openapi_schemas`], where the field manager reads them too).
pub fn schemas() -> &'static Map<String, Value> {
    openapi_schemas::schemas()
}

/// One built-in document with its index key and content hash.
pub struct Document {
    /// The index key: `api/v1`, `apis/apps`, `version`.
    pub key: String,
    /// The document.
    pub doc: Value,
    /// A digest of the document, for the index's `?hash=`.
    pub hash: String,
}

/// A document of one GET: index key, tag, path, operation id, answer schema, content types.
type Fixed = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Value,
    &'static [&'static str],
);

/// Every built-in document, sorted by key.
pub fn documents() -> &'static [Document] {
    static DOCS: OnceLock<Vec<Document>> = OnceLock::new();
    DOCS.get_or_init(|| {
        let defs = builtin_resources();
        let mut docs: Vec<(String, Value)> = Vec::new();
        let mut gvs: Vec<(String, String)> = defs
            .iter()
            .map(|d| (d.group.clone(), d.version.clone()))
            .collect();
        gvs.sort();
        gvs.dedup();
        for (g, v) in &gvs {
            let resources: Vec<&ResourceDef> = defs
                .iter()
                .filter(|d| d.group == *g && d.version == *v)
                .collect();
            let paths = group_version_paths(g, v, &resources).into_json();
            docs.push((index_key(g, v), document(paths)));
        }
        let mut groups: Vec<&String> = gvs
            .iter()
            .map(|(g, _)| g)
            .filter(|g| !g.is_empty())
            .collect();
        groups.dedup();
        for g in groups {
            let short = g.strip_suffix(".k8s.io").unwrap_or(g);
            let id: String = short.split('.').map(capitalized).collect();
            let paths = single_get(
                &tag(g, None),
                &format!("/apis/{g}/"),
                &format!("get{id}APIGroup"),
                schema_ref(&format!("{META}.APIGroup")),
                OBJECT_TYPES,
            );
            docs.push((format!("apis/{g}"), document(paths)));
        }
        let fixed: [Fixed; 5] = [
            (
                "api",
                "core",
                "/api/",
                "getCoreAPIVersions",
                schema_ref(&format!("{META}.APIVersions")),
                OBJECT_TYPES,
            ),
            (
                "apis",
                "apis",
                "/apis/",
                "getAPIVersions",
                schema_ref(&format!("{META}.APIGroupList")),
                OBJECT_TYPES,
            ),
            (
                "version",
                "version",
                "/version/",
                "getCodeVersion",
                schema_ref("io.k8s.apimachinery.pkg.version.Info"),
                &["application/json"],
            ),
            (
                ".well-known/openid-configuration",
                "WellKnown",
                "/.well-known/openid-configuration/",
                "getServiceAccountIssuerOpenIDConfiguration",
                json!({"type": "string"}),
                &["application/json"],
            ),
            (
                "openid/v1/jwks",
                "openid",
                "/openid/v1/jwks/",
                "getServiceAccountIssuerOpenIDKeyset",
                json!({"type": "string"}),
                &["application/jwk-set+json"],
            ),
        ];
        for (key, tag, path, id, schema, types) in fixed {
            docs.push((
                key.to_string(),
                document(single_get(tag, path, id, schema, types)),
            ));
        }
        docs.sort_by(|a, b| a.0.cmp(&b.0));
        docs.into_iter()
            .map(|(key, doc)| {
                let hash = document_hash(&doc);
                Document { key, doc, hash }
            })
            .collect()
    })
}

/// The built-in document of an index key, if there is one.
pub fn find(key: &str) -> Option<&'static Document> {
    documents().iter().find(|d| d.key == key)
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

fn schema_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// Every schema name a value refers to (`$ref`s anywhere inside it).
fn refs_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "$ref" {
                    if let Some(name) = x
                        .as_str()
                        .and_then(|s| s.strip_prefix("#/components/schemas/"))
                    {
                        out.push(name.to_string());
                    }
                } else {
                    refs_in(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| refs_in(x, out)),
        _ => {}
    }
}

/// A document with its paths and every schema they reach.
fn document(paths: Value) -> Value {
    let all = schemas();
    let mut todo = Vec::new();
    refs_in(&paths, &mut todo);
    let mut seen = BTreeSet::new();
    while let Some(name) = todo.pop() {
        if seen.insert(name.clone())
            && let Some(s) = all.get(&name)
        {
            refs_in(s, &mut todo);
        }
    }
    let carried: Map<String, Value> = seen
        .into_iter()
        .filter_map(|n| all.get(&n).map(|s| (n, s.clone())))
        .collect();
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "1.34"},
        "paths": paths,
        "components": {
            "schemas": carried,
            "securitySchemes": {"BearerToken": {
                "type": "apiKey", "description": "Bearer Token authentication",
                "name": "authorization", "in": "header",
            }},
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_carry_the_schemas_their_paths_reach() {
        let apps = find("apis/apps/v1").unwrap();
        let schemas = &apps.doc["components"]["schemas"];
        assert!(schemas["io.k8s.api.apps.v1.Deployment"]["properties"]["spec"].is_object());
        // reached through Deployment → DeploymentSpec → PodTemplateSpec → PodSpec
        assert!(schemas["io.k8s.api.core.v1.Container"].is_object());
        assert!(schemas.get("io.k8s.api.core.v1.Node").is_none());
        let text = apps.doc.to_string();
        for part in text.split("#/components/schemas/").skip(1) {
            let name = &part[..part.find('"').unwrap()];
            assert!(schemas.get(name).is_some(), "dangling $ref {name}");
        }
        assert!(find("apis/apps").is_some() && find("version").is_some());
    }
}
