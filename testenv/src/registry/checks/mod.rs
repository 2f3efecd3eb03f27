//! Kind-specific checks of built-in kinds of the cluster and event groups beyond their
//! schema, worded as the real server words them: [`cluster`] (Leases, ControllerRevisions,
//! ResourceClaims), [`namespace`] (a Namespace's finalizers), [`admin_access`] (claims asking for admin
//! access to devices), [`events`] (what an Event must say, and what
//! it may not change).
//! The core and workload kinds' validation is `builtin::validation`'s.

pub mod admin_access;
pub mod cluster;
pub mod events;
pub mod namespace;

use serde_json::Value;

use crate::support::status::Cause;

/// The checks of a create of a built-in `group`/`plural`.
pub fn create_causes(group: &str, plural: &str, object: &Value) -> Vec<Cause> {
    match (group, plural) {
        ("" | "events.k8s.io", "events") => events::create_causes(group, object),
        ("", "namespaces") => namespace::create_causes(object),
        _ => cluster::create_causes(group, plural, object),
    }
}

/// The checks of an update of a built-in `group`/`plural` (`old` is stored).
pub fn update_causes(group: &str, plural: &str, old: &Value, new: &Value) -> Vec<Cause> {
    match (group, plural) {
        ("" | "events.k8s.io", "events") => events::update_causes(group, old, new),
        _ => cluster::update_causes(group, plural, old, new),
    }
}
