//! `metadata.ownerReferences`, checked for every kind (`ValidateOwnerReferences`), the
//! metadata errors a validation of the object meta reports, and how many times (and where
//! among a kind's other errors) a create or an update of each built-in kind reports them:
//! one table of the checks each kind's update validation makes, measured on kube-apiserver
//! v1.34.

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

/// The errors of an object's owner references, each in turn: apiVersion with a version,
/// kind, name and uid present, not a core Event; and each controller after the first.
pub fn owner_references(object: &Value) -> Errors {
    let Some(refs) = object["metadata"]["ownerReferences"].as_array() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut first_controller: Option<String> = None;
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
        // Events may not own anything (apimachinery's banned owners).
        if api_version == "v1" && text("kind") == "Event" {
            out.push(invalid_text(
                FIELD,
                &as_go(r),
                "/v1, Kind=Event is disallowed from being an owner",
            ));
        }
        if r["controller"].as_bool() == Some(true) {
            let this = format!("{}/{}", text("kind"), text("name"));
            match &first_controller {
                None => first_controller = Some(this),
                Some(first) => {
                    let list: Vec<String> = refs.iter().map(as_go).collect();
                    out.push(invalid_text(
                        FIELD,
                        &format!("[{}]", list.join(",")),
                        &format!(
                            "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {this}"
                        ),
                    ));
                }
            }
        }
    }
    out
}

/// One validation of the object meta by a kind's strategy, after the generic registry's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// As a new object's (`ValidateObjectMeta`): labels, annotations, owner references, the
    /// finalizer names and their conflict.
    Object,
    /// As an update's (`ValidateObjectMetaUpdate`): labels, annotations, owner references.
    Update,
}

use Check::{Object, Update};

/// Whether `kind` of `group` validates its object meta with the core API's rules, which add
/// to apimachinery's that a finalizer without a domain is a standard one; the others are
/// validated by apimachinery's alone.
fn core_rules(group: &str, kind: &str) -> bool {
    !matches!(
        (group, kind),
        ("", "Event")
            | ("policy", "PodDisruptionBudget")
            | ("coordination.k8s.io", "Lease")
            | ("node.k8s.io", "RuntimeClass")
            | ("admissionregistration.k8s.io" | "apiregistration.k8s.io", _)
    )
}

/// The validations of the object meta an update of a built-in `kind` of `group` makes in its
/// strategy, in order, after the generic registry's two (`ValidateObjectMetaAccessor`, then
/// `ValidateObjectMetaAccessorUpdate`), as kube-apiserver v1.34 makes them (measured on each
/// kind): the new object is validated as a new one, as an update, or both, some of them more
/// than once; a few kinds check nothing more.
fn update_checks(group: &str, kind: &str) -> &'static [Check] {
    match (group, kind) {
        ("", "Event") | ("policy", "PodDisruptionBudget") => &[],
        ("", "Service" | "PodTemplate" | "ResourceQuota")
        | ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet")
        | ("batch", "CronJob")
        | ("autoscaling", "HorizontalPodAutoscaler")
        | ("networking.k8s.io", "ServiceCIDR")
        | ("scheduling.k8s.io", "PriorityClass")
        | ("storage.k8s.io", "CSIDriver")
        | ("events.k8s.io", "Event")
        | ("resource.k8s.io", "ResourceSlice")
        | ("coordination.k8s.io", "Lease") => &[Update],
        ("", "ConfigMap" | "Secret" | "ServiceAccount" | "Endpoints" | "Pod")
        | ("apps", "ControllerRevision")
        | ("networking.k8s.io", "Ingress" | "IngressClass")
        | ("apiregistration.k8s.io", "APIService") => &[Update, Object],
        ("", "LimitRange")
        | ("discovery.k8s.io", "EndpointSlice")
        | ("flowcontrol.apiserver.k8s.io" | "admissionregistration.k8s.io", _) => &[Object],
        ("", "PersistentVolume") | ("storage.k8s.io", "CSINode" | "VolumeAttachment") => {
            &[Object, Object]
        }
        ("", "PersistentVolumeClaim") | ("storage.k8s.io", "VolumeAttributesClass") => {
            &[Object, Update, Object]
        }
        ("rbac.authorization.k8s.io", _) => &[Object, Object, Update],
        // ReplicationControllers, Namespaces, Nodes, Jobs, NetworkPolicies, IPAddresses,
        // StorageClasses, storage capacities, CSRs, the resource.k8s.io kinds but slices.
        _ => &[Object, Update],
    }
}

/// The errors of one validation of the object meta of `kind` of `group`: as a new
/// object's, its `generateName` under the kind's name rule first.
fn check(check: Check, (group, kind): (&str, &str), core: bool, object: &Value) -> Errors {
    use crate::support::meta;
    let mut out = Vec::new();
    if check == Object {
        out.extend(meta::generate_name_errors(group, kind, object));
    }
    out.extend(object_meta(object));
    if check == Object {
        out.extend(meta::finalizer_name_errors(object));
        out.extend(meta::finalizer_conflict(object));
    }
    if core {
        out.extend(meta::kube_finalizer_name_errors(object));
    }
    out
}

/// The errors of the generic registry's check of an object's metadata
/// (`ValidateObjectMetaAccessor`) after its labels and annotations: the owner references,
/// the finalizer names, then `orphan` with `foregroundDeletion`. A create reports them once
/// (the kind's own validation of the object meta), as does the generic check on updates.
pub fn accessor_after_labels(object: &Value) -> Errors {
    let mut out = owner_references(object);
    out.extend(crate::support::meta::finalizer_name_errors(object));
    out.extend(crate::support::meta::finalizer_conflict(object));
    out
}

/// What a create of a built-in `kind` of `group` reports of its metadata after
/// [`accessor_after_labels`]'s: the core API's finalizer rule, for the kinds it applies to.
pub fn create_rest(group: &str, kind: &str, object: &Value) -> Errors {
    if core_rules(group, kind) {
        crate::support::meta::kube_finalizer_name_errors(object)
    } else {
        Vec::new()
    }
}

/// The metadata errors an update of a built-in kind reports after the generic registry's
/// first check, split by where they come among the kind's other errors.
#[derive(Debug, Default)]
pub struct UpdateMeta {
    /// The generic registry's check as an update, then the strategy's checks before it
    /// validates the new object as a new one (before the kind's checks of what changed).
    pub before: Errors,
    /// The strategy's first validation of the new object as a new one (just before the
    /// object's own errors).
    pub with_object: Errors,
    /// The strategy's later checks, after the object's own errors.
    pub after: Errors,
    /// Where in `after` the strategy's second validation of the new object as a new one
    /// ends (0 when there is none): a kind that validates the whole object again reports its
    /// own errors a second time there.
    pub again_end: usize,
}

/// The metadata errors of an update of a built-in `kind` of `group` besides the first
/// check's (which [`accessor_after_labels`]' callers report), as many times as
/// kube-apiserver reports them (see [`update_checks`]).
pub fn update_rest(group: &str, kind: &str, object: &Value) -> UpdateMeta {
    let core = core_rules(group, kind);
    let checks = update_checks(group, kind);
    let first_object = checks.iter().position(|c| *c == Object);
    let mut out = UpdateMeta {
        before: check(Update, (group, kind), false, object),
        ..UpdateMeta::default()
    };
    let mut again_seen = false;
    for (i, c) in checks.iter().enumerate() {
        let errors = check(*c, (group, kind), core, object);
        match first_object {
            Some(first) if i == first => out.with_object = errors,
            Some(first) if i > first => {
                out.after.extend(errors);
                if *c == Object && !again_seen {
                    again_seen = true;
                    out.again_end = out.after.len();
                }
            }
            _ => out.before.extend(errors),
        }
    }
    out
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

    /// The families of a cause, one letter each: Labels, Annotations, Owner references,
    /// Finalizer names, the Conflict, the core rule on Names.
    fn letters(errors: &Errors) -> String {
        errors
            .iter()
            .map(|e| match e.field.as_str() {
                "metadata.labels" => 'L',
                "metadata.annotations" => 'A',
                "metadata.finalizers" if e.message.contains("both") => 'C',
                "metadata.finalizers" => 'F',
                f if f.starts_with("metadata.ownerReferences") => 'O',
                f if f.starts_with("metadata.finalizers[") => 'N',
                _ => '?',
            })
            .collect()
    }

    #[test]
    fn update_repeats_the_metadata_errors_as_each_kind_checks_them() {
        let o = json!({"metadata": {
            "labels": {"bad key!": "v"},
            "annotations": {"a!": "v"},
            "ownerReferences": [{"apiVersion": "v1", "kind": "K", "name": "n"}],
            "finalizers": ["bad!", "orphan", "foregroundDeletion"],
        }});
        let update = |group: &str, kind: &str| {
            let m = update_rest(group, kind, &o);
            format!(
                "{}|{}|{}",
                letters(&m.before),
                letters(&m.with_object),
                letters(&m.after)
            )
        };
        assert_eq!(update("", "ConfigMap"), "LAOLAON|LAOFCN|");
        assert_eq!(update("apps", "Deployment"), "LAOLAON||");
        assert_eq!(update("batch", "Job"), "LAO|LAOFCN|LAON");
        assert_eq!(update("policy", "PodDisruptionBudget"), "LAO||");
        assert_eq!(update("coordination.k8s.io", "Lease"), "LAOLAO||");
        assert_eq!(
            update("rbac.authorization.k8s.io", "Role"),
            "LAO|LAOFCN|LAOFCNLAON"
        );
        let mut created = letters(&crate::support::meta::validate_labels_and_annotations(&o));
        created.push_str(&letters(&accessor_after_labels(&o)));
        created.push_str(&letters(&create_rest("", "ConfigMap", &o)));
        assert_eq!(created, "LAOFCN");
        assert!(create_rest("", "Event", &o).is_empty());
    }

    #[test]
    fn an_event_may_not_own_and_each_extra_controller_is_reported() {
        let o = json!({"metadata": {"ownerReferences": [
            {"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "u"},
            {"apiVersion": "v1", "kind": "K", "name": "a", "uid": "u", "controller": true},
            {"apiVersion": "v1", "kind": "K", "name": "b", "uid": "u", "controller": true},
            {"apiVersion": "v1", "kind": "K", "name": "c", "uid": "u", "controller": true},
        ]}});
        let errs = owner_references(&o);
        assert_eq!(errs.len(), 3);
        assert!(
            errs[0]
                .message
                .ends_with("Kind=Event is disallowed from being an owner")
        );
        assert!(errs[1].message.ends_with("references for K/a and K/b"));
        assert!(errs[2].message.ends_with("references for K/a and K/c"));
    }
}
