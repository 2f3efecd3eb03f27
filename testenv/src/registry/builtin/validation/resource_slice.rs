//! resource.k8s.io ResourceSlices (`ValidateResourceSlice`, `ValidateResourceSliceUpdate` of
//! `pkg/apis/resource/validation` in v1.34): the driver, the pool, exactly one of the node
//! selection fields, and the devices with their attributes and capacities, with the real
//! server's messages, limits and order. The fields of the DRA features off by default in
//! v1.34 (device taints, partitionable devices, binding conditions, consumable capacity) never
//! reach validation: the strategy drops them first.

use serde_json::{Map, Value};

use super::errors::{
    Errors, child, dns1123_label, dns1123_subdomain, duplicate, immutable, index, invalid,
    invalid_str, invalid_text, key, required, required_because,
};
use super::go_diff::{GoValue, marshal};
use super::node_selector::node_selector;
use super::pod_go::node_selector_terms;
use super::pv_source::csi_driver;
use crate::support::status::Cause;

/// The longest pool name (`PoolNameMaxLength`).
const POOL_NAME_MAX: usize = 253;
/// The most devices a slice may list (`ResourceSliceMaxDevices`).
const MAX_DEVICES: usize = 128;
/// The most attributes and capacities a device may have together
/// (`ResourceSliceMaxAttributesAndCapacitiesPerDevice`).
const MAX_ATTRIBUTES_AND_CAPACITIES: usize = 32;
/// The longest identifier of an attribute or capacity name, after its domain
/// (`DeviceMaxIDLength`).
const MAX_ID: usize = 32;
/// The longest domain of an attribute or capacity name (`DeviceMaxDomainLength`).
const MAX_DOMAIN: usize = 63;
/// The longest string or version value of an attribute (`DeviceAttributeMaxValueLength`).
const MAX_VALUE: usize = 64;

const NODE_SELECTION: &str =
    "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required";
const C_IDENTIFIER: &str = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')";

/// `field.TooLong` with its limit.
pub(super) fn too_long(field: &str, max: usize) -> Cause {
    Cause {
        reason: "FieldValueTooLong".into(),
        message: format!("Too long: may not be more than {max} bytes"),
        field: field.into(),
    }
}

/// `field.TooMany`: the count and the limit.
pub(super) fn too_many(field: &str, count: usize, max: usize) -> Cause {
    Cause {
        reason: "FieldValueTooMany".into(),
        message: format!("Too many: {count}: must have at most {max} items"),
        field: field.into(),
    }
}

/// A field of the v1 object, `None` when absent or `null` (a Go pointer left `nil`).
fn set<'a>(object: &'a Value, name: &str) -> Option<&'a Value> {
    object.get(name).filter(|v| !v.is_null())
}

fn text<'a>(object: &'a Value, name: &str) -> &'a str {
    object[name].as_str().unwrap_or_default()
}

/// The first errors of a ResourceSlice's spec, on a create and on an update: its driver
/// and its pool.
pub fn driver_and_pool(object: &Value) -> Errors {
    identity(&object["spec"])
}

/// The rest of a new ResourceSlice's errors, after [`driver_and_pool`]: its node selection
/// and its devices.
pub fn placement_and_devices(object: &Value) -> Errors {
    placement(&object["spec"])
}

/// The rest of an updated ResourceSlice's errors, after [`driver_and_pool`]: what an update
/// may not change (the pool's name, the driver, the node name, in that order; an unset node
/// name is printed `null`), then the node selection and the devices, as
/// `validateResourceSliceSpec` checks them with the old spec.
pub fn update_after_pool(object: &Value, old: &Value) -> Errors {
    let (spec, old_spec) = (&object["spec"], &old["spec"]);
    let mut out = Vec::new();
    let pool_name = |s: &Value| Value::String(text(&s["pool"], "name").into());
    if pool_name(spec) != pool_name(old_spec) {
        out.push(immutable("spec.pool.name", &pool_name(spec)));
    }
    let driver = |s: &Value| Value::String(text(s, "driver").into());
    if driver(spec) != driver(old_spec) {
        out.push(immutable("spec.driver", &driver(spec)));
    }
    let node = |s: &Value| set(s, "nodeName").cloned().unwrap_or(Value::Null);
    if node(spec) != node(old_spec) {
        out.push(immutable("spec.nodeName", &node(spec)));
    }
    out.extend(placement(spec));
    out
}

/// The driver (`ValidateCSIDriverName`) and the pool (`validateResourcePool`).
fn identity(spec: &Value) -> Errors {
    let mut out = csi_driver(text(spec, "driver"), "spec.driver");
    let pool = &spec["pool"];
    out.extend(pool_name(text(pool, "name"), "spec.pool.name"));
    let count = pool["resourceSliceCount"].as_i64().unwrap_or(0);
    if count <= 0 {
        out.push(invalid(
            "spec.pool.resourceSliceCount",
            &count.into(),
            "must be greater than zero",
        ));
    }
    let generation = pool["generation"].as_i64().unwrap_or(0);
    if generation < 0 {
        out.push(invalid(
            "spec.pool.generation",
            &generation.into(),
            "must be greater than or equal to zero",
        ));
    }
    out
}

/// `validatePoolName`: required, at most 253 bytes, each `/`-separated part a DNS subdomain.
fn pool_name(name: &str, field: &str) -> Errors {
    if name.is_empty() {
        return vec![required(field)];
    }
    let mut out = Vec::new();
    if name.len() > POOL_NAME_MAX {
        out.push(too_long(field, POOL_NAME_MAX));
    }
    for part in name.split('/') {
        out.extend(
            dns1123_subdomain(part)
                .iter()
                .map(|why| invalid_str(field, part, why)),
        );
    }
    out
}

/// The node selection (exactly one of four ways) and the devices.
fn placement(spec: &Value) -> Errors {
    let mut out = Vec::new();
    let mut chosen: Vec<&str> = Vec::new();
    if let Some(name) = set(spec, "nodeName") {
        let name = name.as_str().unwrap_or_default();
        if name.is_empty() {
            out.push(invalid_str(
                "spec.nodeName",
                name,
                "must be either unset or set to a non-empty string",
            ));
        } else {
            chosen.push("`nodeName`");
            out.extend(
                dns1123_subdomain(name)
                    .iter()
                    .map(|why| invalid_str("spec.nodeName", name, why)),
            );
        }
    }
    if let Some(selector) = set(spec, "nodeSelector") {
        chosen.push("`nodeSelector`");
        out.extend(node_selector(selector, "spec.nodeSelector"));
        let terms = &selector["nodeSelectorTerms"];
        if terms.as_array().is_none_or(|t| t.len() != 1) {
            out.push(invalid_text(
                "spec.nodeSelector.nodeSelectorTerms",
                &marshal(&node_selector_terms(terms)),
                "must have exactly one node selector term",
            ));
        }
    }
    for (field, name) in [
        ("allNodes", "`allNodes`"),
        ("perDeviceNodeSelection", "`perDeviceNodeSelection`"),
    ] {
        match set(spec, field).map(|v| v.as_bool() == Some(true)) {
            Some(true) => chosen.push(name),
            Some(false) => out.push(invalid(
                &child("spec", field),
                &Value::Bool(false),
                "must be either unset or set to true",
            )),
            None => {}
        }
    }
    match chosen.len() {
        0 => out.push(required_because("spec", NODE_SELECTION)),
        1 => {}
        _ => out.push(invalid_str(
            "spec",
            &format!("{{{}}}", chosen.join(", ")),
            &format!("{NODE_SELECTION}, but multiple fields are set"),
        )),
    }
    out.extend(devices(&spec["devices"]));
    out
}

/// `validateSet` of the devices: at most 128 (then nothing else is checked), each valid,
/// their names unique (a repeated one reported at its `name`).
fn devices(devices: &Value) -> Errors {
    let path = "spec.devices";
    let list = devices.as_array().map(Vec::as_slice).unwrap_or_default();
    if list.len() > MAX_DEVICES {
        return vec![too_many(path, list.len(), MAX_DEVICES)];
    }
    let mut out = Vec::new();
    for (i, device) in list.iter().enumerate() {
        out.extend(self::device(device, &index(path, i)));
    }
    let mut seen = std::collections::HashSet::new();
    for (i, device) in list.iter().enumerate() {
        let name = text(device, "name");
        if !seen.insert(name) {
            out.push(duplicate(
                &child(&index(path, i), "name"),
                &Value::String(name.into()),
            ));
        }
    }
    out
}

/// `validateDevice`: its name, how many attributes and capacities it has, then each
/// attribute and each capacity (the key's errors, then the value's).
fn device(device: &Value, path: &str) -> Errors {
    let name = text(device, "name");
    let mut out: Errors = dns1123_label(name)
        .iter()
        .map(|why| invalid_str(&child(path, "name"), name, why))
        .collect();
    let empty = Map::new();
    let attributes = device["attributes"].as_object().unwrap_or(&empty);
    let capacity = device["capacity"].as_object().unwrap_or(&empty);
    let total = attributes.len() + capacity.len();
    if total > MAX_ATTRIBUTES_AND_CAPACITIES {
        out.push(invalid(
            path,
            &total.into(),
            &format!(
                "the total number of attributes and capacities must not exceed {MAX_ATTRIBUTES_AND_CAPACITIES}"
            ),
        ));
    }
    let attributes_path = child(path, "attributes");
    for (name, attribute) in attributes {
        let at = key(&attributes_path, &truncated(name));
        out.extend(qualified_name(name, &at));
        out.extend(self::attribute(attribute, &at));
    }
    // A capacity's value is any quantity; its request policy is dropped with its feature.
    let capacity_path = child(path, "capacity");
    for name in capacity.keys() {
        out.extend(qualified_name(name, &key(&capacity_path, &truncated(name))));
    }
    out
}

/// A map key as an error's path shows it: one longer than a domain, a slash and an
/// identifier can be is cut in the middle (`truncateIfTooLong`).
fn truncated(name: &str) -> String {
    let max = MAX_DOMAIN + 1 + MAX_ID;
    if name.len() <= max {
        return name.to_string();
    }
    let bytes = name.as_bytes();
    let remaining = max - 3;
    let head = String::from_utf8_lossy(&bytes[..remaining.div_ceil(2)]);
    let tail = String::from_utf8_lossy(&bytes[bytes.len() - remaining / 2..]);
    format!("{head}...{tail}")
}

/// `validateQualifiedName`: a C identifier, optionally after a domain (a driver name) and a
/// slash; more slashes than one are not checked in v1.34.
pub(super) fn qualified_name(name: &str, path: &str) -> Errors {
    if name.is_empty() {
        return vec![required_because(path, "name required")];
    }
    let parts: Vec<&str> = name.split('/').collect();
    match parts.as_slice() {
        [id] => c_identifier(id, path),
        [domain, id] => {
            let mut out = if domain.is_empty() {
                vec![required_because(path, "the domain must not be empty")]
            } else {
                csi_driver(domain, path)
            };
            if id.is_empty() {
                out.push(required_because(path, "the name must not be empty"));
            } else {
                out.extend(c_identifier(id, path));
            }
            out
        }
        _ => Vec::new(),
    }
}

/// `validateCIdentifier`: at most 32 bytes, a C identifier.
fn c_identifier(id: &str, path: &str) -> Errors {
    let mut out = Vec::new();
    if id.len() > MAX_ID {
        out.push(too_long(path, MAX_ID));
    }
    let mut chars = id.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        out.push(invalid_str(path, id, C_IDENTIFIER));
    }
    out
}

/// `validateDeviceAttribute`: exactly one of `int`, `bool`, `string`, `version`; strings and
/// versions at most 64 bytes, versions semantic versions.
fn attribute(attribute: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let mut values = 0;
    for field in ["int", "bool", "string", "version"] {
        let Some(value) = set(attribute, field) else {
            continue;
        };
        values += 1;
        let value = value.as_str().unwrap_or_default();
        let at = child(path, field);
        if field == "version" && !semver(value) {
            out.push(invalid_str(
                &at,
                value,
                "must be a string compatible with semver.org spec 2.0.0",
            ));
        }
        if matches!(field, "string" | "version") && value.len() > MAX_VALUE {
            out.push(too_long(&at, MAX_VALUE));
        }
    }
    match values {
        0 => out.push(required_because(
            path,
            "exactly one value must be specified",
        )),
        1 => {}
        _ => out.push(invalid_text(
            path,
            &marshal(&attribute_as_go(attribute)),
            "exactly one value must be specified",
        )),
    }
    out
}

/// An attribute as its internal Go struct (`resource.DeviceAttribute`: pointers, no JSON
/// tags).
fn attribute_as_go(attribute: &Value) -> GoValue {
    let value = |field| GoValue::Json(set(attribute, field).cloned().unwrap_or(Value::Null));
    GoValue::Struct(vec![
        ("IntValue", value("int")),
        ("BoolValue", value("bool")),
        ("StringValue", value("string")),
        ("VersionValue", value("version")),
    ])
}

/// Whether `version` is a semantic version (semver.org 2.0.0): three numbers without
/// leading zeros, then optional dot-separated pre-release and build identifiers.
fn semver(version: &str) -> bool {
    let (rest, build) = match version.split_once('+') {
        Some((rest, build)) => (rest, Some(build)),
        None => (version, None),
    };
    let (core, pre) = match rest.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (rest, None),
    };
    let numeric = |s: &str| {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'))
    };
    let ident_chars =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let core_ok = {
        let parts: Vec<&str> = core.split('.').collect();
        parts.len() == 3 && parts.iter().all(|p| numeric(p))
    };
    let pre_ok = pre.is_none_or(|pre| {
        pre.split('.')
            .all(|p| ident_chars(p) && (numeric(p) || p.bytes().any(|b| !b.is_ascii_digit())))
    });
    let build_ok = build.is_none_or(|build| build.split('.').all(ident_chars));
    core_ok && pre_ok && build_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::builtin::validation::errors::field_messages;
    use serde_json::json;

    fn slice(spec: Value) -> Value {
        json!({"metadata": {"name": "s"}, "spec": spec})
    }

    fn resource_slice(object: &Value) -> Errors {
        let mut out = driver_and_pool(object);
        out.extend(placement_and_devices(object));
        out
    }

    #[test]
    fn an_empty_spec_lacks_driver_pool_and_node_selection() {
        assert_eq!(
            field_messages(&resource_slice(&slice(json!({})))),
            vec![
                "spec.driver: Required value".to_string(),
                format!(
                    "spec.driver: Invalid value: \"\": {}",
                    dns1123_subdomain("")[0]
                ),
                "spec.pool.name: Required value".into(),
                "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero".into(),
                format!("spec: Required value: {NODE_SELECTION}"),
            ]
        );
    }

    #[test]
    fn node_selection_is_exactly_one() {
        let spec = json!({"driver": "d", "pool": {"name": "p", "resourceSliceCount": 1},
            "nodeName": "n", "allNodes": true, "nodeSelector": {"nodeSelectorTerms": [{}, {}]}});
        let messages = field_messages(&resource_slice(&slice(spec)));
        assert_eq!(
            messages,
            vec![
                "spec.nodeSelector.nodeSelectorTerms: Invalid value: [{\"MatchExpressions\":null,\"MatchFields\":null},{\"MatchExpressions\":null,\"MatchFields\":null}]: must have exactly one node selector term".to_string(),
                format!("spec: Invalid value: \"{{`nodeName`, `nodeSelector`, `allNodes`}}\": {NODE_SELECTION}, but multiple fields are set"),
            ]
        );
    }

    #[test]
    fn attribute_names_and_values() {
        let long = format!("{}.com/{}", "b".repeat(64), "c".repeat(40));
        let spec = json!({"driver": "d", "pool": {"name": "p", "resourceSliceCount": 1},
            "allNodes": true, "devices": [{"name": "x", "attributes": {
                long.clone(): {"int": 1, "version": "1.0.0"}, "/": {"bool": true}}}]});
        let key = format!("{}...b.com/{}", "b".repeat(47), "c".repeat(40));
        assert_eq!(
            field_messages(&resource_slice(&slice(spec))),
            vec![
                "spec.devices[0].attributes[/]: Required value: the domain must not be empty"
                    .to_string(),
                "spec.devices[0].attributes[/]: Required value: the name must not be empty".into(),
                format!(
                    "spec.devices[0].attributes[{key}]: Too long: may not be more than 63 bytes"
                ),
                format!(
                    "spec.devices[0].attributes[{key}]: Too long: may not be more than 32 bytes"
                ),
                format!(
                    "spec.devices[0].attributes[{key}]: Invalid value: {{\"IntValue\":1,\"BoolValue\":null,\"StringValue\":null,\"VersionValue\":\"1.0.0\"}}: exactly one value must be specified"
                ),
            ]
        );
    }

    #[test]
    fn semantic_versions() {
        for good in ["1.0.0", "0.10.2-alpha.1+b.2", "1.0.0-0a.x-y", "1.2.3+001"] {
            assert!(semver(good), "{good}");
        }
        for bad in [
            "01.0.0",
            "1.2",
            "1.0.0-01",
            "1.0.0+",
            "",
            "v1.0.0",
            "1.0.0-a..b",
        ] {
            assert!(!semver(bad), "{bad}");
        }
    }

    #[test]
    fn updates_keep_pool_name_driver_and_node_name() {
        let old = slice(
            json!({"driver": "d", "pool": {"name": "p", "resourceSliceCount": 1},
            "nodeName": "n"}),
        );
        let new = slice(json!({"driver": "e", "pool": {"name": "q", "resourceSliceCount": 1}}));
        assert_eq!(
            field_messages(&update_after_pool(&new, &old)),
            vec![
                "spec.pool.name: Invalid value: \"q\": field is immutable".to_string(),
                "spec.driver: Invalid value: \"e\": field is immutable".into(),
                "spec.nodeName: Invalid value: null: field is immutable".into(),
                format!("spec: Required value: {NODE_SELECTION}"),
            ]
        );
    }
}
