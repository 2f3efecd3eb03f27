//! `/openapi/v3`: the index and per group-version documents built by [`crate::openapi`] from
//! the stored CRDs (custom kinds) plus the built-in group-versions.
//!
//! kubectl reads the index before `kubectl apply` to learn whether the server validates
//! fields itself (`fieldValidation` on PATCH), and the documents for `kubectl explain`.

use std::sync::Arc;
use std::time::SystemTime;

use http::header;
use serde_json::Value;

use super::modified;
use crate::endpoints::Api;
use crate::openapi;
use crate::storage::Store;
use crate::support::request::{Document, Reply};

const CRD_KEY: &str = "apiextensions.k8s.io/customresourcedefinitions";

/// The CRDs currently stored (their documents describe the custom group-versions).
fn stored_crds(store: &Store) -> Vec<Value> {
    store
        .bucket(CRD_KEY)
        .map(|b| b.values().map(|c| (**c).clone()).collect())
        .unwrap_or_default()
}

/// When the server started: when it made its bootstrap namespace `kube-system` (which
/// cannot be deleted), as a real server on a fresh store does.
fn started(store: &Store) -> Option<SystemTime> {
    let namespace = store.get("/namespaces", "", "kube-system")?;
    let created = namespace["metadata"]["creationTimestamp"].as_str()?;
    chrono::DateTime::parse_from_rfc3339(created)
        .ok()
        .map(SystemTime::from)
}

/// When what the v3 document `key` is made of last changed: for a custom group-version, the
/// last write to the spec of one of its CRDs; for a built-in one, the server's start.
fn changed(store: &Store, key: &str) -> SystemTime {
    let custom = match key.split('/').collect::<Vec<_>>().as_slice() {
        ["apis", group, version] => stored_crds(store)
            .iter()
            .filter(|crd| {
                crd["spec"]["group"] == *group
                    && crd["spec"]["versions"].as_array().is_some_and(|vs| {
                        vs.iter()
                            .any(|v| v["name"] == *version && v["served"] == true)
                    })
            })
            .filter_map(modified::spec_written)
            .max(),
        _ => None,
    };
    custom
        .or_else(|| started(store))
        .unwrap_or_else(SystemTime::now)
}

/// The `/openapi/v3` index: a document built on every request (its `Last-Modified` is
/// now, and it has no entity tag), sent as `text/plain` as the real server sends it.
pub fn index(store: &Store) -> Reply {
    let body = crate::support::json_order::to_vec(&openapi::openapi_v3_paths(&stored_crds(store)));
    Reply::Raw {
        code: 200,
        content_type: "text/plain; charset=utf-8".into(),
        body: body.into(),
        etag: None,
        document: Some(Document::at(SystemTime::now())),
    }
}

/// The document of an index key (`api/v1`, `apis/<g>/<v>`, `apis/<g>`, ...) with its
/// `ETag` (its index hash, quoted) and `Last-Modified` (when it was installed: at start-up
/// for a built-in document, when its CRDs' schemas last changed for a custom one); an empty
/// 404 when not served.
/// With the index's `hash` parameter it may be cached for a year; with a stale one the
/// answer is a 301 to the current version's address.
pub fn document(api: &Arc<Api>, store: &Store, key: &str, hash: Option<&str>) -> Reply {
    let Some(doc) = openapi::openapi_v3_document(&stored_crds(store), key) else {
        // kube-apiserver's OpenAPI v3 handler answers an unknown group-version with an
        // empty 404, not a Status.
        return Reply::empty(404);
    };
    let current = openapi::document_hash(&doc);
    let etag = format!("\"{current}\"");
    let installed = modified::installed_at(api, &format!("v3/{key}"), &etag, changed(store, key));
    let document = Document::at(installed).with_header(header::VARY, "Accept");
    let (code, body, document) = match hash {
        None => (200, crate::support::json_order::to_vec(&doc), document),
        Some(h) if h == current => {
            let expires = chrono::Utc::now() + chrono::TimeDelta::days(365);
            let document = document
                .with_header(header::CACHE_CONTROL, "public, immutable")
                .with_header(
                    header::EXPIRES,
                    expires.format("%a, %d %b %Y %H:%M:%S UTC").to_string(),
                );
            (200, crate::support::json_order::to_vec(&doc), document)
        }
        Some(_) => {
            let location = format!("/openapi/v3/{key}?hash={current}");
            (
                301,
                Vec::new(),
                document.with_header(header::LOCATION, location),
            )
        }
    };
    Reply::Raw {
        code,
        content_type: "application/json".into(),
        body: body.into(),
        etag: Some(etag),
        document: Some(document),
    }
}

/// `/openapi/v2` in the representation `accept` asks for (JSON or gnostic's protobuf), with
/// its `ETag` and `Last-Modified` (when this server first built this version of the
/// document; both representations share them); an empty 406 when `accept` names neither,
/// as the real server answers. The real handler sits behind a gzip handler, so every answer
/// varies on `Accept-Encoding` (which the body writer reads as: compress as that handler
/// does).
pub fn v2(api: &Arc<Api>, store: &Store, accept: &str) -> Reply {
    let varies = |document: Document| {
        document
            .with_header(header::VARY, "Accept-Encoding")
            .with_header(header::VARY, "Accept")
    };
    let Some(format) = openapi::v2::negotiate(accept) else {
        return Reply::Raw {
            code: 406,
            content_type: String::new(),
            body: Vec::new().into(),
            etag: None,
            document: Some(varies(Document::at(SystemTime::now()))),
        };
    };
    let encoded = openapi::v2::encode(&openapi::v2::openapi_v2(&stored_crds(store)), format);
    let built = modified::built_at(api, "v2", &encoded.etag);
    Reply::Raw {
        code: 200,
        content_type: encoded.content_type.into(),
        body: encoded.body.into(),
        etag: Some(encoded.etag),
        document: Some(varies(Document::at(built))),
    }
}
