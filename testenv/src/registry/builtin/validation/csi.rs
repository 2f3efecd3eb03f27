//! The CSI kinds of the storage group (`pkg/apis/storage/validation`): CSIDrivers, CSINodes,
//! CSIStorageCapacities and VolumeAttributesClasses, and what their updates may not change.

use std::collections::HashSet;

use serde_json::Value;

use super::errors::{
    Errors, child, dns1123_subdomain, duplicate, forbidden, immutable, index, invalid, invalid_str,
    invalid_text, not_supported, required,
};
use super::go_diff::{GoValue, marshal};
use super::go_struct::selector_as_go;
use super::pv_source::csi_driver;
use super::storage::{parameters, provisioner};
use super::workloads::label_selector;
use crate::support::meta::qualified_name_errors;
use crate::support::quantity::Quantity;

const FS_GROUP_POLICIES: &[&str] = &["File", "None", "ReadWriteOnceWithFSType"];
const LIFECYCLE_MODES: &[&str] = &["Persistent", "Ephemeral"];
/// The shortest token a CSI driver may ask for, in seconds.
const MIN_TOKEN_SECONDS: i64 = 10 * 60;
/// The longest token a CSI driver may ask for, in seconds.
const MAX_TOKEN_SECONDS: i64 = 1 << 32;
/// The longest node ID a CSINode's driver may have.
const MAX_NODE_ID: usize = 256;

/// `validateCSIDriverSpec`, but for the fields the real server defaults before (it never
/// finds them unset).
pub fn csi_driver_spec(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = Vec::new();
    if let Some(policy) = spec["fsGroupPolicy"].as_str()
        && !FS_GROUP_POLICIES.contains(&policy)
    {
        out.push(not_supported(
            "spec.fsGroupPolicy",
            policy,
            FS_GROUP_POLICIES,
        ));
    }
    let mut audiences = HashSet::new();
    for (i, request) in spec["tokenRequests"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = index("spec.tokenRequests", i);
        let audience = request["audience"].as_str().unwrap_or_default();
        if !audiences.insert(audience) {
            out.push(duplicate(&child(&at, "audience"), &audience.into()));
            continue;
        }
        let Some(seconds) = request["expirationSeconds"].as_i64() else {
            continue;
        };
        let field = child(&at, "expirationSeconds");
        if seconds < MIN_TOKEN_SECONDS {
            out.push(invalid(
                &field,
                &seconds.into(),
                "may not specify a duration less than 10 minutes",
            ));
        }
        if seconds > MAX_TOKEN_SECONDS {
            out.push(invalid(
                &field,
                &seconds.into(),
                "may not specify a duration larger than 2^32 seconds",
            ));
        }
    }
    for mode in lifecycle_modes(spec).as_array().into_iter().flatten() {
        let mode = mode.as_str().unwrap_or_default();
        if !LIFECYCLE_MODES.contains(&mode) {
            out.push(not_supported(
                "spec.volumeLifecycleModes",
                mode,
                LIFECYCLE_MODES,
            ));
        }
    }
    out
}

/// A driver's lifecycle modes as defaulted (`Persistent` when none).
fn lifecycle_modes(spec: &Value) -> Value {
    match &spec["volumeLifecycleModes"] {
        Value::Array(modes) if !modes.is_empty() => Value::Array(modes.clone()),
        _ => Value::Array(vec!["Persistent".into()]),
    }
}

/// `ValidateCSIDriverUpdate`, after the spec's checks: whether a driver needs attaching and
/// its lifecycle modes never change (compared as defaulted).
pub fn csi_driver_update(object: &Value, old: &Value) -> Errors {
    let (spec, old_spec) = (&object["spec"], &old["spec"]);
    let attach = |s: &Value| s["attachRequired"].as_bool().unwrap_or(true);
    let mut out = Vec::new();
    if attach(spec) != attach(old_spec) {
        out.push(immutable("spec.attachedRequired", &attach(spec).into()));
    }
    let modes = lifecycle_modes(spec);
    if modes != lifecycle_modes(old_spec) {
        out.push(immutable("spec.volumeLifecycleModes", &modes));
    }
    out
}

/// `validateCSINodeSpec`: each driver's name, node ID, allocatable count and topology keys,
/// no driver twice.
pub fn csi_node(object: &Value) -> Errors {
    let mut out = Vec::new();
    let mut names = HashSet::new();
    let drivers = object["spec"]["drivers"].as_array();
    for (i, driver) in drivers.into_iter().flatten().enumerate() {
        let at = index("spec.drivers", i);
        let name = driver["name"].as_str().unwrap_or_default();
        out.extend(csi_driver(name, &child(&at, "name")));
        let id = driver["nodeID"].as_str().unwrap_or_default();
        let id_path = child(&at, "nodeID");
        if id.is_empty() {
            out.push(required(&id_path));
        }
        if id.len() > MAX_NODE_ID {
            out.push(invalid_str(
                &id_path,
                id,
                &format!("must be {MAX_NODE_ID} characters or less"),
            ));
        }
        if let Some(count) = driver["allocatable"]["count"].as_i64()
            && count < 0
        {
            out.push(invalid(
                &child(&at, "allocatable.count"),
                &count.into(),
                "must be greater than or equal to 0",
            ));
        }
        if !names.insert(name) {
            out.push(duplicate(&child(&at, "name"), &name.into()));
        }
        let mut keys = HashSet::new();
        for key in driver["topologyKeys"].as_array().into_iter().flatten() {
            let key = key.as_str().unwrap_or_default();
            if key.is_empty() {
                out.push(required(&at));
            }
            if !keys.insert(key) {
                out.push(duplicate(&at, &key.into()));
            }
            for why in qualified_name_errors(key) {
                out.push(invalid_str(&at, key, &why));
            }
        }
    }
    out
}

/// A `storage.CSINodeDriver` as Go writes it.
fn node_driver(driver: &Value) -> GoValue {
    let text = |v: &Value| GoValue::Json(v.as_str().unwrap_or_default().into());
    let allocatable = &driver["allocatable"];
    GoValue::Struct(vec![
        ("Name", text(&driver["name"])),
        ("NodeID", text(&driver["nodeID"])),
        (
            "TopologyKeys",
            GoValue::Json(driver["topologyKeys"].clone()),
        ),
        (
            "Allocatable",
            if allocatable.is_object() {
                GoValue::Struct(vec![("Count", GoValue::Json(allocatable["count"].clone()))])
            } else {
                GoValue::Json(Value::Null)
            },
        ),
    ])
}

/// `ValidateCSINodeUpdate`, after the node's checks: a driver already listed never changes.
pub fn csi_node_update(object: &Value, old: &Value) -> Errors {
    let drivers = |o: &Value| o["spec"]["drivers"].as_array().cloned().unwrap_or_default();
    let (new, before) = (drivers(object), drivers(old));
    let mut out = Vec::new();
    for old_driver in &before {
        for driver in new.iter().filter(|d| d["name"] == old_driver["name"]) {
            let printed = marshal(&node_driver(driver));
            if printed != marshal(&node_driver(old_driver)) {
                out.push(invalid_text("spec.drivers", &printed, "field is immutable"));
            }
        }
    }
    out
}

/// `ValidateCSIStorageCapacity` (without the metadata): the node topology selector, the
/// class's name and a capacity that is not negative.
pub fn csi_storage_capacity(object: &Value) -> Errors {
    let mut out = Vec::new();
    if object["nodeTopology"].is_object() {
        out.extend(label_selector(&object["nodeTopology"], "nodeTopology"));
    }
    let class = object["storageClassName"].as_str().unwrap_or_default();
    for why in dns1123_subdomain(class) {
        out.push(invalid_str("storageClassName", class, &why));
    }
    if let Some(q) = Quantity::from_json(&object["capacity"])
        && q.nanos < 0
    {
        out.push(invalid_str(
            "capacity",
            &q.to_string(),
            "must be greater than or equal to 0",
        ));
    }
    out
}

/// `ValidateCSIStorageCapacityUpdate`, after the capacity's checks: the node topology and
/// the class never change.
pub fn csi_storage_capacity_update(object: &Value, old: &Value) -> Errors {
    let mut out = Vec::new();
    let topology = selector_as_go(&object["nodeTopology"]);
    if topology != selector_as_go(&old["nodeTopology"]) {
        out.push(invalid_text(
            "nodeTopology",
            &topology,
            "field is immutable",
        ));
    }
    let class = &object["storageClassName"];
    if *class != old["storageClassName"] {
        out.push(immutable("storageClassName", class));
    }
    out
}

/// `ValidateVolumeAttributesClass` (without the metadata): a driver and parameters.
pub fn volume_attributes_class(object: &Value) -> Errors {
    let mut out = provisioner(
        object["driverName"].as_str().unwrap_or_default(),
        "driverName",
    );
    out.extend(parameters(&object["parameters"], false));
    out
}

/// `ValidateVolumeAttributesClassUpdate`, after the class's checks: the driver and the
/// parameters may not change, then the class's checks once more.
pub fn volume_attributes_class_update(object: &Value, old: &Value) -> Errors {
    let mut out = Vec::new();
    let empty = |v: &Value| v.as_object().is_none_or(serde_json::Map::is_empty);
    if object["driverName"] != old["driverName"] {
        out.push(forbidden(
            "driverName",
            "updates to driverName are forbidden.",
        ));
    }
    let params = (&object["parameters"], &old["parameters"]);
    if params.0 != params.1 && !(empty(params.0) && empty(params.1)) {
        out.push(forbidden(
            "parameters",
            "updates to parameters are forbidden.",
        ));
    }
    out.extend(volume_attributes_class(object));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(causes: Errors) -> Vec<String> {
        causes
            .into_iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    #[test]
    fn driver_token_requests_and_modes() {
        let driver = json!({"spec": {"fsGroupPolicy": "Weird", "volumeLifecycleModes": ["Odd"],
            "tokenRequests": [{"audience": "a", "expirationSeconds": 5}, {"audience": "a"},
                {"audience": "b", "expirationSeconds": 5_000_000_000_i64}]}});
        assert_eq!(
            messages(csi_driver_spec(&driver)),
            [
                "spec.fsGroupPolicy: Unsupported value: \"Weird\": supported values: \"File\", \"None\", \"ReadWriteOnceWithFSType\"",
                "spec.tokenRequests[0].expirationSeconds: Invalid value: 5: may not specify a duration less than 10 minutes",
                "spec.tokenRequests[1].audience: Duplicate value: \"a\"",
                "spec.tokenRequests[2].expirationSeconds: Invalid value: 5000000000: may not specify a duration larger than 2^32 seconds",
                "spec.volumeLifecycleModes: Unsupported value: \"Odd\": supported values: \"Persistent\", \"Ephemeral\"",
            ]
        );
    }

    #[test]
    fn driver_updates_compare_defaulted_values() {
        let old = json!({"spec": {}});
        assert!(
            csi_driver_update(
                &json!({"spec": {"attachRequired": true,
            "volumeLifecycleModes": ["Persistent"]}}),
                &old
            )
            .is_empty()
        );
        assert_eq!(
            messages(csi_driver_update(
                &json!({"spec": {"attachRequired": false, "volumeLifecycleModes": ["Ephemeral"]}}),
                &old
            )),
            [
                "spec.attachedRequired: Invalid value: false: field is immutable",
                "spec.volumeLifecycleModes: Invalid value: [\"Ephemeral\"]: field is immutable",
            ]
        );
    }

    #[test]
    fn a_listed_node_driver_never_changes() {
        let node = |id: &str| {
            json!({"spec": {"drivers": [{"name": "d.example.com", "nodeID": id,
                "topologyKeys": ["a"], "allocatable": {"count": 3}}]}})
        };
        assert!(csi_node_update(&node("n1"), &node("n1")).is_empty());
        assert_eq!(
            messages(csi_node_update(&node("n2"), &node("n1"))),
            [
                r#"spec.drivers: Invalid value: {"Name":"d.example.com","NodeID":"n2","TopologyKeys":["a"],"Allocatable":{"Count":3}}: field is immutable"#
            ]
        );
        let bad =
            json!({"spec": {"drivers": [{"name": "d", "nodeID": "n", "topologyKeys": ["", ""]}]}});
        assert_eq!(
            messages(csi_node(&bad))
                .iter()
                .filter(|m| m.starts_with("spec.drivers[0]: Required") || m.contains("Duplicate"))
                .count(),
            3
        );
    }

    #[test]
    fn attribute_classes_keep_their_driver_and_parameters() {
        let old = json!({"driverName": "d", "parameters": {"a": "b"}});
        let new = json!({"driverName": "", "parameters": {}});
        assert_eq!(
            messages(volume_attributes_class_update(&new, &old)),
            [
                "driverName: Forbidden: updates to driverName are forbidden.",
                "parameters: Forbidden: updates to parameters are forbidden.",
                "driverName: Required value",
                "parameters: Required value: must contain at least one key/value pair",
            ]
        );
    }
}
