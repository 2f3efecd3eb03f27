//! The warnings of a PersistentVolume and a PersistentVolumeClaim (on create and on every
//! update of the object, not of its status): the deprecated beta storage-class annotation,
//! then a volume's deprecated `Recycle` policy, deprecated node labels in its node affinity
//! and deprecated volume source, or a claim's storage sizes that are no whole bytes.

use serde_json::Value;

use super::{containers, node_labels};

/// The annotation that named a storage class before `storageClassName`.
const BETA_STORAGE_CLASS: &str = "volume.beta.kubernetes.io/storage-class";

/// Volume sources deprecated by v1.34: field, deprecated in, non-functional from.
const DEPRECATED_SOURCES: &[(&str, &str, &str)] = &[
    ("cephfs", "v1.28", "v1.31"),
    ("photonPersistentDisk", "v1.11", "v1.16"),
    ("scaleIO", "v1.16", "v1.22"),
    ("storageOS", "v1.22", "v1.25"),
    ("glusterfs", "v1.25", "v1.26"),
    ("rbd", "v1.28", "v1.31"),
];

/// The warning of an object annotated with the beta storage class.
fn beta_storage_class(object: &Value) -> Option<String> {
    object["metadata"]["annotations"]
        .get(BETA_STORAGE_CLASS)
        .map(|_| {
            format!(
                "metadata.annotations[{BETA_STORAGE_CLASS}]: deprecated since v1.8; use \"storageClassName\" attribute instead"
            )
        })
}

/// A PersistentVolume's warnings.
pub fn volume(object: &Value) -> Vec<String> {
    let spec = &object["spec"];
    let mut out: Vec<String> = beta_storage_class(object).into_iter().collect();
    if spec["persistentVolumeReclaimPolicy"] == "Recycle" {
        out.push(
            "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning."
                .to_string(),
        );
    }
    let terms = &spec["nodeAffinity"]["required"]["nodeSelectorTerms"];
    for (t, term) in terms.as_array().into_iter().flatten().enumerate() {
        let path = format!("spec.nodeAffinity.required.nodeSelectorTerms[{t}]");
        out.extend(node_labels::selector_term(&path, term));
    }
    for (field, deprecated, gone) in DEPRECATED_SOURCES {
        if spec.get(*field).is_some_and(|s| !s.is_null()) {
            out.push(format!(
                "spec.{field}: deprecated in {deprecated}, non-functional in {gone}+"
            ));
        }
    }
    out
}

/// A PersistentVolumeClaim's warnings.
pub fn claim(object: &Value) -> Vec<String> {
    let resources = &object["spec"]["resources"];
    let mut out: Vec<String> = beta_storage_class(object).into_iter().collect();
    for map in ["requests", "limits"] {
        out.extend(containers::fractional(
            "spec.resources",
            map,
            resources,
            "storage",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn beta_storage_class_comes_first() {
        let claim_object = json!({
            "metadata": {"annotations": {BETA_STORAGE_CLASS: "fast"}},
            "spec": {"resources": {"requests": {"storage": "1500m"}}},
        });
        assert_eq!(
            claim(&claim_object),
            [
                "metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use \"storageClassName\" attribute instead",
                "spec.resources.requests[storage]: fractional byte value \"1500m\" is invalid, must be an integer",
            ]
        );
        let plain = json!({"spec": {"hostPath": {"path": "/tmp"}}});
        assert!(volume(&plain).is_empty());
    }
}
