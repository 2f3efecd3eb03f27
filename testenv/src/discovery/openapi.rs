//! `/openapi/v3`: the CRD group-versions (documents built by [`crate::openapi`]) plus an
//! `apiextensions.k8s.io/v1` document describing the CustomResourceDefinition endpoints.
//!
//! kubectl reads the index before `kubectl apply` to learn whether the server validates
//! fields itself (`fieldValidation` on PATCH); for a group-version missing from the index it
//! looks at the CustomResourceDefinition endpoints instead. Built-in kinds are therefore
//! served by kubectl's compiled-in knowledge (strategic merge metadata), and
//! `kubectl explain` works for custom kinds only.

use serde_json::{Value, json};

use crate::openapi;
use crate::store::Store;

const CRD_KEY: &str = "apiextensions.k8s.io/customresourcedefinitions";

/// The CRDs currently stored (their documents describe the custom group-versions).
pub fn stored_crds(store: &Store) -> Vec<Value> {
    store
        .bucket(CRD_KEY)
        .map(|b| b.values().map(|c| (**c).clone()).collect())
        .unwrap_or_default()
}

/// The CustomResourceDefinition resource described in the shape of a CRD, so that the
/// same document builder produces its endpoints (schema left open: not explained).
fn crd_endpoints() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "customresourcedefinitions.apiextensions.k8s.io"},
        "spec": {
            "group": "apiextensions.k8s.io", "scope": "Cluster",
            "names": {"plural": "customresourcedefinitions", "singular": "customresourcedefinition",
                      "kind": "CustomResourceDefinition", "listKind": "CustomResourceDefinitionList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "subresources": {"status": {}},
                          "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}],
        },
    })
}

/// The `/openapi/v3` index.
pub fn index(store: &Store) -> Value {
    let mut index = openapi::openapi_v3_paths(&stored_crds(store));
    let builtin = openapi::openapi_v3_paths(&[crd_endpoints()]);
    if let (Some(paths), Some(extra)) =
        (index["paths"].as_object_mut(), builtin["paths"].as_object())
    {
        for (k, v) in extra {
            paths.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    index
}

/// The document of one group-version, if it is described.
pub fn group_version(store: &Store, group: &str, version: &str) -> Option<Value> {
    let crds = stored_crds(store);
    openapi::openapi_v3_group_version(&crds, group, version).or_else(|| {
        (group == "apiextensions.k8s.io" && version == "v1")
            .then(|| openapi::openapi_v3_group_version(&[crd_endpoints()], group, version))
            .flatten()
    })
}
