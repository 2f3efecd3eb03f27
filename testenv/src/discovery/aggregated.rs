//! Aggregated discovery (`apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`), which kubectl
//! asks for first and which saves it one request per group version.

use serde_json::{Value, json};

use super::groups::{groups, resources_of};
use crate::endpoints::media_type::{Output, PROTOBUF};
use crate::registry::Registry;
use crate::support::json_order;
use crate::support::request::Reply;
use crate::support::resource::ResourceDef;

/// The form of the answer, after its media type.
const FORM: &str = ";g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// The kind a resource answers with: built-in kinds leave group and version empty, custom
/// kinds name them (as the real server lists them).
fn response_kind(d: &ResourceDef) -> Value {
    if d.custom.is_some() {
        json!({"group": d.group, "version": d.version, "kind": d.kind})
    } else {
        json!({"group": "", "version": "", "kind": d.kind})
    }
}

fn resource_json(d: &ResourceDef) -> Value {
    let mut r = json!({
        "resource": d.plural, "responseKind": response_kind(d),
        "scope": if d.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": d.singular, "verbs": d.verbs,
    });
    if !d.short_names.is_empty() {
        r["shortNames"] = json!(d.short_names);
    }
    if !d.categories.is_empty() {
        r["categories"] = json!(d.categories);
    }
    if !d.subresources.is_empty() {
        let subresources: Vec<Value> = d
            .subresources
            .iter()
            .map(|s| {
                json!({
                    "subresource": s.name,
                    "responseKind": {"group": s.group, "version": s.version, "kind": s.kind},
                    "verbs": s.verbs,
                })
            })
            .collect();
        r["subresources"] = json!(subresources);
    }
    r
}

fn version_json(registry: &Registry, group: &str, version: &str) -> Value {
    let resources: Vec<Value> = resources_of(registry, group, version)
        .map(|d| resource_json(d))
        .collect();
    json!({"version": version, "resources": resources, "freshness": "Current"})
}

/// The aggregated document for `/api` (core) or `/apis` (named groups), in `output` (JSON, or
/// protobuf: `APIGroupDiscoveryList` in the `k8s\0` envelope).
pub fn reply(registry: &Registry, core: bool, output: Output) -> Reply {
    let items: Vec<Value> = if core {
        vec![json!({"metadata": {}, "versions": [version_json(registry, "", "v1")]})]
    } else {
        groups(registry)
            .iter()
            .map(|(g, versions)| {
                json!({
                    "metadata": {"name": g},
                    "versions": versions.iter().map(|v| version_json(registry, g, v)).collect::<Vec<_>>(),
                })
            })
            .collect()
    };
    let body = json!({"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": items});
    Reply::Cacheable {
        cache_control: "public",
        etag: Some(etag(&body)),
        reply: Box::new(Reply::Json {
            code: 200,
            body,
            content_type: match output {
                Output::Json => format!("application/json{FORM}"),
                Output::Yaml => format!("application/yaml{FORM}"),
                Output::Protobuf => format!("{PROTOBUF}{FORM}"),
            },
            warnings: Vec::new(),
        }),
    }
}

/// The start of the document as [`json_order::to_vec`] writes it.
const TYPED_HEAD: &[u8] =
    br#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","#;

/// The document's entity tag as kube-apiserver computes it: the SHA-512, in upper-case hex and
/// quoted, of its cached list as Go's `json.Marshal` writes it, which has no `kind` or
/// `apiVersion` (the serializer adds them to the answer only). So a client's cached copy
/// stays valid in JSON and protobuf alike, and a tag matches the real server's for the same
/// document.
fn etag(document: &Value) -> String {
    let written = json_order::to_vec(document);
    let untyped = match written.strip_prefix(TYPED_HEAD) {
        Some(rest) => [b"{", rest].concat(),
        None => written,
    };
    let digest = ring::digest::digest(&ring::digest::SHA512, &untyped);
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02X}")).collect();
    format!("\"{hex}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_hashes_the_document_without_its_type() {
        let document = json!({"kind": "APIGroupDiscoveryList",
            "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": []});
        // SHA-512 of `{"metadata":{},"items":[]}`.
        let digest = ring::digest::digest(&ring::digest::SHA512, br#"{"metadata":{},"items":[]}"#);
        let hex: String = digest.as_ref().iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(etag(&document), format!("\"{hex}\""));
        assert_eq!(etag(&document).len(), 130);
    }
}
