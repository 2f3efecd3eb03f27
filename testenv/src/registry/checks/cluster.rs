//! Checks of cluster-facing kinds: Lease durations, a ControllerRevision's data and
//! revision (a claim's and its template's checks are the kinds' validation). RuntimeClasses, EndpointSlices and DeviceClasses are validated with
//! the built-in kinds (`builtin::validation`).

use serde_json::Value;

use crate::support::json_order::raw_bytes;
use crate::support::status::Cause;

use crate::registry::builtin::validation::errors::{
    immutable, invalid, invalid_text, required_because,
};

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

/// Checks of a create of `group`/`plural`.
pub fn create_causes(group: &str, plural: &str, object: &Value) -> Vec<Cause> {
    match (group, plural) {
        ("coordination.k8s.io", "leases") => lease(object),
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

/// Checks of an update of `group`/`plural` from `old` to `new`: the create checks (a
/// ControllerRevision's own).
pub fn update_causes(group: &str, plural: &str, old: &Value, new: &Value) -> Vec<Cause> {
    // `ValidateControllerRevisionUpdate`: the data may not change, the revision not go
    // negative (the create checks are not made again).
    if (group, plural) == ("apps", "controllerrevisions") {
        let mut causes = Vec::new();
        // The real server compares the bytes kept (the same value in another spelling is
        // a change) and prints the new ones.
        match raw_bytes::changed_text(old, new, "data") {
            Some(text) => causes.push(invalid_text("data", &text, "field is immutable")),
            None if old.get("data") != new.get("data") => {
                causes.push(immutable("data", &new["data"]));
            }
            None => {}
        }
        causes.extend(non_negative_revision(new));
        return causes;
    }
    create_causes(group, plural, new)
}
