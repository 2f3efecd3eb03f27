//! Storage: StorageClasses (`pkg/apis/storage/validation`, and what an update may not
//! change), PersistentVolumes and PersistentVolumeClaims (`ValidatePersistentVolumeSpec`,
//! `ValidatePersistentVolumeClaimSpec`, the claim's update): provisioners, policies, access
//! modes, capacity, node affinity ([`node_selector`]) and the volume source ([`pv_source`]).

use serde_json::Value;

use super::errors::{
    Errors, child, dns1123_subdomain, forbidden, go_value, immutable, invalid, invalid_str, key,
    not_supported, required, required_because,
};
use super::go_diff::{GoValue, diff, marshal_indent};
use super::workloads::label_selector;
use super::{node_selector, pv_source};
use crate::support::meta::qualified_name_errors;
use crate::support::quantity::Quantity;
use crate::support::status::Cause;

const RECLAIM_POLICIES: &[&str] = &["Delete", "Retain"];
const PV_RECLAIM_POLICIES: &[&str] = &["Delete", "Recycle", "Retain"];
const BINDING_MODES: &[&str] = &["Immediate", "WaitForFirstConsumer"];
const ACCESS_MODES: &[&str] = &[
    "ReadOnlyMany",
    "ReadWriteMany",
    "ReadWriteOnce",
    "ReadWriteOncePod",
];
const VOLUME_MODES: &[&str] = &["Block", "Filesystem"];
/// Why a field of a VolumeAttachment's inline volume spec is refused.
const INLINE_FORBIDDEN: &str = "may not be specified in the context of inline volumes";
/// The most parameters a StorageClass may have.
const MAX_PARAMETERS: usize = 512;
/// The most bytes a StorageClass's parameters (keys and values) may hold.
const MAX_PARAMETER_BYTES: usize = 256 * 1024;

/// `ValidateStorageClass` (without the metadata).
pub fn storage_class(object: &Value) -> Errors {
    let mut out = Vec::new();
    // The real server checks and shows the provisioner in lower case.
    out.extend(provisioner(
        object["provisioner"].as_str().unwrap_or_default(),
        "provisioner",
    ));
    out.extend(parameters(&object["parameters"], true));
    // An empty policy is as good as none (Go checks a set, non-empty one).
    if let Some(p) = object["reclaimPolicy"].as_str()
        && !p.is_empty()
        && !RECLAIM_POLICIES.contains(&p)
    {
        out.push(not_supported("reclaimPolicy", p, RECLAIM_POLICIES));
    }
    match object["volumeBindingMode"].as_str() {
        None => out.push(required("volumeBindingMode")),
        Some(m) if !BINDING_MODES.contains(&m) => {
            out.push(not_supported("volumeBindingMode", m, BINDING_MODES));
        }
        Some(_) => {}
    }
    out.extend(super::topology_terms::allowed_topologies(
        &object["allowedTopologies"],
        "allowedTopologies",
    ));
    out
}

/// `validateParameters` of a class's `parameters`: not too many, no empty key, not too
/// big, and (unless `allow_empty`) at least one.
pub(super) fn parameters(params: &Value, allow_empty: bool) -> Errors {
    let mut out = Vec::new();
    let params = params.as_object();
    let count = params.map_or(0, serde_json::Map::len);
    if count > MAX_PARAMETERS {
        return vec![too_long("parameters", MAX_PARAMETERS)];
    }
    let mut size = 0;
    for (k, v) in params.into_iter().flatten() {
        if k.is_empty() {
            out.push(invalid_str("parameters", k, "field can not be empty."));
        }
        size += k.len() + v.as_str().map_or(0, str::len);
    }
    if size > MAX_PARAMETER_BYTES {
        out.push(too_long("parameters", MAX_PARAMETER_BYTES));
    }
    if !allow_empty && count == 0 {
        out.push(required_because(
            "parameters",
            "must contain at least one key/value pair",
        ));
    }
    out
}

/// `validateProvisioner` of a class's driver at `field`: required, and a qualified name
/// once lower-cased (shown lower-cased).
pub(super) fn provisioner(name: &str, field: &str) -> Errors {
    if name.is_empty() {
        return vec![required(field)];
    }
    let lower = name.to_lowercase();
    qualified_name_errors(&lower)
        .iter()
        .map(|why| invalid_str(field, &lower, why))
        .collect()
}

/// `ValidateStorageClassUpdate`, after the class's own validation: the provisioning fields
/// may not change.
pub fn storage_class_update(object: &Value, old: &Value) -> Errors {
    let mut out = Vec::new();
    let changed = |f: &str| object.get(f) != old.get(f);
    for f in ["parameters", "provisioner", "reclaimPolicy"] {
        if changed(f) {
            out.push(forbidden(f, &format!("updates to {f} are forbidden.")));
        }
    }
    if changed("volumeBindingMode") {
        out.push(immutable("volumeBindingMode", &object["volumeBindingMode"]));
    }
    out
}

/// `field.TooLong` (the real server reports too many parameters as too long too).
pub(super) fn too_long(field: &str, max: usize) -> Cause {
    Cause {
        reason: "FieldValueTooLong".into(),
        message: format!("Too long: may not be more than {max} bytes"),
        field: field.into(),
    }
}

fn access_modes(spec: &Value, path: &str, required_why: Option<&str>) -> Errors {
    let mut out = Vec::new();
    let modes: Vec<&str> = spec["accessModes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| m.as_str().unwrap_or_default())
        .collect();
    let field = child(path, "accessModes");
    if modes.is_empty() {
        out.push(match required_why {
            Some(why) => required_because(&field, why),
            None => required(&field),
        });
    }
    for m in &modes {
        if !ACCESS_MODES.contains(m) {
            out.push(not_supported(&field, m, ACCESS_MODES));
        }
    }
    let others = modes
        .iter()
        .any(|m| *m != "ReadWriteOncePod" && ACCESS_MODES.contains(m));
    if modes.contains(&"ReadWriteOncePod") && others {
        out.push(forbidden(
            &field,
            "may not use ReadWriteOncePod with other access modes",
        ));
    }
    out
}

fn volume_mode(spec: &Value, path: &str) -> Errors {
    match spec["volumeMode"].as_str() {
        Some(m) if !VOLUME_MODES.contains(&m) => {
            vec![not_supported(&child(path, "volumeMode"), m, VOLUME_MODES)]
        }
        _ => Vec::new(),
    }
}

fn class_name(spec: &Value, path: &str) -> Errors {
    let name = spec["storageClassName"].as_str().unwrap_or_default();
    if name.is_empty() {
        return Vec::new();
    }
    dns1123_subdomain(name)
        .iter()
        .map(|why| invalid_str(&child(path, "storageClassName"), name, why))
        .collect()
}

/// `ValidatePositiveQuantityValue` of the quantity at `field`.
fn positive(field: &str, value: &Value) -> Errors {
    match Quantity::from_json(value) {
        Some(q) if q.nanos <= 0 => vec![invalid_str(
            field,
            &q.to_string(),
            "must be greater than zero",
        )],
        _ => Vec::new(),
    }
}

/// `ValidatePersistentVolumeSpec` of a PersistentVolume (without the metadata).
pub fn persistent_volume(object: &Value) -> Errors {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    persistent_volume_spec(&object["spec"], name, "spec", false)
}

/// `ValidatePersistentVolumeSpec` of the spec at `path` of the volume named `name`, in the
/// real server's order: access modes, capacity, reclaim policy, node affinity, the volume
/// source ([`pv_source`]), class, mode and volume attributes class. An `inline` spec (a
/// VolumeAttachment's) has no capacity, claim, class nor node affinity, and only CSI.
pub fn persistent_volume_spec(spec: &Value, name: &str, path: &str, inline: bool) -> Errors {
    let at = |field: &str| child(path, field);
    let mut out = Vec::new();
    if inline {
        if !spec["claimRef"].is_null() {
            out.push(forbidden(&at("claimRef"), INLINE_FORBIDDEN));
        }
        if spec["capacity"].as_object().is_some_and(|c| !c.is_empty()) {
            out.push(forbidden(&at("capacity"), INLINE_FORBIDDEN));
        }
        if spec["csi"].is_null() {
            out.push(required_because(
                &at("csi"),
                "has to be specified in the context of inline volumes",
            ));
        }
    }
    out.extend(access_modes(spec, path, None));
    if !inline {
        out.extend(capacity(spec, path));
    }
    if let Some(p) = spec["persistentVolumeReclaimPolicy"].as_str()
        && !p.is_empty()
    {
        let field = at("persistentVolumeReclaimPolicy");
        if inline && p != "Retain" {
            out.push(forbidden(
                &field,
                "may only be Retain in the context of inline volumes",
            ));
        } else if !inline && !PV_RECLAIM_POLICIES.contains(&p) {
            out.push(not_supported(&field, p, PV_RECLAIM_POLICIES));
        }
    }
    let affinity = spec.get("nodeAffinity").filter(|a| !a.is_null());
    let mut has_affinity = false;
    if let Some(a) = affinity {
        if inline {
            out.push(forbidden(&at("nodeAffinity"), INLINE_FORBIDDEN));
        } else {
            has_affinity = true;
            out.extend(node_selector::volume_node_affinity(a, &at("nodeAffinity")));
        }
    }
    out.extend(pv_source::volume_sources_at(spec, path, name, has_affinity));
    let host_path = spec["hostPath"]["path"].as_str();
    if host_path.is_some_and(is_root) && spec["persistentVolumeReclaimPolicy"] == "Recycle" {
        out.push(forbidden(
            &at("persistentVolumeReclaimPolicy"),
            "may not be 'recycle' for a hostPath mount of '/'",
        ));
    }
    if inline {
        if spec["storageClassName"]
            .as_str()
            .is_some_and(|c| !c.is_empty())
        {
            out.push(forbidden(&at("storageClassName"), INLINE_FORBIDDEN));
        }
        if spec["volumeMode"]
            .as_str()
            .is_some_and(|m| m != "Filesystem")
        {
            out.push(forbidden(
                &at("volumeMode"),
                "may not specify volumeMode other than Filesystem in the context of inline volumes",
            ));
        }
    } else {
        out.extend(class_name(spec, path));
        out.extend(volume_mode(spec, path));
    }
    if let Some(class) = spec["volumeAttributesClassName"].as_str() {
        let field = at("volumeAttributesClassName");
        if class.is_empty() {
            out.push(required_because(&field, "an empty string is disallowed"));
        }
        for why in dns1123_subdomain(class)
            .iter()
            .filter(|_| !class.is_empty())
        {
            out.push(invalid_str(&field, class, why));
        }
        if spec["csi"].is_null() {
            out.push(required_because(
                &at("csi"),
                "has to be specified when using volumeAttributesClassName",
            ));
        }
    }
    out
}

/// A volume's capacity: only `storage`, valid and positive.
fn capacity(spec: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let field = child(path, "capacity");
    let capacity = spec["capacity"].as_object();
    if capacity.is_none_or(serde_json::Map::is_empty) {
        out.push(required(&field));
    }
    if capacity.is_none_or(|c| !c.contains_key("storage") || c.len() > 1) {
        let value = capacity.map_or(Value::Null, |c| Value::Object(c.clone()));
        let mut cause = not_supported(&field, "", &["storage"]);
        cause.message = format!(
            "Unsupported value: {}: supported values: \"storage\"",
            go_value(&value)
        );
        out.push(cause);
    }
    for (name, q) in capacity.into_iter().flatten() {
        let at = key(&field, name);
        out.extend(basic_resource(&at, q));
        out.extend(positive(&at, q));
    }
    out
}

/// Whether `path` cleans to `/` (Go's `path.Clean`: `.` and empty elements dropped, `..`
/// going up, never above the root).
fn is_root(path: &str) -> bool {
    let Some(rest) = path.strip_prefix('/') else {
        return false;
    };
    let mut depth = 0usize;
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => depth = depth.saturating_sub(1),
            _ => depth += 1,
        }
    }
    depth == 0
}

/// `validateBasicResource`: a negative quantity, shown as its integer value (rounded away
/// from zero, as `Quantity.Value` rounds).
pub(super) fn basic_resource(field: &str, value: &Value) -> Errors {
    const NANOS: i128 = 1_000_000_000;
    match Quantity::from_json(value) {
        Some(q) if q.nanos < 0 => {
            let whole = i64::try_from(q.nanos.div_euclid(NANOS)).unwrap_or(i64::MIN);
            vec![invalid(
                field,
                &whole.into(),
                "must be a valid resource quantity",
            )]
        }
        _ => Vec::new(),
    }
}

/// A PersistentVolumeClaim (without the metadata): its spec.
pub fn persistent_volume_claim(object: &Value) -> Errors {
    claim_spec_errors(&object["spec"], "spec")
}

/// `ValidatePersistentVolumeClaimSpec` of the claim spec at `path` (a claim's, a
/// StatefulSet's claim template's or an ephemeral volume's), its data sources last
/// ([`super::claim_data_source`]).
pub fn claim_spec_errors(spec: &Value, path: &str) -> Errors {
    let mut out = access_modes(spec, path, Some("at least 1 access mode is required"));
    if spec["selector"].is_object() {
        out.extend(label_selector(&spec["selector"], &child(path, "selector")));
    }
    let field = key(&child(path, "resources"), "storage");
    match spec["resources"]["requests"].get("storage") {
        None => out.push(required(&field)),
        Some(q) => out.extend(positive(&field, q)),
    }
    out.extend(class_name(spec, path));
    out.extend(volume_mode(spec, path));
    out.extend(super::claim_data_source::data_sources(spec, path));
    out
}

/// A string pointer as Go writes it: the string, or `null`.
fn pointer(value: &Value) -> GoValue {
    GoValue::Json(
        value
            .as_str()
            .map_or(Value::Null, |s| Value::String(s.into())),
    )
}

/// A quantity map (`ResourceList`) as Go writes it: canonical quantities, `null` when absent.
pub(super) fn resource_list(value: &Value) -> GoValue {
    GoValue::Json(value.as_object().map_or(Value::Null, |m| {
        Value::Object(
            m.iter()
                .map(|(k, q)| {
                    let text =
                        Quantity::from_json(q).map_or_else(|| q.clone(), |q| q.to_string().into());
                    (k.clone(), text)
                })
                .collect(),
        )
    }))
}

/// A `metav1.LabelSelector` as Go writes it (its fields in order, empty ones left out).
fn selector(value: &Value) -> GoValue {
    let Some(map) = value.as_object() else {
        return GoValue::Json(Value::Null);
    };
    let mut fields = Vec::new();
    if let Some(labels) = map
        .get("matchLabels")
        .filter(|l| l.as_object().is_some_and(|m| !m.is_empty()))
    {
        fields.push(("matchLabels", GoValue::Json(labels.clone())));
    }
    if let Some(exprs) = map
        .get("matchExpressions")
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty())
    {
        let items = exprs
            .iter()
            .map(|e| {
                let mut f = vec![
                    (
                        "key",
                        GoValue::Json(e["key"].as_str().unwrap_or_default().into()),
                    ),
                    (
                        "operator",
                        GoValue::Json(e["operator"].as_str().unwrap_or_default().into()),
                    ),
                ];
                if e["values"].as_array().is_some_and(|v| !v.is_empty()) {
                    f.push(("values", GoValue::Json(e["values"].clone())));
                }
                f
            })
            .collect();
        fields.push(("matchExpressions", GoValue::List(items)));
    }
    GoValue::Struct(fields)
}

/// A typed object reference (`TypedLocalObjectReference`, with `namespaced` the
/// `TypedObjectReference`), `null` when absent.
fn typed_reference(value: &Value, namespaced: bool) -> GoValue {
    if !value.is_object() {
        return GoValue::Json(Value::Null);
    }
    let mut fields = vec![
        ("APIGroup", pointer(&value["apiGroup"])),
        (
            "Kind",
            GoValue::Json(value["kind"].as_str().unwrap_or_default().into()),
        ),
        (
            "Name",
            GoValue::Json(value["name"].as_str().unwrap_or_default().into()),
        ),
    ];
    if namespaced {
        fields.push(("Namespace", pointer(&value["namespace"])));
    }
    GoValue::Struct(fields)
}

/// A claim's spec as the Go struct `core.PersistentVolumeClaimSpec`.
fn claim_spec(spec: &Value) -> GoValue {
    GoValue::Struct(vec![
        (
            "AccessModes",
            GoValue::Json(spec.get("accessModes").cloned().unwrap_or(Value::Null)),
        ),
        ("Selector", selector(&spec["selector"])),
        (
            "Resources",
            GoValue::Struct(vec![
                ("Limits", resource_list(&spec["resources"]["limits"])),
                ("Requests", resource_list(&spec["resources"]["requests"])),
            ]),
        ),
        (
            "VolumeName",
            GoValue::Json(spec["volumeName"].as_str().unwrap_or_default().into()),
        ),
        ("StorageClassName", pointer(&spec["storageClassName"])),
        ("VolumeMode", pointer(&spec["volumeMode"])),
        ("DataSource", typed_reference(&spec["dataSource"], false)),
        (
            "DataSourceRef",
            typed_reference(&spec["dataSourceRef"], true),
        ),
        (
            "VolumeAttributesClassName",
            pointer(&spec["volumeAttributesClassName"]),
        ),
    ])
}

/// `ValidatePersistentVolumeClaimUpdate`: a claim's spec never changes, but for the volume
/// it is bound to (once), a class given to a claim that had none, and a bound claim's
/// storage request and volume attributes class.
pub fn persistent_volume_claim_update(object: &Value, old: &Value) -> Errors {
    let mut new_spec = object["spec"].clone();
    let mut old_spec = old["spec"].clone();
    if old_spec["volumeName"].as_str().is_none_or(str::is_empty) {
        old_spec["volumeName"] = new_spec["volumeName"].clone();
    }
    let beta_class = old["metadata"]["annotations"]
        .get("volume.beta.kubernetes.io/storage-class")
        .is_some();
    if !beta_class
        && old_spec["storageClassName"].is_null()
        && new_spec["storageClassName"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    {
        new_spec["storageClassName"] = Value::Null;
    }
    if object["status"]["phase"] == "Bound" {
        if new_spec["resources"]["requests"].is_object() {
            new_spec["resources"]["requests"]["storage"] =
                old_spec["resources"]["requests"]["storage"].clone();
        }
        if !new_spec["volumeAttributesClassName"].is_null() {
            new_spec["volumeAttributesClassName"] = old_spec["volumeAttributesClassName"].clone();
        }
    }
    let (before, after) = (claim_spec(&old_spec), claim_spec(&new_spec));
    let mut out = Vec::new();
    if marshal_indent(&before) != marshal_indent(&after) {
        out.push(forbidden(
        "spec",
        &format!(
            "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n{}",
            diff(&before, &after)
        ),
        ));
    }
    // RecoverVolumeExpansionFailure (on in v1.34): a request may shrink, down to just above
    // the capacity the claim's status records.
    let size = |claim: &Value| {
        Quantity::from_json(&claim["spec"]["resources"]["requests"]["storage"])
            .map_or(0, |q| q.nanos)
    };
    let capacity =
        Quantity::from_json(&old["status"]["capacity"]["storage"]).map_or(0, |q| q.nanos);
    let new_size = size(object);
    if new_size < size(old) && new_size <= capacity {
        out.push(forbidden(
            "spec.resources.requests.storage",
            "field can not be less than status.capacity",
        ));
    }
    // The volume mode is checked once more, at a path without `spec` (as the real server).
    let mode = &object["spec"]["volumeMode"];
    if *mode != old["spec"]["volumeMode"] {
        out.push(immutable("volumeMode", mode));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn root_host_paths_clean_like_go() {
        for root in ["/", "//", "/.", "/x/..", "/../.."] {
            assert!(is_root(root), "{root}");
        }
        for other in ["", "x", "/x", "/x/../y", "./"] {
            assert!(!is_root(other), "{other}");
        }
    }

    #[test]
    fn bound_claims_shrink_down_to_their_capacity() {
        let claim = |size: &str, phase: &str| {
            json!({"spec": {"accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": size}}},
                "status": {"phase": phase, "capacity": {"storage": "10Gi"}}})
        };
        let fields = |new: &str, phase: &str| -> Vec<String> {
            persistent_volume_claim_update(&claim(new, phase), &claim("20Gi", phase))
                .into_iter()
                .map(|c| c.field)
                .collect()
        };
        assert!(fields("15Gi", "Bound").is_empty());
        assert_eq!(fields("10Gi", "Bound"), ["spec.resources.requests.storage"]);
        assert_eq!(
            fields("1Gi", "Pending"),
            ["spec", "spec.resources.requests.storage"]
        );
    }

    #[test]
    fn an_update_reports_each_changed_provisioning_field() {
        let old = json!({"provisioner": "a", "reclaimPolicy": "Delete",
            "volumeBindingMode": "Immediate"});
        let new = json!({"provisioner": "b", "reclaimPolicy": "Delete",
            "volumeBindingMode": "WaitForFirstConsumer", "parameters": {"x": "y"}});
        let messages: Vec<String> = storage_class_update(&new, &old)
            .into_iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        assert_eq!(
            messages,
            [
                "parameters: Forbidden: updates to parameters are forbidden.",
                "provisioner: Forbidden: updates to provisioner are forbidden.",
                "volumeBindingMode: Invalid value: \"WaitForFirstConsumer\": field is immutable",
            ]
        );
    }
}
