//! Kind-specific rules of the built-in registries that are not defaulting: what a create
//! records of the requester, what an update may not change, and the checks that are not
//! schema validation.

use serde_json::{Value, json};

use crate::registry::builtin::validation;
use crate::support::status::Cause;
use crate::support::user::User;

/// Whether `group`/`plural` is the CertificateSigningRequest resource.
pub fn is_csr(group: &str, plural: &str) -> bool {
    group == "certificates.k8s.io" && plural == "certificatesigningrequests"
}

/// The fields a write through `subresource` (empty for the object itself) of a
/// `group`/`plural` object never owns in its managedFields, when the kind's strategy names
/// them itself (its `GetResetFields`): a CertificateSigningRequest's spec is the requester's
/// alone, its conditions change only through `/approval` and its certificate only through
/// `/status`. `None`: the usual split between the object and its `/status`.
pub fn reset_fields(
    group: &str,
    plural: &str,
    subresource: &str,
) -> Option<&'static [&'static [&'static str]]> {
    if main_writes_status(group, plural) && subresource.is_empty() {
        return Some(&[]);
    }
    if !is_csr(group, plural) {
        return None;
    }
    match subresource {
        "" => Some(&[&["spec"], &["status"]]),
        "status" => Some(&[&["spec"], &["status", "conditions"]]),
        "approval" => Some(&[&["spec"], &["status", "certificate"]]),
        _ => None,
    }
}

/// Whether a create or update of the `group`/`plural` object itself writes its status too,
/// although the kind has a `/status`: the ServiceCIDR strategy keeps the status it is sent
/// (and names no reset fields, so the writer owns it).
pub fn main_writes_status(group: &str, plural: &str) -> bool {
    (group, plural) == ("networking.k8s.io", "servicecidrs")
}

/// Whether a PUT of an absent `group`/`plural` object creates it (the registry strategy's
/// `AllowCreateOnUpdate`), as kube-apiserver v1.34 does for these kinds only. Their status
/// stores inherit it: of them only Services have a `/status`, and a PUT there creates too.
pub fn creates_on_update(group: &str, plural: &str) -> bool {
    matches!(
        (group, plural),
        ("", "endpoints" | "events" | "limitranges" | "services")
            | ("events.k8s.io", "events")
            | ("coordination.k8s.io", "leases")
            | ("node.k8s.io", "runtimeclasses")
            | (
                "rbac.authorization.k8s.io",
                "roles" | "rolebindings" | "clusterroles" | "clusterrolebindings"
            )
    )
}

/// A CertificateSigningRequest records who asked (`spec.username`, `uid`, `groups`,
/// `extra`), whatever the request said, and starts without a status.
pub fn csr_on_create(object: &mut Value, user: &User) {
    object["spec"]["username"] = json!(user.username);
    let spec = object["spec"]
        .as_object_mut()
        .expect("spec was just written");
    for (key, value) in [
        ("uid", (!user.uid.is_empty()).then(|| json!(user.uid))),
        (
            "groups",
            (!user.groups.is_empty()).then(|| json!(user.groups)),
        ),
        ("extra", (!user.extra.is_empty()).then(|| json!(user.extra))),
    ] {
        match value {
            Some(v) => {
                spec.insert(key.into(), v);
            }
            None => {
                spec.remove(key);
            }
        }
    }
    if let Some(o) = object.as_object_mut() {
        o.insert("status".into(), json!({}));
    }
}

/// Whether a kind's create rules ([`create_causes`]) are checked after its validation
/// passed, on their own (Events, validated in the group they are checked as), rather than
/// with it.
pub fn checks_on_its_own(group: &str, plural: &str) -> bool {
    plural == "events" && matches!(group, "" | "events.k8s.io")
}

/// The checks of a create of `group`/`plural` beyond the schema and the kind's validation
/// (a PriorityClass's are part of its validation).
pub fn create_causes(group: &str, plural: &str, object: &Value) -> Vec<Cause> {
    super::checks::create_causes(group, plural, object)
}

/// The checks of an update of `group`/`plural` (`old` is stored) beyond the schema: the
/// fields that may not change, with the real server's reason for each.
pub fn update_causes(group: &str, plural: &str, old: &Value, new: &Value) -> Vec<Cause> {
    match (group, plural) {
        // `ValidatePodUpdate` past the new pod's own validation: what an update may change.
        ("", "pods") => validation::pod_update(new, old),
        _ => super::checks::update_causes(group, plural, old, new),
    }
}

/// A PersistentVolume's status write: a phase change the writer did not date gets
/// `lastPhaseTransitionTime` `now`; an unchanged phase keeps the stored time unless the
/// writer set one.
pub fn volume_phase_transition(old: &Value, new: &mut Value, now: &str) {
    let key = PHASE_TIME;
    let stored = &old["status"][key];
    let written = &new["status"][key];
    let changed = old["status"]["phase"] != new["status"]["phase"];
    let value = match (changed, written.is_null()) {
        (false, true) => stored.clone(),
        (true, _) if written.is_null() || written == stored => Value::String(now.to_string()),
        _ => return,
    };
    if value.is_null() || !new["status"].is_object() {
        return;
    }
    new["status"][key] = value;
}

/// A PersistentVolume's phase transition time as `object` has it. The field manager records
/// a status write with the time it sent, as the status strategy dates a new phase
/// ([`volume_phase_transition`]) after kube-apiserver's field manager ran.
pub fn volume_phase_time(object: &Value) -> Option<Value> {
    object["status"].get(PHASE_TIME).cloned()
}

/// `object` with the phase transition time `time` (none when `None`).
pub fn with_volume_phase_time(object: &mut Value, time: Option<Value>) {
    let Some(status) = object.get_mut("status").and_then(Value::as_object_mut) else {
        return;
    };
    match time {
        Some(t) => {
            status.insert(PHASE_TIME.into(), t);
        }
        None => {
            status.remove(PHASE_TIME);
        }
    }
}

const PHASE_TIME: &str = "lastPhaseTransitionTime";

/// What the registry of `group`/`plural` does to an object about to be created, before
/// defaulting (`PrepareForCreate`, and what the decoding adds): a Lease loses the fields of
/// the `CoordinatedLeaderElection` feature, off by default; a DaemonSet gets its template
/// generation annotation; a Pod its `SchedulingGated` condition when it has scheduling gates,
/// and the label keys of its affinity terms and spread constraints merged into their selectors;
/// a claim's data source fields are prepared (`claim_sources`).
pub fn prepare_create(group: &str, plural: &str, object: &mut Value) {
    match (group, plural) {
        ("coordination.k8s.io", "leases") => {
            if let Some(spec) = object["spec"].as_object_mut() {
                spec.remove("strategy");
                spec.remove("preferredHolder");
            }
        }
        // apps/v1 carries a DaemonSet's template generation (1 on create) as an annotation
        // written by the conversion, so the field manager sees it as the creator's.
        ("apps", "daemonsets") => {
            if !object["metadata"]["annotations"].is_object() {
                object["metadata"]["annotations"] = json!({});
            }
            object["metadata"]["annotations"]["deprecated.daemonset.template.generation"] =
                json!("1");
        }
        ("", "pods") => {
            prepare_pod(object);
            super::scheduling_gates::gated_condition(object, &crate::support::meta::now());
            super::label_keys::merge_into_selectors(object);
        }
        ("resource.k8s.io", "resourceslices") => {
            drop_disabled_slice_fields(object);
        }
        ("", "persistentvolumeclaims") => super::claim_sources::prepare_create(object),
        _ => {}
    }
}

/// What a StatefulSet loses before it is stored, created or updated: its rolling update's
/// `maxUnavailable` (the `MaxUnavailableStatefulSet` gate is off in v1.34, so a stored set
/// never has it). On create the creator's managed fields still name it.
fn drop_stateful_set_max_unavailable(object: &mut Value) {
    if let Some(ru) = object
        .pointer_mut("/spec/updateStrategy/rollingUpdate")
        .and_then(Value::as_object_mut)
    {
        ru.remove("maxUnavailable");
    }
}

/// What a CSIDriver and a DeviceClass lose before they are stored, created or updated: the
/// fields of features off by default in v1.34, which their strategies drop (the stored object
/// never has them): a driver's `nodeAllocatableUpdatePeriodSeconds`
/// (`MutableCSINodeAllocatableCount`), a class's `extendedResourceName` (`DRAExtendedResource`).
/// On create the creator's managed fields still name them.
fn drop_disabled_class_fields(group: &str, plural: &str, object: &mut Value) {
    let field = match (group, plural) {
        ("storage.k8s.io", "csidrivers") => "nodeAllocatableUpdatePeriodSeconds",
        ("resource.k8s.io", "deviceclasses") => "extendedResourceName",
        _ => return,
    };
    if let Some(spec) = object["spec"].as_object_mut() {
        spec.remove(field);
    }
}

/// What the registry of `group`/`plural` does to an update of `old` before validating it: a
/// claim's data source fields are prepared (`claim_sources`); a ResourceSlice loses the fields of the DRA features off in v1.34 (see
/// [`drop_disabled_slice_fields`]); a Pod or pod template loses the image volumes and
/// disabled projections `old` does not use (`image_volume`, `disabled_projections`), so a
/// pod update adding one changes nothing. Whether it dropped anything that changes the spec:
/// the slice's strategy compares the spec for its generation before it drops them, and the
/// stored slice never has them, so a drop is a change of the spec (a workload's generation
/// is compared after the drop).
pub fn drop_disabled_on_update(group: &str, plural: &str, object: &mut Value, old: &Value) -> bool {
    super::image_volume::drop_disabled(group, plural, object, Some(old));
    super::disabled_projections::drop_disabled(group, plural, object, Some(old));
    drop_disabled_class_fields(group, plural, object);
    match (group, plural) {
        ("resource.k8s.io", "resourceslices") => drop_disabled_slice_fields(object),
        // The stored set never has the field: dropping it changes nothing there.
        ("apps", "statefulsets") => {
            drop_stateful_set_max_unavailable(object);
            false
        }
        ("", "persistentvolumeclaims") => {
            super::claim_sources::prepare_update(object, old);
            false
        }
        _ => false,
    }
}

/// Whether an update of `group`/`plural` to `object` may lose or gain fields in
/// [`drop_disabled_on_update`] that the field manager still credits as sent (see
/// [`credited_on_update`]): a claim's data sources, a pod spec's image volumes and disabled
/// projections.
pub fn credits_sent_fields(group: &str, plural: &str, object: &Value) -> bool {
    super::claim_sources::is_claim(group, plural)
        || super::image_volume::has_image_volume(group, plural, object)
        || super::disabled_projections::has_disabled(group, plural, object)
        || slice_sends_disabled(group, plural, object)
}

/// The spec fields of a ResourceSlice's disabled features (see
/// [`drop_disabled_slice_fields`]; its devices are an atomic list, owned whole).
const SLICE_SPEC_DISABLED: &[&str] = &["sharedCounters", "perDeviceNodeSelection"];

/// Whether `object`, a ResourceSlice, sends a spec field of a disabled feature, which its
/// strategy drops after kube-apiserver's field manager credited it to the writer.
pub fn slice_sends_disabled(group: &str, plural: &str, object: &Value) -> bool {
    (group, plural) == ("resource.k8s.io", "resourceslices")
        && SLICE_SPEC_DISABLED
            .iter()
            .any(|f| object["spec"].get(*f).is_some_and(|v| !v.is_null()))
}

/// What the field manager credits to the writer of an update of `group`/`plural`: `new`, as
/// [`drop_disabled_on_update`] left it, with the fields that dropped or filled in as `sent`
/// (the request as decoded) had them, since kube-apiserver records the writer's fields
/// before its strategy prepares the object. `None` when that is `new` itself.
pub fn credited_on_update(group: &str, plural: &str, new: &Value, sent: &Value) -> Option<Value> {
    if super::claim_sources::is_claim(group, plural) {
        return super::claim_sources::as_sent(new, sent);
    }
    let mut view = new.clone();
    let volumes = super::image_volume::restore_sent(group, plural, &mut view, sent);
    let sources = super::disabled_projections::restore_sent(group, plural, &mut view, sent);
    let slice = slice_sends_disabled(group, plural, sent);
    if slice && let Some(spec) = view["spec"].as_object_mut() {
        for f in SLICE_SPEC_DISABLED {
            if let Some(v) = sent["spec"].get(*f) {
                spec.insert((*f).to_string(), v.clone());
            }
        }
    }
    (volumes || sources || slice).then_some(view)
}

/// The fields of a ResourceSlice that belong to DRA features off by default in v1.34, which
/// its strategy drops (`dropDisabledFields`) unless the stored slice uses them (it never
/// can): device taints (`DRADeviceTaints`); shared counters, per-device node selection and
/// counter consumption (`DRAPartitionableDevices`); binding conditions
/// (`DRADeviceBindingConditions`); multiple allocations and capacity request policies
/// (`DRAConsumableCapacity`). Whether any was there.
fn drop_disabled_slice_fields(object: &mut Value) -> bool {
    const SPEC: &[&str] = SLICE_SPEC_DISABLED;
    const DEVICE: &[&str] = &[
        "taints",
        "consumesCounters",
        "nodeName",
        "nodeSelector",
        "allNodes",
        "bindingConditions",
        "bindingFailureConditions",
        "bindsToNode",
        "allowMultipleAllocations",
    ];
    let Some(spec) = object["spec"].as_object_mut() else {
        return false;
    };
    let mut dropped = false;
    let mut remove = |map: &mut serde_json::Map<String, Value>, key: &str| {
        // Go's semantic equality takes an empty list or map for an absent one.
        let empty = |v: &Value| {
            v.is_null()
                || v.as_array().is_some_and(Vec::is_empty)
                || v.as_object().is_some_and(serde_json::Map::is_empty)
        };
        if map.remove(key).is_some_and(|v| !empty(&v)) {
            dropped = true;
        }
    };
    for key in SPEC {
        remove(spec, key);
    }
    let devices = spec.get_mut("devices").and_then(Value::as_array_mut);
    for device in devices
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
    {
        for key in DEVICE {
            remove(device, key);
        }
        let capacity = device.get_mut("capacity").and_then(Value::as_object_mut);
        for value in capacity.into_iter().flat_map(|c| c.values_mut()) {
            if let Some(value) = value.as_object_mut() {
                remove(value, "requestPolicy");
            }
        }
    }
    dropped
}

/// What the Pod registry does to a Pod it is given, created or updated: a negative
/// `terminationGracePeriodSeconds` becomes 1 (a pod template keeps it, and is warned).
pub fn prepare_pod(object: &mut Value) {
    if object["spec"]["terminationGracePeriodSeconds"]
        .as_i64()
        .is_some_and(|s| s < 0)
    {
        object["spec"]["terminationGracePeriodSeconds"] = json!(1);
    }
}

/// What the registry of `group`/`plural` adds to a created object after the field manager
/// has recorded the creator's fields, so they are nobody's: a Namespace gets the `kubernetes`
/// finalizer; a Job without `manualSelector:
/// true` gets a selector on its uid and the matching template labels (`generateSelector`),
/// which its own labels follow when they are the template's. A Pod or pod template also
/// loses its image volumes there (`image_volume`) and its disabled projections
/// (`disabled_projections`), which the managed fields still name.
pub fn generate_on_create(group: &str, plural: &str, object: &mut Value) {
    super::apparmor::apply_version_skew(group, plural, object);
    super::image_volume::drop_disabled(group, plural, object, None);
    super::disabled_projections::drop_disabled(group, plural, object, None);
    if (group, plural) == ("apps", "statefulsets") {
        drop_stateful_set_max_unavailable(object);
    }
    drop_disabled_class_fields(group, plural, object);
    if (group, plural) == ("", "namespaces") {
        namespace_finalizer(object);
        return;
    }
    if (group, plural) != ("batch", "jobs") {
        return;
    }
    // Defaulting gave a Job without labels its template's labels map itself (Go shares the
    // map), so the labels generated into the template show in the Job's too; a Job whose
    // template had none gets them when the stored object is decoded and defaulted again.
    let own = &object["metadata"]["labels"];
    let shared = own.as_object().is_none_or(serde_json::Map::is_empty)
        || *own == object["spec"]["template"]["metadata"]["labels"];
    job_selector(object);
    let labels = object["spec"]["template"]["metadata"]["labels"].clone();
    if shared && labels.is_object() {
        object["metadata"]["labels"] = labels;
    }
}

/// A new Namespace gets the `kubernetes` finalizer the namespace controller removes once
/// the namespace is empty (the Namespace strategy's `PrepareForCreate`).
fn namespace_finalizer(object: &mut Value) {
    if !object["spec"].is_object() {
        object["spec"] = json!({});
    }
    let finalizers = &mut object["spec"]["finalizers"];
    match finalizers.as_array_mut() {
        Some(list) if list.iter().any(|f| f == "kubernetes") => {}
        Some(list) => list.push(json!("kubernetes")),
        None => *finalizers = json!(["kubernetes"]),
    }
}

/// `generateSelector` of the Job registry.
fn job_selector(object: &mut Value) {
    if object["spec"]["manualSelector"].as_bool() == Some(true) || !object["spec"].is_object() {
        return;
    }
    let uid = object["metadata"]["uid"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let name = object["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let template = &mut object["spec"]["template"];
    if !template.is_object() {
        *template = json!({});
    }
    if !template["metadata"].is_object() {
        template["metadata"] = json!({});
    }
    if !template["metadata"]["labels"].is_object() {
        template["metadata"]["labels"] = json!({});
    }
    let labels = &mut template["metadata"]["labels"];
    for (key, value) in [
        ("batch.kubernetes.io/controller-uid", &uid),
        ("batch.kubernetes.io/job-name", &name),
        ("controller-uid", &uid),
        ("job-name", &name),
    ] {
        if labels.get(key).is_none() {
            labels[key] = json!(value);
        }
    }
    let spec = &mut object["spec"];
    spec["manualSelector"] = json!(false);
    if !spec["selector"].is_object() {
        spec["selector"] = json!({});
    }
    if !spec["selector"]["matchLabels"].is_object() {
        spec["selector"]["matchLabels"] = json!({});
    }
    let selected = &mut spec["selector"]["matchLabels"];
    if selected.get("batch.kubernetes.io/controller-uid").is_none() {
        selected["batch.kubernetes.io/controller-uid"] = json!(uid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_namespace_gets_the_kubernetes_finalizer_once() {
        let mut ns = json!({"metadata": {"name": "a"}});
        generate_on_create("", "namespaces", &mut ns);
        assert_eq!(ns["spec"], json!({"finalizers": ["kubernetes"]}));
        let mut ns = json!({"metadata": {"name": "b"}, "spec": {"finalizers": ["example.com/x"]}});
        generate_on_create("", "namespaces", &mut ns);
        assert_eq!(
            ns["spec"]["finalizers"],
            json!(["example.com/x", "kubernetes"])
        );
        generate_on_create("", "namespaces", &mut ns);
        assert_eq!(
            ns["spec"]["finalizers"],
            json!(["example.com/x", "kubernetes"])
        );
    }

    #[test]
    fn a_created_daemon_set_carries_its_template_generation() {
        let mut ds = json!({"metadata": {"name": "d", "annotations": {"a": "b"}}});
        prepare_create("apps", "daemonsets", &mut ds);
        assert_eq!(
            ds["metadata"]["annotations"],
            json!({"a": "b", "deprecated.daemonset.template.generation": "1"})
        );
    }

    #[test]
    fn a_volume_phase_change_is_dated_unless_the_writer_dated_it() {
        let old = json!({"status": {"phase": "Pending", "lastPhaseTransitionTime": "t0"}});
        let mut changed = json!({"status": {"phase": "Available"}});
        volume_phase_transition(&old, &mut changed, "t1");
        assert_eq!(changed["status"]["lastPhaseTransitionTime"], "t1");
        // The stored time sent back counts as not dated by the writer.
        let mut resent = json!({"status": {"phase": "Failed", "lastPhaseTransitionTime": "t0"}});
        volume_phase_transition(&old, &mut resent, "t1");
        assert_eq!(resent["status"]["lastPhaseTransitionTime"], "t1");
        let mut dated = json!({"status": {"phase": "Failed", "lastPhaseTransitionTime": "t5"}});
        volume_phase_transition(&old, &mut dated, "t1");
        assert_eq!(dated["status"]["lastPhaseTransitionTime"], "t5");
        let mut same = json!({"status": {"phase": "Pending", "message": "m"}});
        volume_phase_transition(&old, &mut same, "t1");
        assert_eq!(same["status"]["lastPhaseTransitionTime"], "t0");
    }
}
