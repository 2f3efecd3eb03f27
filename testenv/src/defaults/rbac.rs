//! `rbac.authorization.k8s.io/v1` defaults: RoleBinding and ClusterRoleBinding.

use super::{each_object, object_mut, set_default_str};
use serde_json::Value;

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// `SetDefaults_RoleBinding` / `SetDefaults_ClusterRoleBinding` / `SetDefaults_Subject`:
/// `roleRef.apiGroup` and User/Group subjects' `apiGroup` default to the RBAC group
/// (ServiceAccount subjects keep the core group, `""`).
pub fn role_binding(object: &mut Value) {
    let Some(o) = object.as_object_mut() else {
        return;
    };
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

#[cfg(test)]
mod tests {
    use super::super::apply_builtin_defaults;
    use serde_json::json;

    #[test]
    fn binding_defaults() {
        let mut b = json!({"roleRef": {"kind": "Role", "name": "r"},
            "subjects": [{"kind": "User", "name": "u"}, {"kind": "ServiceAccount", "name": "sa", "namespace": "n"}]});
        apply_builtin_defaults("rbac.authorization.k8s.io", "v1", "RoleBinding", &mut b);
        assert_eq!(b["roleRef"]["apiGroup"], "rbac.authorization.k8s.io");
        assert_eq!(b["subjects"][0]["apiGroup"], "rbac.authorization.k8s.io");
        assert!(b["subjects"][1].get("apiGroup").is_none());
    }
}
