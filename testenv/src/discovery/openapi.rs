//! `/openapi/v3`: the index and per group-version documents built by [`crate::openapi`] from
//! the stored CRDs (custom kinds) plus the built-in group-versions.
//!
//! kubectl reads the index before `kubectl apply` to learn whether the server validates
//! fields itself (`fieldValidation` on PATCH), and the documents for `kubectl explain`.

use serde_json::Value;

use crate::support::request::Reply;

use crate::openapi;
use crate::storage::Store;

const CRD_KEY: &str = "apiextensions.k8s.io/customresourcedefinitions";

/// The CRDs currently stored (their documents describe the custom group-versions).
fn stored_crds(store: &Store) -> Vec<Value> {
    store
        .bucket(CRD_KEY)
        .map(|b| b.values().map(|c| (**c).clone()).collect())
        .unwrap_or_default()
}

/// The `/openapi/v3` index.
pub fn index(store: &Store) -> Value {
    openapi::openapi_v3_paths(&stored_crds(store))
}

/// The document of an index key (`api/v1`, `apis/<g>/<v>`, `apis/<g>`, ...), if served.
pub fn document(store: &Store, key: &str) -> Option<Value> {
    openapi::openapi_v3_document(&stored_crds(store), key)
}

/// `/openapi/v2` in the representation `accept` asks for (JSON or gnostic's protobuf), with
/// its `ETag`; an empty 406 when `accept` names neither, as the real server answers.
pub fn v2(store: &Store, accept: &str) -> Reply {
    let Some(format) = openapi::v2::negotiate(accept) else {
        return Reply::empty(406);
    };
    let encoded = openapi::v2::encode(&openapi::v2::openapi_v2(&stored_crds(store)), format);
    Reply::Raw {
        code: 200,
        content_type: encoded.content_type.into(),
        body: encoded.body.into(),
        etag: Some(encoded.etag),
    }
}
