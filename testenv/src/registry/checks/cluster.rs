//! Checks of cluster-facing kinds: Lease durations, RuntimeClass handlers, EndpointSlice
//! address types and addresses, the device selectors and requests of DeviceClasses; a claim's spec never changes (its own checks, and its
//! template's, are the kinds' validation).

use serde_json::Value;

use crate::support::meta::dns_label_error;
use crate::support::status::Cause;

use crate::registry::builtin::validation::errors::{
    immutable, invalid, not_supported, required_because,
};
use crate::registry::builtin::validation::resource;

const ADDRESS_TYPES: &[&str] = &["FQDN", "IPv4", "IPv6"];

fn lease(object: &Value) -> Vec<Cause> {
    let spec = &object["spec"];
    let mut causes = Vec::new();
    if let Some(d) = spec["leaseDurationSeconds"].as_i64().filter(|d| *d <= 0) {
        causes.push(invalid(
            "spec.leaseDurationSeconds",
            &d.into(),
            "must be greater than 0",
        ));
    }
    if let Some(t) = spec["leaseTransitions"].as_i64().filter(|t| *t < 0) {
        causes.push(invalid(
            "spec.leaseTransitions",
            &t.into(),
            "must be greater than or equal to 0",
        ));
    }
    causes
}

fn runtime_class(object: &Value) -> Vec<Cause> {
    let handler = object["handler"].as_str().unwrap_or_default();
    dns_label_error(handler)
        .map(|why| invalid("handler", &handler.into(), why))
        .into_iter()
        .collect()
}

fn endpoint_slice(object: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let address_type = object["addressType"].as_str().unwrap_or_default();
    if !ADDRESS_TYPES.contains(&address_type) {
        causes.push(not_supported("addressType", address_type, ADDRESS_TYPES));
    }
    for (i, port) in object["ports"].as_array().into_iter().flatten().enumerate() {
        if let Some(name) = port["name"].as_str().filter(|n| !n.is_empty())
            && let Some(why) = dns_label_error(name)
        {
            causes.push(invalid(&format!("ports[{i}].name"), &name.into(), why));
        }
    }
    if matches!(address_type, "IPv4" | "IPv6") {
        let endpoints = object["endpoints"].as_array().into_iter().flatten();
        for (i, endpoint) in endpoints.enumerate() {
            let addresses = endpoint["addresses"].as_array().into_iter().flatten();
            for (j, address) in addresses.enumerate() {
                let text = address.as_str().unwrap_or_default();
                if text.parse::<std::net::IpAddr>().is_err() {
                    causes.push(invalid(
                        &format!("endpoints[{i}].addresses[{j}]"),
                        address,
                        "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                    ));
                }
            }
        }
    }
    causes
}

/// Checks of a create of `group`/`plural`.
pub fn create_causes(group: &str, plural: &str, object: &Value) -> Vec<Cause> {
    match (group, plural) {
        ("coordination.k8s.io", "leases") => lease(object),
        ("node.k8s.io", "runtimeclasses") => runtime_class(object),
        ("discovery.k8s.io", "endpointslices") => endpoint_slice(object),
        ("resource.k8s.io", "deviceclasses") => resource::device_class(object),
        ("apps", "controllerrevisions") => controller_revision(object),
        _ => Vec::new(),
    }
}

/// `ValidateControllerRevision`: its data is mandatory, its revision not negative.
fn controller_revision(object: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    if object["data"].is_null() {
        causes.push(required_because("data", "data is mandatory"));
    }
    causes.extend(non_negative_revision(object));
    causes
}

fn non_negative_revision(object: &Value) -> Option<Cause> {
    let message = "must be greater than or equal to 0";
    (object["revision"].as_i64().is_some_and(|r| r < 0))
        .then(|| invalid("revision", &object["revision"], message))
}

/// Checks of an update of `group`/`plural` from `old` to `new`: the create checks, then
/// the fields that never change.
pub fn update_causes(group: &str, plural: &str, old: &Value, new: &Value) -> Vec<Cause> {
    // `ValidateControllerRevisionUpdate`: the data may not change, the revision not go
    // negative (the create checks are not made again).
    if (group, plural) == ("apps", "controllerrevisions") {
        let mut causes = Vec::new();
        if old.get("data") != new.get("data") {
            causes.push(immutable("data", &new["data"]));
        }
        causes.extend(non_negative_revision(new));
        return causes;
    }
    let mut causes = create_causes(group, plural, new);
    let fixed: &[&str] = match (group, plural) {
        ("node.k8s.io", "runtimeclasses") => &["handler"],
        ("discovery.k8s.io", "endpointslices") => &["addressType"],
        ("resource.k8s.io", "resourceclaims") => {
            if old.get("spec") != new.get("spec") {
                causes.push(resource::immutable_spec(new));
            }
            &[]
        }
        _ => &[],
    };
    for field in fixed {
        if old.get(*field) != new.get(*field) {
            causes.push(immutable(field, &new[*field]));
        }
    }
    causes
}
