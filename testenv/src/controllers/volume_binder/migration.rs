//! What the real controller keeps on every volume and claim it syncs, before anything else
//! (`updateVolumeMigrationAnnotationsAndFinalizers`, `updateClaimMigrationAnnotations`): the
//! `pv.kubernetes.io/migrated-to` annotation naming the CSI driver an in-tree provisioner is
//! migrated to (set, corrected, or dropped once the provisioner is not migrated), and on a
//! volume provisioned by an in-tree plugin that is not migrated, the
//! `kubernetes.io/pv-controller` finalizer while its policy is `Delete` (the controller
//! deletes the storage before the object: `HonorPVReclaimPolicy`, on in v1.34).

use std::sync::Arc;

use serde_json::{Value, json};

use super::plugins;
use super::writes::{PROVISIONER, put_claim, put_volume};
use crate::endpoints::hooks::Client;

/// The annotation naming the CSI driver a volume's in-tree provisioner is migrated to.
const MIGRATED_TO: &str = "pv.kubernetes.io/migrated-to";
/// The annotation naming the plugin that provisioned a volume.
const PROVISIONED_BY: &str = "pv.kubernetes.io/provisioned-by";
/// The finalizer holding an in-tree provisioned volume until its storage is deleted.
pub const IN_TREE_FINALIZER: &str = "kubernetes.io/pv-controller";

/// Sets or drops `migrated-to` for `provisioner`; whether the annotations changed.
fn migration_annotation(
    annotations: &mut serde_json::Map<String, Value>,
    provisioner: &str,
) -> bool {
    let current = annotations.get(MIGRATED_TO).and_then(Value::as_str);
    match plugins::migrated_driver(provisioner) {
        Some(driver) if current != Some(driver) => {
            annotations.insert(MIGRATED_TO.into(), json!(driver));
            true
        }
        Some(_) => false,
        None if current.is_some_and(|c| !c.is_empty()) => {
            annotations.remove(MIGRATED_TO);
            true
        }
        None => false,
    }
}

/// The finalizers of a volume provisioned by `provisioner` under `policy`.
fn finalizers(mut list: Vec<Value>, provisioner: &str, policy: &str) -> Vec<Value> {
    let has = list.iter().any(|f| f == IN_TREE_FINALIZER);
    let keep = plugins::migrated_driver(provisioner).is_none()
        && provisioner.starts_with("kubernetes.io/");
    if !keep {
        if plugins::migrated_driver(provisioner).is_some() {
            list.retain(|f| f != IN_TREE_FINALIZER);
        }
        return list;
    }
    match policy {
        "Delete" if !has => list.push(json!(IN_TREE_FINALIZER)),
        "Retain" | "Recycle" => list.retain(|f| f != IN_TREE_FINALIZER),
        _ => {}
    }
    list
}

/// A volume's annotation and finalizer, updated in one write when either changed.
pub fn volume(client: &mut dyn Client, volume: Arc<Value>) -> Arc<Value> {
    let Some(provisioner) = volume["metadata"]["annotations"][PROVISIONED_BY]
        .as_str()
        .map(String::from)
    else {
        return volume;
    };
    let mut next = (*volume).clone();
    let annotations = next["metadata"]["annotations"]
        .as_object_mut()
        .expect("annotated");
    migration_annotation(annotations, &provisioner);
    let old = volume["metadata"]["finalizers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let policy = volume["spec"]["persistentVolumeReclaimPolicy"]
        .as_str()
        .unwrap_or_default();
    let new = finalizers(old.clone(), &provisioner, policy);
    if new != old {
        next["metadata"]["finalizers"] = json!(new);
    }
    if next == *volume {
        return volume;
    }
    put_volume(client, &volume, next)
}

/// A claim's `migrated-to` annotation, from the provisioner it waits for.
pub fn claim(client: &mut dyn Client, claim: Arc<Value>) -> Arc<Value> {
    let annotations = &claim["metadata"]["annotations"];
    let Some(provisioner) = PROVISIONER
        .iter()
        .rev()
        .find_map(|key| annotations[*key].as_str())
        .map(String::from)
    else {
        return claim;
    };
    let mut next = (*claim).clone();
    let map = next["metadata"]["annotations"]
        .as_object_mut()
        .expect("annotated");
    if !migration_annotation(map, &provisioner) {
        return claim;
    }
    put_claim(client, &claim, next)
}

/// The volume without the in-tree finalizer, once its storage is deleted.
pub fn storage_deleted(client: &mut dyn Client, volume: &Arc<Value>) -> Arc<Value> {
    let Some(list) = volume["metadata"]["finalizers"].as_array() else {
        return volume.clone();
    };
    if !list.iter().any(|f| f == IN_TREE_FINALIZER) {
        return volume.clone();
    }
    let mut next = (**volume).clone();
    let kept: Vec<Value> = list
        .iter()
        .filter(|f| *f != IN_TREE_FINALIZER)
        .cloned()
        .collect();
    if kept.is_empty() {
        next["metadata"]
            .as_object_mut()
            .map(|m| m.remove("finalizers"));
    } else {
        next["metadata"]["finalizers"] = json!(kept);
    }
    put_volume(client, volume, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_in_tree_finalizer_follows_the_policy() {
        let none = Vec::new();
        let host = "kubernetes.io/host-path";
        assert_eq!(
            finalizers(none.clone(), host, "Delete"),
            [json!(IN_TREE_FINALIZER)]
        );
        assert!(finalizers(vec![json!(IN_TREE_FINALIZER)], host, "Retain").is_empty());
        assert!(finalizers(none.clone(), "kubernetes.io/aws-ebs", "Delete").is_empty());
        assert!(
            finalizers(
                vec![json!(IN_TREE_FINALIZER)],
                "kubernetes.io/aws-ebs",
                "Delete"
            )
            .is_empty()
        );
        assert_eq!(
            finalizers(vec![json!(IN_TREE_FINALIZER)], "example.com/csi", "Retain"),
            [json!(IN_TREE_FINALIZER)]
        );
    }

    #[test]
    fn the_migration_annotation_names_the_driver() {
        let mut a = serde_json::Map::new();
        assert!(migration_annotation(&mut a, "kubernetes.io/gce-pd"));
        assert_eq!(a[MIGRATED_TO], "pd.csi.storage.gke.io");
        assert!(!migration_annotation(&mut a, "kubernetes.io/gce-pd"));
        assert!(migration_annotation(&mut a, "kubernetes.io/host-path"));
        assert!(a.get(MIGRATED_TO).is_none());
    }
}
