//! Admin access to devices (`AuthorizedForAdmin` and `AuthorizedForAdminStatus` of the
//! ResourceClaim and ResourceClaimTemplate strategies): a request or an allocated device
//! with `adminAccess` is allowed only in a namespace labelled
//! `resource.kubernetes.io/admin-access: "true"`. The strategies check it as the first part
//! of their validation, so its error leads the list of the same 422:
//! - on create, the first request asking for it ([`causes`]; an update, which cannot change
//!   the requests, is not checked again);
//! - on a claim's status update, the first result of the new allocation granting it, unless
//!   the stored allocation already granted it to one of its results ([`status_causes`]).

use serde_json::Value;

use crate::registry::builtin::validation::errors::forbidden;
use crate::storage::Store;
use crate::support::resource::ResourceDef;
use crate::support::status::{ApiError, Cause};

/// The label a namespace needs for claims with admin access.
const LABEL: &str = "resource.kubernetes.io/admin-access";

/// Whether `plural` of `group` is the ResourceClaim resource.
fn is_claim(group: &str, plural: &str) -> bool {
    group == "resource.k8s.io" && plural == "resourceclaims"
}

/// The refusal at `path` unless namespace `ns` carries the label.
fn unless_labelled(store: &Store, ns: &str, path: &str) -> Vec<Cause> {
    let labelled = store
        .get("/namespaces", "", ns)
        .is_some_and(|n| n["metadata"]["labels"][LABEL] == "true");
    if labelled {
        return Vec::new();
    }
    vec![forbidden(
        path,
        &format!(
            "admin access to devices requires the `{LABEL}: true` label on the containing namespace"
        ),
    )]
}

/// The index of the first item of `list` whose `field` (a JSON pointer) is `true`.
fn first_granted(list: &Value, field: &str) -> Option<usize> {
    list.as_array()?
        .iter()
        .position(|item| item.pointer(field) == Some(&Value::Bool(true)))
}

/// The error of a ResourceClaim or ResourceClaimTemplate (`plural`) created in namespace
/// `ns` asking for admin access when that namespace lacks the label: the first validation
/// error of the create.
pub fn causes(store: &Store, group: &str, plural: &str, ns: &str, object: &Value) -> Vec<Cause> {
    let spec = match (group, plural) {
        ("resource.k8s.io", "resourceclaims") => &object["spec"],
        ("resource.k8s.io", "resourceclaimtemplates") => &object["spec"]["spec"],
        _ => return Vec::new(),
    };
    match first_granted(&spec["devices"]["requests"], "/exactly/adminAccess") {
        Some(i) => unless_labelled(
            store,
            ns,
            &format!("spec.devices.requests[{i}].adminAccess"),
        ),
        None => Vec::new(),
    }
}

/// The error of a claim's status update (`new` replacing the stored `old`) in namespace `ns`
/// whose allocation grants admin access to a device when that namespace lacks the label: the
/// first validation error of the update. An allocation that already granted it is not
/// checked again (an allocation cannot change once set).
pub fn status_causes(
    store: &Store,
    group: &str,
    plural: &str,
    ns: &str,
    new: &Value,
    old: &Value,
) -> Vec<Cause> {
    if !is_claim(group, plural) {
        return Vec::new();
    }
    let results = |claim: &Value| claim["status"]["allocation"]["devices"]["results"].clone();
    if first_granted(&results(old), "/adminAccess").is_some() {
        return Vec::new();
    }
    match first_granted(&results(new), "/adminAccess") {
        Some(i) => unless_labelled(
            store,
            ns,
            &format!("status.allocation.devices.results[{i}].adminAccess"),
        ),
        None => Vec::new(),
    }
}

/// The create's refusal with the admin access error (`admin`, when there is one) first: the
/// rest of the validation refused the object with `err`, a 422 whose causes follow it; any
/// other refusal is kept as it is.
pub fn lead(def: &ResourceDef, name: &str, admin: &[Cause], err: ApiError) -> ApiError {
    if admin.is_empty() || err.code != 422 || err.reason != "Invalid" {
        return err;
    }
    let text = |c: &Value, f: &str| c[f].as_str().unwrap_or_default().to_string();
    let mut causes = admin.to_vec();
    causes.extend(
        err.details["causes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| Cause {
                reason: text(c, "reason"),
                message: text(c, "message"),
                field: text(c, "field"),
            }),
    );
    let mut joined = ApiError::invalid(def, name, causes);
    joined.warnings = err.warnings;
    joined
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn store_with(labels: Value) -> Store {
        let mut store = Store::new(100);
        store.put(
            "/namespaces",
            "",
            "ns",
            json!({"metadata": {"name": "ns", "labels": labels}}),
        );
        store
    }

    fn allocated(flags: &[Option<bool>]) -> Value {
        let results: Vec<Value> = flags
            .iter()
            .map(|f| match f {
                Some(b) => json!({"request": "r", "adminAccess": b}),
                None => json!({"request": "r"}),
            })
            .collect();
        json!({"status": {"allocation": {"devices": {"results": results}}}})
    }

    #[test]
    fn a_new_allocation_granting_admin_access_needs_the_label() {
        let store = store_with(json!({}));
        let new = allocated(&[Some(false), Some(true), Some(true)]);
        let causes = status_causes(
            &store,
            "resource.k8s.io",
            "resourceclaims",
            "ns",
            &new,
            &json!({}),
        );
        assert_eq!(causes.len(), 1);
        assert_eq!(
            causes[0].field,
            "status.allocation.devices.results[1].adminAccess"
        );
        assert!(causes[0].message.starts_with("Forbidden: admin access"));
        let labelled = store_with(json!({LABEL: "true"}));
        assert!(
            status_causes(
                &labelled,
                "resource.k8s.io",
                "resourceclaims",
                "ns",
                &new,
                &json!({})
            )
            .is_empty()
        );
    }

    #[test]
    fn an_allocation_that_granted_admin_access_is_not_checked_again() {
        let store = store_with(json!({LABEL: "false"}));
        let old = allocated(&[None, Some(true)]);
        let new = allocated(&[Some(true)]);
        let check = |old: &Value| {
            status_causes(&store, "resource.k8s.io", "resourceclaims", "ns", &new, old)
        };
        assert!(check(&old).is_empty());
        assert_eq!(check(&allocated(&[Some(false)])).len(), 1);
    }

    #[test]
    fn a_request_asking_for_admin_access_is_named() {
        let store = store_with(json!({}));
        let claim = json!({"spec": {"devices": {"requests": [
            {"name": "a", "exactly": {"adminAccess": false}},
            {"name": "b", "exactly": {"adminAccess": true}},
        ]}}});
        let causes = causes(&store, "resource.k8s.io", "resourceclaims", "ns", &claim);
        assert_eq!(causes[0].field, "spec.devices.requests[1].adminAccess");
        let template = json!({"spec": claim});
        let causes = super::causes(
            &store,
            "resource.k8s.io",
            "resourceclaimtemplates",
            "ns",
            &template,
        );
        assert_eq!(causes[0].field, "spec.devices.requests[1].adminAccess");
    }
}
