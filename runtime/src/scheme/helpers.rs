//! Generic typed client helpers behind the per-kind methods `#[kubeforge::api]` generates.

use std::fmt::Debug;

use kube::api::{Api, Patch, PatchParams};
use kube::core::object::HasStatus;
use kube::{Resource, ResourceExt};
use serde::{Serialize, de::DeserializeOwned};

/// Writes `obj`'s status through the status subresource as a JSON merge patch of
/// `{"status": ...}` (what `r.Status().Update` achieves in controller-runtime, without a
/// resourceVersion conflict on unrelated changes), returning the stored object.
pub async fn patch_status<K>(api: &Api<K>, obj: &K) -> Result<K, kube::Error>
where
    K: Resource + HasStatus + Clone + DeserializeOwned + Debug,
    K::Status: Serialize,
    K::DynamicType: Default,
{
    let patch = serde_json::json!({ "status": obj.status() });
    api.patch_status(
        &obj.name_any(),
        &PatchParams::default(),
        &Patch::Merge(&patch),
    )
    .await
}
