//! `storage.k8s.io/v1` defaults: StorageClass and CSIDriver. The group's other kinds
//! (CSINode, VolumeAttachment, VolumeAttributesClass, CSIStorageCapacity) have no
//! defaulters on kube-apiserver v1.34.

use serde_json::{Value, json};

use super::fields::{ensure_object, set_default};

/// `SetDefaults_StorageClass`: volumes are deleted with their claim and bound at once.
pub fn storage_class(object: &mut Value) {
    if let Some(o) = object.as_object_mut() {
        set_default(o, "reclaimPolicy", json!("Delete"));
        set_default(o, "volumeBindingMode", json!("Immediate"));
    }
}

/// `SetDefaults_CSIDriver`: a driver needs attaching, gets no pod information on mount, no
/// storage capacity tracking, `fsGroup` changes for `ReadWriteOnce` volumes with an fsType,
/// no republishing and no SELinux mount option (the `SELinuxMountReadWriteOncePod` gate is
/// on by default); it serves persistent volumes when it names no lifecycle mode (an empty
/// list counts as none).
pub fn csi_driver(object: &mut Value) {
    let Some(spec) = object
        .as_object_mut()
        .and_then(|o| ensure_object(o, "spec"))
    else {
        return;
    };
    set_default(spec, "attachRequired", json!(true));
    set_default(spec, "podInfoOnMount", json!(false));
    set_default(spec, "storageCapacity", json!(false));
    set_default(spec, "fsGroupPolicy", json!("ReadWriteOnceWithFSType"));
    if spec
        .get("volumeLifecycleModes")
        .is_none_or(|m| m.is_null() || m.as_array().is_some_and(Vec::is_empty))
    {
        spec.insert("volumeLifecycleModes".into(), json!(["Persistent"]));
    }
    set_default(spec, "requiresRepublish", json!(false));
    set_default(spec, "seLinuxMount", json!(false));
}
