//! `rbac.authorization.k8s.io/v1` defaults: RoleBinding and ClusterRoleBinding.

use super::fields::{each_object, object_mut, set_default_str};
use serde_json::Value;

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// `SetDefaults_RoleBinding` / `SetDefaults_ClusterRoleBinding` / `SetDefaults_Subject`:
/// `roleRef.apiGroup` and User/Group subjects' `apiGroup` default to the RBAC group
/// (ServiceAccount subjects keep the core group, `""`).
pub fn role_binding(object: &mut Value) {
    let Some(o) = object.as_object_mut() else {
        return;
    };
    // `roleRef` is a struct Go always has: defaulted even when the request left it out.
    if !o.get("roleRef").is_some_and(Value::is_object) {
        o.insert("roleRef".into(), Value::Object(serde_json::Map::new()));
    }
    if let Some(role_ref) = object_mut(o, "roleRef") {
        set_default_str(role_ref, "apiGroup", RBAC_GROUP);
    }
    for subject in each_object(o, "subjects") {
        let kind = subject.get("kind").and_then(Value::as_str).unwrap_or("");
        if matches!(kind, "User" | "Group") {
            set_default_str(subject, "apiGroup", RBAC_GROUP);
        }
    }
}
