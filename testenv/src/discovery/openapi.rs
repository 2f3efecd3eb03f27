//! `/openapi/v3`: the index and per group-version documents built by [`crate::openapi`] from
//! the stored CRDs (custom kinds) plus the built-in group-versions.
//!
//! kubectl reads the index before `kubectl apply` to learn whether the server validates
//! fields itself (`fieldValidation` on PATCH), and the documents for `kubectl explain`.

use serde_json::Value;

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
