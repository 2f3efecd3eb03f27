//! Admin access to devices (`AuthorizedForAdmin` of the ResourceClaim and ResourceClaimTemplate
//! strategies): a request asking for `adminAccess` is allowed only in a namespace labelled
//! `resource.kubernetes.io/admin-access: "true"`, checked when the object is created (an
//! update, which cannot change the requests, is not checked again). The first such request
//! is the one named.

use serde_json::Value;

use crate::registry::builtin::validation::errors::forbidden;
use crate::storage::Store;
use crate::support::status::Cause;

/// The label a namespace needs for claims with admin access.
const LABEL: &str = "resource.kubernetes.io/admin-access";

/// The error of a ResourceClaim or ResourceClaimTemplate (`plural`) asking for admin access
/// in namespace `ns` when that namespace lacks the label.
pub fn causes(store: &Store, group: &str, plural: &str, ns: &str, object: &Value) -> Vec<Cause> {
    let spec = match (group, plural) {
        ("resource.k8s.io", "resourceclaims") => &object["spec"],
        ("resource.k8s.io", "resourceclaimtemplates") => &object["spec"]["spec"],
        _ => return Vec::new(),
    };
    let requests = spec["devices"]["requests"].as_array().into_iter().flatten();
    let Some(i) = requests
        .enumerate()
        .find(|(_, r)| r["exactly"]["adminAccess"] == Value::Bool(true))
        .map(|(i, _)| i)
    else {
        return Vec::new();
    };
    let labelled = store
        .get("/namespaces", "", ns)
        .is_some_and(|n| n["metadata"]["labels"][LABEL] == "true");
    if labelled {
        return Vec::new();
    }
    vec![forbidden(
        &format!("spec.devices.requests[{i}].adminAccess"),
        &format!(
            "admin access to devices requires the `{LABEL}: true` label on the containing namespace"
        ),
    )]
}
