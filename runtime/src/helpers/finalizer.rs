//! Finalizers: add one before creating external state, run the cleanup when the object is being
//! deleted, then remove the finalizer so deletion completes.
//!
//! For the whole flow in one call, [`finalizer`] (kube-runtime's helper) is re-exported; the
//! functions here are the individual steps, for reconcilers that want them separately.

pub use kube::runtime::finalizer::{Error as FinalizerError, Event, finalizer};

use kube::{
    Api, Resource, ResourceExt,
    api::{Patch, PatchParams},
};
use serde_json::json;
use std::future::Future;

use crate::cache::Kind;

/// Whether `obj` carries the finalizer `name`.
pub fn has_finalizer<K: Resource>(obj: &K, name: &str) -> bool {
    obj.finalizers().iter().any(|f| f == name)
}

/// Whether `obj` is being deleted (has a deletionTimestamp).
pub fn is_deleting<K: Resource>(obj: &K) -> bool {
    obj.meta().deletion_timestamp.is_some()
}

/// Adds finalizer `name` (no-op when present); returns the updated object. The patch carries
/// the object's resourceVersion, so it fails with a conflict if the object changed meanwhile.
pub async fn add<K: Kind>(api: &Api<K>, obj: &K, name: &str) -> Result<K, kube::Error> {
    if has_finalizer(obj, name) {
        return Ok(obj.clone());
    }
    let mut finalizers = obj.finalizers().to_vec();
    finalizers.push(name.to_string());
    patch_finalizers(api, obj, finalizers).await
}

/// Removes finalizer `name` (no-op when absent); returns the updated object.
pub async fn remove<K: Kind>(api: &Api<K>, obj: &K, name: &str) -> Result<K, kube::Error> {
    if !has_finalizer(obj, name) {
        return Ok(obj.clone());
    }
    let finalizers: Vec<String> = obj
        .finalizers()
        .iter()
        .filter(|f| *f != name)
        .cloned()
        .collect();
    patch_finalizers(api, obj, finalizers).await
}

/// What [`run`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The finalizer was missing and has been added; the object is not being deleted.
    Added,
    /// The object is live and carries the finalizer: reconcile it normally.
    Live,
    /// The object was being deleted: the cleanup ran and the finalizer was removed.
    CleanedUp,
    /// The object is being deleted but does not carry our finalizer: nothing to do.
    Gone,
}

/// The finalizer step of a reconcile: adds `name` to a live object, or, for an object being
/// deleted, runs `cleanup` and then removes `name`. A failing cleanup keeps the finalizer (the
/// reconcile is retried).
pub async fn run<K, F, Fut, E>(api: &Api<K>, obj: &K, name: &str, cleanup: F) -> Result<Outcome, E>
where
    K: Kind,
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<(), E>>,
    E: From<kube::Error>,
{
    match (is_deleting(obj), has_finalizer(obj, name)) {
        (false, true) => Ok(Outcome::Live),
        (false, false) => {
            add(api, obj, name).await?;
            Ok(Outcome::Added)
        }
        (true, false) => Ok(Outcome::Gone),
        (true, true) => {
            cleanup().await?;
            remove(api, obj, name).await?;
            Ok(Outcome::CleanedUp)
        }
    }
}

async fn patch_finalizers<K: Kind>(
    api: &Api<K>,
    obj: &K,
    finalizers: Vec<String>,
) -> Result<K, kube::Error> {
    let patch = json!({
        "metadata": {
            "resourceVersion": obj.resource_version(),
            "finalizers": finalizers,
        }
    });
    api.patch(
        &obj.name_any(),
        &PatchParams::default(),
        &Patch::Merge(&patch),
    )
    .await
}
