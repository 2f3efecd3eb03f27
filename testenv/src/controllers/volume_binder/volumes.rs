//! One volume's sync, as the real controller's `syncVolume`: its migration annotation and
//! in-tree finalizer first ([`migration`]); an unclaimed volume (or one
//! pre-bound to a claim not bound yet) is `Available`; a bound one is `Bound` while its
//! claim names it; once its claim is gone it is `Released` and reclaimed by its policy
//! (`Retain` keeps it, `Delete` deletes it or fails as kube-controller-manager's plugins do,
//! `Recycle` runs a recycler pod, or fails without a recycler plugin); a volume the controller bound to a claim that
//! went to another volume is freed.

use std::sync::Arc;

use serde_json::Value;

use super::bind::unbind_volume;
use super::matching::mode_mismatch;
use super::migration;
use super::plugins::{self, Deletion};
use super::recycler;
use super::writes::{self, annotated, claim, event, volume_phase, volume_phase_with_event};
use crate::endpoints::delete_options::DeleteOptions;
use crate::endpoints::hooks::Client;

/// Brings volume `name` to the state its claim reference says.
pub fn sync(client: &mut dyn Client, name: &str) {
    let Some(volume) = writes::volume(client, name) else {
        return;
    };
    let volume = migration::volume(client, volume);
    let reference = &volume["spec"]["claimRef"];
    if !reference.is_object() || reference["uid"].as_str().is_none_or(str::is_empty) {
        volume_phase(client, &volume, "Available", "");
        return;
    }
    let ns = reference["namespace"].as_str().unwrap_or_default();
    let claim = claim(client, ns, reference["name"].as_str().unwrap_or_default())
        .filter(|c| c["metadata"]["uid"] == reference["uid"]);
    let Some(claim) = claim else {
        release(client, &volume);
        return;
    };
    let named = claim["spec"]["volumeName"].as_str().unwrap_or_default();
    if named.is_empty() {
        if mode_mismatch(&volume, &claim) {
            let claim_name = writes::name(&claim);
            let message = format!(
                "Cannot bind PersistentVolume to requested PersistentVolumeClaim {claim_name:?} due to incompatible volumeMode."
            );
            event(
                client,
                &volume,
                "PersistentVolume",
                true,
                "VolumeMismatch",
                &message,
            );
            let message = format!(
                "Cannot bind PersistentVolume {name:?} to requested PersistentVolumeClaim due to incompatible volumeMode."
            );
            event(
                client,
                &claim,
                "PersistentVolumeClaim",
                true,
                "VolumeMismatch",
                &message,
            );
        }
        // The claim's sync finishes the binding.
    } else if named == name {
        volume_phase(client, &volume, "Bound", "");
    } else if annotated(&volume, "pv.kubernetes.io/provisioned-by")
        && volume["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
    {
        release(client, &volume);
    } else {
        unbind_volume(client, &volume);
    }
}

/// A volume whose claim is gone: `Released` (a `Failed` one stays so), then reclaimed.
fn release(client: &mut dyn Client, volume: &Arc<Value>) {
    let phase = volume["status"]["phase"].as_str().unwrap_or_default();
    let volume = if phase == "Released" || phase == "Failed" {
        volume.clone()
    } else {
        volume_phase(client, volume, "Released", "")
    };
    reclaim(client, &volume);
}

/// Applies the reclaim policy of a released volume.
fn reclaim(client: &mut dyn Client, volume: &Arc<Value>) {
    let failed = |client: &mut dyn Client, reason: &str, message: &str| {
        volume_phase_with_event(client, volume, "Failed", true, reason, message);
    };
    match volume["spec"]["persistentVolumeReclaimPolicy"]
        .as_str()
        .unwrap_or_default()
    {
        "Retain" => {}
        "Recycle" if plugins::recyclable(volume) => recycler::recycle(client, volume),
        "Recycle" => failed(
            client,
            "VolumeFailedRecycle",
            "No recycler plugin found for the volume!",
        ),
        "Delete" => {
            // A volume being deleted is reclaimed too (`HonorPVReclaimPolicy`).
            if volume["status"]["phase"] != "Released" {
                return;
            }
            match plugins::deletion(volume) {
                Deletion::External => {}
                Deletion::Failed(message) => failed(client, "VolumeFailedDelete", &message),
                Deletion::Deleted => {
                    let volume = migration::storage_deleted(client, volume);
                    if let Some(def) = client.registry().get("", "v1", "persistentvolumes") {
                        let name = writes::name(&volume).to_string();
                        let _ = client.delete(&def, "", &name, &DeleteOptions::default());
                    }
                }
            }
        }
        _ => failed(
            client,
            "VolumeUnknownReclaimPolicy",
            "Volume has unrecognized PersistentVolumeReclaimPolicy",
        ),
    }
}
