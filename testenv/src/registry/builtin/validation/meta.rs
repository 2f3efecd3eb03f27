//! `metadata.ownerReferences`, checked for every kind (`ValidateOwnerReferences`), and
//! the metadata errors a validation of the object meta reports.

use serde_json::{Value, json};

use super::errors::{Errors, invalid, invalid_text};

const FIELD: &str = "metadata.ownerReferences";

/// An owner reference as Go marshals it (its struct order, unset optional fields left out).
fn as_go(r: &Value) -> String {
    let mut parts: Vec<String> = ["apiVersion", "kind", "name", "uid"]
        .iter()
        .map(|f| format!("{f:?}:{}", json!(r[*f].as_str().unwrap_or_default())))
        .collect();
    for f in ["controller", "blockOwnerDeletion"] {
        if let Some(b) = r.get(f).and_then(Value::as_bool) {
            parts.push(format!("{f:?}:{b}"));
        }
    }
    format!("{{{}}}", parts.join(","))
}

/// The errors of the new object's metadata (labels, annotations, owner references) as each
/// of kube-apiserver's validations of the object meta reports them; the kinds whose update
/// validation checks the object meta again list them once per check.
pub fn object_meta(object: &Value) -> Errors {
    let mut out = crate::support::meta::validate_labels_and_annotations(object);
    out.extend(owner_references(object));
    out
}

/// The errors of an object's owner references: apiVersion with a version, kind, name and
/// uid present, and at most one controller.
pub fn owner_references(object: &Value) -> Errors {
    let Some(refs) = object["metadata"]["ownerReferences"].as_array() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut controllers = Vec::new();
    for r in refs {
        let text = |f: &str| r[f].as_str().unwrap_or_default().to_string();
        let api_version = text("apiVersion");
        // The version is the part after the last `/` (all of it for the core group).
        let version = api_version.rsplit('/').next().unwrap_or_default();
        if version.is_empty() || api_version.matches('/').count() > 1 {
            out.push(invalid(
                &format!("{FIELD}.apiVersion"),
                &json!(api_version),
                "version must not be empty",
            ));
        }
        for f in ["kind", "name", "uid"] {
            if text(f).is_empty() {
                out.push(invalid(
                    &format!("{FIELD}.{f}"),
                    &json!(""),
                    "must not be empty",
                ));
            }
        }
        if r["controller"].as_bool() == Some(true) {
            controllers.push(format!("{}/{}", text("kind"), text("name")));
        }
    }
    if controllers.len() > 1 {
        let list: Vec<String> = refs.iter().map(as_go).collect();
        out.push(invalid_text(
            FIELD,
            &format!("[{}]", list.join(",")),
            &format!(
                "Only one reference can have Controller set to true. Found \"true\" in references for {} and {}",
                controllers[0], controllers[1]
            ),
        ));
    }
    out
}

/// How many times an update of a built-in `kind` of `group` checks the object meta with its
/// finalizers: once in the generic registry (`ValidateObjectMetaAccessor`), then once for
/// each time the kind's update validation validates the new object as it would a new one
/// (`ValidateObjectMeta`): not at all for the kinds that check only the update's metadata,
/// twice for those that validate the object both before and as part of the update.
fn finalizer_checks_on_update(group: &str, kind: &str) -> usize {
    match (group, kind) {
        ("", "Event" | "PodTemplate" | "ResourceQuota" | "Service")
        | ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet")
        | ("batch", "CronJob")
        | ("autoscaling", "HorizontalPodAutoscaler")
        | ("policy", "PodDisruptionBudget")
        | ("scheduling.k8s.io", "PriorityClass")
        | ("storage.k8s.io", "CSIDriver")
        | ("events.k8s.io", "Event")
        | ("resource.k8s.io", "ResourceSlice")
        | ("networking.k8s.io", "ServiceCIDR")
        | ("coordination.k8s.io", "Lease") => 1,
        ("", "PersistentVolume" | "PersistentVolumeClaim")
        | ("rbac.authorization.k8s.io", _)
        | ("storage.k8s.io", "CSINode" | "VolumeAttachment" | "VolumeAttributesClass") => 3,
        _ => 2,
    }
}

/// The finalizer conflict's causes a built-in kind's update reports beyond the first (which
/// [`object_meta`]'s callers report with the rest of the metadata): one per further check of
/// the object meta (see [`finalizer_checks_on_update`]); none on create.
pub fn repeated_finalizer_conflicts(
    group: &str,
    kind: &str,
    object: &Value,
    update: bool,
) -> Errors {
    let Some(cause) = crate::support::meta::finalizer_conflict(object) else {
        return Vec::new();
    };
    if !update {
        return Vec::new();
    }
    vec![cause; finalizer_checks_on_update(group, kind) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_uid_and_two_controllers() {
        let o = json!({"metadata": {"ownerReferences": [
            {"apiVersion": "v1", "kind": "K", "name": "a", "controller": true},
            {"apiVersion": "v1", "kind": "K", "name": "b", "uid": "u", "controller": true},
        ]}});
        let errs = owner_references(&o);
        assert_eq!(errs.len(), 2);
        assert_eq!(errs[0].field, "metadata.ownerReferences.uid");
        assert!(errs[1].message.ends_with("references for K/a and K/b"));
    }

    #[test]
    fn the_finalizer_conflict_repeats_as_often_as_the_kind_checks_the_object_meta() {
        let o = json!({"metadata": {"finalizers": ["orphan", "foregroundDeletion"]}});
        let count = |group: &str, kind: &str, update: bool| {
            repeated_finalizer_conflicts(group, kind, &o, update).len()
        };
        assert_eq!(count("", "ConfigMap", false), 0);
        assert_eq!(count("", "ConfigMap", true), 1);
        assert_eq!(count("apps", "Deployment", true), 0);
        assert_eq!(count("rbac.authorization.k8s.io", "Role", true), 2);
        let fine = json!({"metadata": {"finalizers": ["orphan"]}});
        assert!(repeated_finalizer_conflicts("", "ConfigMap", &fine, true).is_empty());
    }
}
