//! The PersistentVolumeClaimResize admission plugin: a claim may ask for more storage only
//! when it is bound and its StorageClass allows volume expansion (`allowVolumeExpansion:
//! true`); otherwise the update is refused with the real server's 403.

use serde_json::Value;

use super::plugins::forbidden;
use crate::storage::Store;
use crate::support::quantity::Quantity;
use crate::support::status::ApiError;

const STORAGE_CLASSES: &str = "storage.k8s.io/storageclasses";
/// The annotation that named a claim's class before `spec.storageClassName` existed.
const BETA_CLASS: &str = "volume.beta.kubernetes.io/storage-class";

fn requested(claim: &Value) -> i128 {
    Quantity::from_json(&claim["spec"]["resources"]["requests"]["storage"]).map_or(0, |q| q.nanos)
}

/// The class a claim names: the beta annotation first, as the real plugin reads it.
fn class_name(claim: &Value) -> &str {
    claim["metadata"]["annotations"][BETA_CLASS]
        .as_str()
        .or_else(|| claim["spec"]["storageClassName"].as_str())
        .unwrap_or_default()
}

/// Checks the update of claim `old` to `claim` (named `name`).
pub fn admit_update(store: &Store, name: &str, claim: &Value, old: &Value) -> Result<(), ApiError> {
    if requested(claim) <= requested(old) {
        return Ok(());
    }
    if old["status"]["phase"] != "Bound" {
        return Err(forbidden(
            "persistentvolumeclaims",
            name,
            "Only bound persistent volume claims can be expanded".into(),
        ));
    }
    let class = class_name(claim);
    let expandable = !class.is_empty()
        && store
            .get(STORAGE_CLASSES, "", class)
            .is_some_and(|c| c["allowVolumeExpansion"] == true);
    if expandable {
        return Ok(());
    }
    Err(forbidden(
        "persistentvolumeclaims",
        name,
        "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize".into(),
    ))
}
