//! Table printers of persistent volumes and their claims.

use serde_json::{Value, json};

use super::columns::{AGE, Col, NAME, Printer, text, wide};
use super::format::{access_modes, age, name, or, quantity, string};

/// The printer of volumes and claims.
pub(super) fn printer(group: &str, plural: &str) -> Option<Printer> {
    match (group, plural) {
        ("", "persistentvolumes") => Some(Printer::new(PERSISTENT_VOLUME, persistent_volume)),
        ("", "persistentvolumeclaims") => Some(Printer::new(PERSISTENT_VOLUME_CLAIM, claim)),
        _ => None,
    }
}

const PERSISTENT_VOLUME: &[Col] = &[
    NAME,
    text("Capacity"),
    text("Access Modes"),
    text("Reclaim Policy"),
    text("Status"),
    text("Claim"),
    text("StorageClass"),
    text("VolumeAttributesClass"),
    text("Reason"),
    AGE,
    wide("VolumeMode"),
];

const PERSISTENT_VOLUME_CLAIM: &[Col] = &[
    NAME,
    text("Status"),
    text("Volume"),
    text("Capacity"),
    text("Access Modes"),
    text("StorageClass"),
    text("VolumeAttributesClass"),
    AGE,
    wide("VolumeMode"),
];

fn persistent_volume(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let claim = if spec["claimRef"].is_object() {
        format!(
            "{}/{}",
            string(&spec["claimRef"]["namespace"]),
            string(&spec["claimRef"]["name"])
        )
    } else {
        String::new()
    };
    let phase = if o["metadata"]["deletionTimestamp"].is_string() {
        "Terminating".to_string()
    } else {
        string(&o["status"]["phase"])
    };
    let class =
        match o["metadata"]["annotations"]["volume.beta.kubernetes.io/storage-class"].as_str() {
            Some(c) => c.to_string(),
            None => string(&spec["storageClassName"]),
        };
    vec![
        name(o),
        json!(quantity(&spec["capacity"]["storage"])),
        json!(access_modes(&spec["accessModes"])),
        json!(string(&spec["persistentVolumeReclaimPolicy"])),
        json!(phase),
        json!(claim),
        json!(class),
        json!(or(&spec["volumeAttributesClassName"], "<unset>")),
        json!(string(&o["status"]["reason"])),
        age(o),
        json!(or(&spec["volumeMode"], "<unset>")),
    ]
}

fn claim(o: &Value) -> Vec<Value> {
    let (spec, status) = (&o["spec"], &o["status"]);
    let phase = if o["metadata"]["deletionTimestamp"].is_string() {
        "Terminating".to_string()
    } else {
        string(&status["phase"])
    };
    let bound = spec["volumeName"].as_str().is_some_and(|v| !v.is_empty());
    let (capacity, modes) = if bound {
        (
            quantity(&status["capacity"]["storage"]),
            access_modes(&status["accessModes"]),
        )
    } else {
        (String::new(), String::new())
    };
    let class =
        match o["metadata"]["annotations"]["volume.beta.kubernetes.io/storage-class"].as_str() {
            Some(c) => c.to_string(),
            None => string(&spec["storageClassName"]),
        };
    vec![
        name(o),
        json!(phase),
        json!(string(&spec["volumeName"])),
        json!(capacity),
        json!(modes),
        json!(class),
        json!(or(&spec["volumeAttributesClassName"], "<unset>")),
        age(o),
        json!(or(&spec["volumeMode"], "<unset>")),
    ]
}
