//! A ResourceClaim's spec (`validateDeviceClaim`), in a claim or a claim template: its
//! requests (names, the device classes and selectors of an exact request or of each
//! alternative, the allocation mode and count), then its constraints (the requests they name,
//! the attribute that must match), then its configurations (the requests they name, an opaque
//! configuration's driver and parameters). A template's metadata labels are checked too.

use serde_json::Value;

use super::errors::{
    Errors, check_labels, child, index, invalid, invalid_str, invalid_text, not_supported,
    required, required_because,
};
use super::pv_source::csi_driver;
use super::resource::{device_class_name, request_name, selectors};
use super::resource_go::with_raw_texts;
use super::resource_slice::qualified_name;
use super::review::object_meta_go;
use super::status_resource::{raw_object, request_names, request_ref};
use crate::support::json_order::raw_bytes;
use crate::support::status::Cause;

/// The allocation modes a request may ask for.
const MODES: &[&str] = &["All", "ExactCount"];

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[][..], Vec::as_slice)
}

/// `ValidateResourceClaimTemplate` past the metadata: the labels of the claims it makes, then
/// their spec.
pub fn template(object: &Value) -> Errors {
    let mut out = check_labels(
        "spec.metadata.labels",
        object["spec"]["metadata"]["labels"].as_object(),
    );
    out.extend(claim_spec("spec.spec", &object["spec"]["spec"]));
    out
}

/// The checks of a claim's spec at `path` (`spec` of a claim, `spec.spec` of a template).
pub fn claim_spec(path: &str, spec: &Value) -> Errors {
    let devices = &spec["devices"];
    let names = request_names(spec);
    let mut out = Vec::new();
    let requests_path = format!("{path}.devices.requests");
    for (i, request) in items(&devices["requests"]).iter().enumerate() {
        out.extend(device_request(&index(&requests_path, i), request));
    }
    let constraints_path = format!("{path}.devices.constraints");
    for (i, constraint) in items(&devices["constraints"]).iter().enumerate() {
        let at = index(&constraints_path, i);
        out.extend(request_refs(&at, constraint, &names));
        match constraint.get("matchAttribute").and_then(Value::as_str) {
            Some(attribute) => out.extend(fully_qualified_name(
                attribute,
                &child(&at, "matchAttribute"),
            )),
            None => out.push(required(&child(&at, "matchAttribute"))),
        }
    }
    let config_path = format!("{path}.devices.config");
    for (i, config) in items(&devices["config"]).iter().enumerate() {
        let at = index(&config_path, i);
        out.extend(request_refs(&at, config, &names));
        let opaque = &config["opaque"];
        if opaque.is_object() {
            let opaque_path = child(&at, "opaque");
            let driver = opaque["driver"].as_str().unwrap_or_default();
            // `validateDriverName` is the CSI driver name's rule.
            out.extend(csi_driver(driver, &child(&opaque_path, "driver")));
            out.extend(raw_object(
                &opaque["parameters"],
                &child(&opaque_path, "parameters"),
            ));
        } else {
            out.push(required(&child(&at, "opaque")));
        }
    }
    out
}

/// `validateDeviceRequest`: its name, each alternative of `firstAvailable`, its exact
/// request, then that it has exactly one of the two.
fn device_request(at: &str, request: &Value) -> Errors {
    let mut out = request_name(at, request);
    let first = request["firstAvailable"]
        .as_array()
        .filter(|f| !f.is_empty());
    for (j, sub) in first.into_iter().flatten().enumerate() {
        let sub_path = index(&child(at, "firstAvailable"), j);
        out.extend(request_name(&sub_path, sub));
        out.extend(device_class_name(&sub_path, sub));
        out.extend(selectors(&child(&sub_path, "selectors"), &sub["selectors"]));
        out.extend(allocation_mode(&sub_path, sub));
    }
    let exactly = request["exactly"].is_object();
    if exactly {
        let exact_path = child(at, "exactly");
        let exact = &request["exactly"];
        out.extend(device_class_name(&exact_path, exact));
        out.extend(selectors(
            &child(&exact_path, "selectors"),
            &exact["selectors"],
        ));
        out.extend(allocation_mode(&exact_path, exact));
    }
    match (exactly, first.is_some()) {
        (false, false) => out.push(required_because(
            at,
            "exactly one of `exactly` or `firstAvailable` is required",
        )),
        (true, true) => out.push(invalid_text(
            at,
            "null",
            "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set",
        )),
        _ => {}
    }
    out
}

/// `validateDeviceAllocationMode` of a (sub-)request at `at`: all devices and no count, or a
/// count above zero.
fn allocation_mode(at: &str, request: &Value) -> Errors {
    let count = request["count"].as_i64().unwrap_or_default();
    let count_path = child(at, "count");
    match request["allocationMode"].as_str().unwrap_or_default() {
        "All" if count != 0 => vec![invalid(
            &count_path,
            &count.into(),
            "must not be specified when allocationMode is 'All'",
        )],
        "ExactCount" if count <= 0 => {
            vec![invalid(
                &count_path,
                &count.into(),
                "must be greater than zero",
            )]
        }
        "All" | "ExactCount" => Vec::new(),
        other => vec![not_supported(&child(at, "allocationMode"), other, MODES)],
    }
}

/// The requests a constraint or a configuration at `at` names, each one of the claim's.
fn request_refs(at: &str, item: &Value, names: &[(String, Option<Vec<String>>)]) -> Errors {
    let path = child(at, "requests");
    items(&item["requests"])
        .iter()
        .enumerate()
        .flat_map(|(j, name)| {
            request_ref(name.as_str().unwrap_or_default(), &index(&path, j), names)
        })
        .collect()
}

/// `validateFullyQualifiedName`: a qualified name that has a domain.
fn fully_qualified_name(name: &str, path: &str) -> Errors {
    let mut out = qualified_name(name, path);
    if !name.is_empty() && !name.contains('/') {
        out.push(invalid_str(path, name, "must include a domain"));
    }
    out
}

/// `ValidateResourceClaimUpdate` past the metadata: the spec may not change (the real server
/// compares the bytes kept of an opaque configuration's parameters, the same value in another
/// spelling being a change), then it is checked again.
pub fn claim_update(object: &Value, old: &Value) -> Errors {
    let mut out = Vec::new();
    if old.get("spec") != object.get("spec") || !raw_bytes::same_bytes(old, object, "spec") {
        out.push(with_raw_texts(
            immutable_spec(object),
            &raw_bytes::written_texts(old, object, "spec"),
        ));
    }
    out.extend(claim_spec("spec", &object["spec"]));
    out
}

/// `ValidateResourceClaimTemplateUpdate` past the metadata: the spec (the claims' metadata and
/// spec) may not change, then the template is checked again.
pub fn template_update(object: &Value, old: &Value) -> Errors {
    let mut out = Vec::new();
    if old.get("spec") != object.get("spec") || !raw_bytes::same_bytes(old, object, "spec") {
        out.push(with_raw_texts(
            invalid_text(
                "spec",
                &template_spec_go(&object["spec"]),
                "field is immutable",
            ),
            &raw_bytes::written_texts(old, object, "spec"),
        ));
    }
    out.extend(template(object));
    out
}

/// A template's spec as Go prints the internal struct: the claims' metadata embedded with its
/// JSON names ([`object_meta_go`]), then their spec with Go's field names.
fn template_spec_go(spec: &Value) -> String {
    let meta = object_meta_go(&spec["metadata"]);
    let fields = meta
        .strip_prefix('{')
        .and_then(|m| m.strip_suffix('}'))
        .unwrap_or_default();
    let spec = format!("\"Spec\":{}", super::resource_go::claim_spec(&spec["spec"]));
    if fields.is_empty() {
        format!("{{{spec}}}")
    } else {
        format!("{{{fields},{spec}}}")
    }
}

/// The error of a claim whose spec changed: the new spec printed as the real server prints
/// its Go struct.
fn immutable_spec(new: &Value) -> Cause {
    invalid_text(
        "spec",
        &super::resource_go::claim_spec(&new["spec"]),
        "field is immutable",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(errors: &Errors) -> Vec<String> {
        errors
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    #[test]
    fn requests_constraints_and_configurations_in_order() {
        let spec = json!({"devices": {
            "requests": [{"name": "gpu", "exactly": {"deviceClassName": "dc",
                "allocationMode": "ExactCount", "count": -1}}],
            "constraints": [{"requests": ["gpu", "nope"], "matchAttribute": "numa"}, {}],
            "config": [{"requests": ["gpu/x"], "opaque": {"driver": "", "parameters": [1]}}, {}],
        }});
        assert_eq!(
            fields(&claim_spec("spec", &spec)),
            [
                "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero",
                "spec.devices.constraints[0].requests[1]: Invalid value: \"nope\": must be the name of a request in the claim or the name of a request and a subrequest separated by '/'",
                "spec.devices.constraints[0].matchAttribute: Invalid value: \"numa\": must include a domain",
                "spec.devices.constraints[1].matchAttribute: Required value",
                "spec.devices.config[0].requests[0]: Invalid value: \"gpu/x\": must be the name of a request in the claim or the name of a request and a subrequest separated by '/'",
                "spec.devices.config[0].opaque.driver: Required value",
                "spec.devices.config[0].opaque.driver: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "spec.devices.config[0].opaque.parameters: Invalid value: \"<value omitted>\": must be a valid JSON object",
                "spec.devices.config[1].opaque: Required value",
            ]
        );
    }

    #[test]
    fn a_request_needs_exactly_one_kind() {
        let exact = json!({"deviceClassName": "c", "allocationMode": "ExactCount", "count": 1});
        let spec = json!({"devices": {"requests": [
            {"name": "a"},
            {"name": "b", "exactly": exact, "firstAvailable": [{"name": "s", "deviceClassName": "c", "allocationMode": "All"}]},
            {"name": "c", "exactly": {"deviceClassName": "c", "selectors": [{}], "allocationMode": "All"}},
        ]}});
        assert_eq!(
            fields(&claim_spec("spec", &spec)),
            [
                "spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required",
                "spec.devices.requests[1]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set",
                "spec.devices.requests[2].exactly.selectors[0].cel: Required value",
            ]
        );
    }

    #[test]
    fn allocation_modes() {
        let all = json!({"allocationMode": "All", "count": 2});
        assert_eq!(
            fields(&allocation_mode("x", &all)),
            ["x.count: Invalid value: 2: must not be specified when allocationMode is 'All'"]
        );
        let bad = json!({"allocationMode": "Some"});
        assert_eq!(
            fields(&allocation_mode("x", &bad)),
            [
                "x.allocationMode: Unsupported value: \"Some\": supported values: \"All\", \"ExactCount\""
            ]
        );
        assert!(
            allocation_mode("x", &json!({"allocationMode": "ExactCount", "count": 1})).is_empty()
        );
    }
}
