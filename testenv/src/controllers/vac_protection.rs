//! The VolumeAttributesClass protection controller of kube-controller-manager: every class
//! not being deleted carries the `kubernetes.io/vac-protection` finalizer (added on create
//! by the StorageObjectInUseProtection admission plugin, and again by the controller when a
//! write removed it); a class being deleted keeps it while a PersistentVolumeClaim (its spec,
//! its current class or the target of a modification in its status) or a PersistentVolume
//! names it, and loses it once none does.

use serde_json::{Value, json};

use crate::endpoints::hooks::Client;
use crate::storage::Store;
use crate::support::meta;

/// The finalizer that protects a class in use.
pub const FINALIZER: &str = "kubernetes.io/vac-protection";
const CLASSES: &str = "storage.k8s.io/volumeattributesclasses";
const CLAIMS: &str = "/persistentvolumeclaims";
const VOLUMES: &str = "/persistentvolumes";

/// Whether a change of `group`/`plural` can change what the controller does: the classes
/// themselves, and the claims and volumes that use them.
pub fn watches(group: &str, plural: &str) -> bool {
    matches!(
        (group, plural),
        ("storage.k8s.io", "volumeattributesclasses")
            | ("", "persistentvolumeclaims" | "persistentvolumes")
    )
}

/// The class names a claim or volume uses.
fn used_by(object: &Value) -> impl Iterator<Item = &str> {
    [
        &object["spec"]["volumeAttributesClassName"],
        &object["status"]["currentVolumeAttributesClassName"],
        &object["status"]["modifyVolumeStatus"]["targetVolumeAttributesClassName"],
    ]
    .into_iter()
    .filter_map(Value::as_str)
}

/// Whether some claim or volume uses the class `name`.
fn in_use(store: &Store, name: &str) -> bool {
    [CLAIMS, VOLUMES]
        .into_iter()
        .filter_map(|key| store.bucket(key))
        .flat_map(|bucket| bucket.values())
        .any(|object| used_by(object).any(|n| n == name))
}

/// What the controller does to a class: nothing, or store it with these finalizers.
fn change(class: &Value, in_use: impl FnOnce() -> bool) -> Option<Vec<String>> {
    let finalizers = meta::finalizers(class);
    let protected = finalizers.iter().any(|f| f == FINALIZER);
    if !meta::is_deleting(class) {
        return (!protected).then(|| {
            let mut more = finalizers.clone();
            more.push(FINALIZER.into());
            more
        });
    }
    (protected && !in_use()).then(|| finalizers.into_iter().filter(|f| f != FINALIZER).collect())
}

/// Protects the classes that lost the finalizer and releases those being deleted that
/// nothing uses.
pub fn sync(client: &mut dyn Client) {
    let store = client.store();
    let changes: Vec<(String, Value, Vec<String>)> = store
        .bucket(CLASSES)
        .into_iter()
        .flatten()
        .filter_map(|((_, name), class)| {
            change(class, || in_use(store, name)).map(|f| (name.clone(), (**class).clone(), f))
        })
        .collect();
    let Some(def) = client
        .registry()
        .get("storage.k8s.io", "v1", "volumeattributesclasses")
    else {
        return;
    };
    for (name, mut class, finalizers) in changes {
        if finalizers.is_empty() {
            if let Some(m) = class["metadata"].as_object_mut() {
                m.remove("finalizers");
            }
            if meta::is_deleting(&class) {
                client.remove(&def, "", &name, Some(class));
                continue;
            }
        } else {
            class["metadata"]["finalizers"] = json!(finalizers);
        }
        client.put(&def, "", &name, class);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_in_use_keep_the_finalizer_while_deleted() {
        let deleting = json!({"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z",
            "finalizers": ["a", FINALIZER]}});
        assert_eq!(change(&deleting, || true), None);
        assert_eq!(change(&deleting, || false), Some(vec!["a".to_string()]));
        assert_eq!(
            change(&json!({"metadata": {}}), || false),
            Some(vec![FINALIZER.to_string()])
        );
        assert_eq!(
            change(&json!({"metadata": {"finalizers": [FINALIZER]}}), || true),
            None
        );
    }

    #[test]
    fn claims_use_classes_through_spec_and_status() {
        let claim = json!({"spec": {"volumeAttributesClassName": "a"},
            "status": {"currentVolumeAttributesClassName": "b",
                "modifyVolumeStatus": {"targetVolumeAttributesClassName": "c"}}});
        assert_eq!(used_by(&claim).collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(used_by(&json!({"spec": {}})).count(), 0);
    }
}
