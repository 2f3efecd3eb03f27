//! Writing desired state: create-or-update (read, mutate, write if changed) and server-side
//! apply with a field manager.

use kube::{
    Api, ResourceExt,
    api::{Patch, PatchParams, PostParams},
};

use crate::cache::Kind;

/// What [`create_or_update`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperationResult {
    /// The object did not exist and was created.
    Created,
    /// The object existed and `mutate` changed it; it was updated.
    Updated,
    /// The object existed and `mutate` changed nothing; no write was made.
    Unchanged,
}

/// controller-runtime's `CreateOrUpdate`: reads the object named like `desired` (live, not
/// cached), applies `mutate` to it (or to `desired` when it does not exist), and creates or
/// replaces it only if something changed. The replace carries the read resourceVersion, so a
/// concurrent change yields a conflict error (retry the reconcile).
pub async fn create_or_update<K: Kind>(
    api: &Api<K>,
    desired: K,
    mutate: impl FnOnce(&mut K),
) -> Result<(OperationResult, K), kube::Error> {
    let name = desired.name_any();
    match api.get_opt(&name).await? {
        None => {
            let mut obj = desired;
            mutate(&mut obj);
            let created = api.create(&PostParams::default(), &obj).await?;
            Ok((OperationResult::Created, created))
        }
        Some(existing) => {
            let before = serde_json::to_value(&existing).map_err(kube::Error::SerdeError)?;
            let mut obj = existing;
            mutate(&mut obj);
            let after = serde_json::to_value(&obj).map_err(kube::Error::SerdeError)?;
            if before == after {
                return Ok((OperationResult::Unchanged, obj));
            }
            let updated = api.replace(&name, &PostParams::default(), &obj).await?;
            Ok((OperationResult::Updated, updated))
        }
    }
}

/// Server-side apply of `obj` as `field_manager`, forcing ownership of conflicting fields
/// (the usual choice for controllers, which own what they apply).
pub async fn apply<K: Kind>(api: &Api<K>, obj: &K, field_manager: &str) -> Result<K, kube::Error> {
    let params = PatchParams::apply(field_manager).force();
    let mut obj = obj.clone();
    // Apply rejects managedFields and resourceVersion is a precondition we do not want here.
    obj.meta_mut().managed_fields = None;
    obj.meta_mut().resource_version = None;
    api.patch(&obj.name_any(), &params, &Patch::Apply(&obj))
        .await
}

/// Server-side apply of the status subresource.
pub async fn apply_status<K: Kind>(
    api: &Api<K>,
    name: &str,
    status_patch: &serde_json::Value,
    field_manager: &str,
) -> Result<K, kube::Error> {
    let params = PatchParams::apply(field_manager).force();
    api.patch_status(name, &params, &Patch::Apply(status_patch))
        .await
}
