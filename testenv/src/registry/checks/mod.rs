//! Kind-specific validation of built-in kinds beyond their schema, one file per group
//! family, worded as the real server words it: [`apps`] (workload selectors), [`cluster`]
//! (Leases, RuntimeClasses, EndpointSlices, FlowSchemas, ResourceClaims), [`events`]
//! (what a new Event must say).

pub mod apps;
mod causes;
pub mod cluster;
pub mod events;

use serde_json::Value;

use crate::support::status::Cause;

/// The checks of a create of a built-in `group`/`plural`.
pub fn create_causes(group: &str, plural: &str, object: &Value) -> Vec<Cause> {
    match (group, plural) {
        ("apps", _) => apps::create_causes(plural, object),
        ("" | "events.k8s.io", "events") => events::create_causes(group, object),
        _ => cluster::create_causes(group, plural, object),
    }
}

/// The checks of an update of a built-in `group`/`plural` (`old` is stored).
pub fn update_causes(group: &str, plural: &str, old: &Value, new: &Value) -> Vec<Cause> {
    match group {
        "apps" => apps::update_causes(plural, old, new),
        _ => cluster::update_causes(group, plural, old, new),
    }
}
