//! The PV protection controller of kube-controller-manager: every PersistentVolume not being
//! deleted carries the `kubernetes.io/pv-protection` finalizer (added on create by the
//! StorageObjectInUseProtection admission plugin, and again by the controller when a write
//! removed it); a volume being deleted keeps it while its status says it is `Bound`, and loses
//! it once it is not (the phase the volume binder, [`super::volume_binder`], or a status
//! write gave it).

use serde_json::{Value, json};

use crate::endpoints::hooks::Client;
use crate::support::meta;

/// The finalizer that protects a bound volume.
pub const FINALIZER: &str = "kubernetes.io/pv-protection";
const VOLUMES: &str = "/persistentvolumes";

/// Whether `group`/`plural` is the PersistentVolume resource.
pub fn is_volume(group: &str, plural: &str) -> bool {
    group.is_empty() && plural == "persistentvolumes"
}

/// What the controller does to a volume: nothing, or store it with these finalizers.
fn change(volume: &Value) -> Option<Vec<String>> {
    let finalizers = meta::finalizers(volume);
    let protected = finalizers.iter().any(|f| f == FINALIZER);
    if !meta::is_deleting(volume) {
        return (!protected).then(|| {
            let mut more = finalizers.clone();
            more.push(FINALIZER.into());
            more
        });
    }
    (protected && volume["status"]["phase"] != "Bound")
        .then(|| finalizers.into_iter().filter(|f| f != FINALIZER).collect())
}

/// Protects the volumes that lost the finalizer and releases those being deleted that are not
/// bound.
pub fn sync(client: &mut dyn Client) {
    let changes: Vec<(String, Value, Vec<String>)> = client
        .store()
        .bucket(VOLUMES)
        .into_iter()
        .flatten()
        .filter_map(|((_, name), v)| change(v).map(|f| (name.clone(), (**v).clone(), f)))
        .collect();
    let Some(def) = client.registry().get("", "v1", "persistentvolumes") else {
        return;
    };
    for (name, mut volume, finalizers) in changes {
        if finalizers.is_empty() {
            if let Some(m) = volume["metadata"].as_object_mut() {
                m.remove("finalizers");
            }
            if meta::is_deleting(&volume) {
                client.remove(&def, "", &name, Some(volume));
                continue;
            }
        } else {
            volume["metadata"]["finalizers"] = json!(finalizers);
        }
        client.put(&def, "", &name, volume);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_volumes_keep_the_finalizer_while_deleted() {
        let deleting = |phase: &str, finalizers: Value| {
            json!({"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": finalizers},
                "status": {"phase": phase}})
        };
        assert_eq!(change(&deleting("Bound", json!([FINALIZER]))), None);
        assert_eq!(
            change(&deleting("Released", json!(["a", FINALIZER]))),
            Some(vec!["a".to_string()])
        );
        assert_eq!(change(&deleting("Available", json!(["a"]))), None);
        assert_eq!(
            change(&json!({"metadata": {}, "status": {"phase": "Pending"}})),
            Some(vec![FINALIZER.to_string()])
        );
        assert_eq!(
            change(&json!({"metadata": {"finalizers": [FINALIZER]}})),
            None
        );
    }
}
