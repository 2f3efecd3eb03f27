//! The warnings a valid write of a built-in kind gets (the registry strategies'
//! `WarningsOnCreate` and `WarningsOnUpdate`): for a PersistentVolume, a deprecated volume
//! source, the deprecated `Recycle` reclaim policy and deprecated node labels in its node
//! affinity; for a Service, an `externalName` its type ignores.

use serde_json::Value;

/// Volume sources deprecated by v1.34: field, deprecated in, non-functional from.
const DEPRECATED_SOURCES: &[(&str, &str, &str)] = &[
    ("cephfs", "v1.28", "v1.31"),
    ("glusterfs", "v1.25", "v1.26"),
    ("photonPersistentDisk", "v1.11", "v1.16"),
    ("rbd", "v1.28", "v1.31"),
    ("scaleIO", "v1.16", "v1.22"),
    ("storageOS", "v1.22", "v1.25"),
];

/// Node labels deprecated by v1.34: label, since, replacement.
const DEPRECATED_NODE_LABELS: &[(&str, &str, &str)] = &[
    ("beta.kubernetes.io/arch", "v1.14", "kubernetes.io/arch"),
    (
        "beta.kubernetes.io/instance-type",
        "v1.17",
        "node.kubernetes.io/instance-type",
    ),
    ("beta.kubernetes.io/os", "v1.14", "kubernetes.io/os"),
    (
        "failure-domain.beta.kubernetes.io/region",
        "v1.17",
        "topology.kubernetes.io/region",
    ),
    (
        "failure-domain.beta.kubernetes.io/zone",
        "v1.17",
        "topology.kubernetes.io/zone",
    ),
];

/// The warnings of a valid `kind` of `group` as written.
pub fn warnings(group: &str, kind: &str, object: &Value) -> Vec<String> {
    match (group, kind) {
        ("", "PersistentVolume") => volume(&object["spec"]),
        ("", "Service") => service(&object["spec"]),
        _ => Vec::new(),
    }
}

/// A Service that is not of type ExternalName keeps an `externalName` it does not use.
fn service(spec: &Value) -> Vec<String> {
    let name = spec["externalName"].as_str().unwrap_or_default();
    if spec["type"] != "ExternalName" && !name.is_empty() {
        return vec!["spec.externalName is ignored when spec.type is not \"ExternalName\"".into()];
    }
    Vec::new()
}

fn volume(spec: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if spec["persistentVolumeReclaimPolicy"] == "Recycle" {
        out.push(
            "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning."
                .to_string(),
        );
    }
    for (field, deprecated, gone) in DEPRECATED_SOURCES {
        if spec.get(*field).is_some_and(|s| !s.is_null()) {
            out.push(format!(
                "spec.{field}: deprecated in {deprecated}, non-functional in {gone}+"
            ));
        }
    }
    let terms = &spec["nodeAffinity"]["required"]["nodeSelectorTerms"];
    for (t, term) in terms.as_array().into_iter().flatten().enumerate() {
        for (e, requirement) in term["matchExpressions"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let key = requirement["key"].as_str().unwrap_or_default();
            if let Some((_, since, instead)) = DEPRECATED_NODE_LABELS
                .iter()
                .find(|(label, ..)| *label == key)
            {
                out.push(format!(
                    "spec.nodeAffinity.required.nodeSelectorTerms[{t}].matchExpressions[{e}].key: {key} is deprecated since {since}; use \"{instead}\" instead"
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn external_name_ignored_by_other_types() {
        let ignored = json!({"spec": {"type": "ClusterIP", "externalName": "a.example.com"}});
        assert_eq!(
            warnings("", "Service", &ignored),
            ["spec.externalName is ignored when spec.type is not \"ExternalName\""]
        );
        let used = json!({"spec": {"type": "ExternalName", "externalName": "a.example.com"}});
        assert!(warnings("", "Service", &used).is_empty());
        let empty = json!({"spec": {"type": "NodePort", "externalName": ""}});
        assert!(warnings("", "Service", &empty).is_empty());
    }
}
