//! RBAC (`pkg/apis/rbac/validation`): the rules of Roles and ClusterRoles, and the role
//! reference and subjects of bindings, whose role reference never changes.

use serde_json::Value;

use super::errors::{
    Errors, child, dns1123_subdomain, index, invalid_str, invalid_text, not_supported, required,
    required_because,
};
use super::label_selector::label_selector_with_values;

const GROUP: &str = "rbac.authorization.k8s.io";

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// `IsValidPathSegmentName`: the name rule of roles and their references.
pub fn path_segment(name: &str) -> Vec<String> {
    if name == "." || name == ".." {
        return vec![format!("may not be '{name}'")];
    }
    let mut out = Vec::new();
    for bad in ["/", "%"] {
        if name.contains(bad) {
            out.push(format!("may not contain '{bad}'"));
        }
    }
    out
}

/// `validatePolicyRule` of the rule at `path`.
fn rule(rule: &Value, namespaced: bool, path: &str) -> Errors {
    let mut out = Vec::new();
    let len = |f: &str| items(&rule[f]).len();
    if len("verbs") == 0 {
        out.push(required_because(
            &child(path, "verbs"),
            "verbs must contain at least one value",
        ));
    }
    if len("nonResourceURLs") > 0 {
        let urls = &rule["nonResourceURLs"];
        if namespaced {
            out.push(super::errors::invalid(
                &child(path, "nonResourceURLs"),
                urls,
                "namespaced rules cannot apply to non-resource URLs",
            ));
        }
        if len("apiGroups") > 0 || len("resources") > 0 || len("resourceNames") > 0 {
            out.push(super::errors::invalid(
                &child(path, "nonResourceURLs"),
                urls,
                "rules cannot apply to both regular resources and non-resource URLs",
            ));
        }
        return out;
    }
    if len("apiGroups") == 0 {
        out.push(required_because(
            &child(path, "apiGroups"),
            "resource rules must supply at least one api group",
        ));
    }
    if len("resources") == 0 {
        out.push(required_because(
            &child(path, "resources"),
            "resource rules must supply at least one resource",
        ));
    }
    out
}

/// `ValidateRole` and `ValidateClusterRole` (without the metadata): the rules, and a
/// ClusterRole's aggregation rule, which selects at least one role when it is there.
pub fn role(object: &Value, namespaced: bool) -> Errors {
    let mut out: Errors = items(&object["rules"])
        .iter()
        .enumerate()
        .flat_map(|(i, r)| rule(r, namespaced, &index("rules", i)))
        .collect();
    let aggregation = &object["aggregationRule"];
    if namespaced || !aggregation.is_object() {
        return out;
    }
    let selectors = items(&aggregation["clusterRoleSelectors"]);
    if selectors.is_empty() {
        out.push(required_because(
            "aggregationRule.clusterRoleSelectors",
            "at least one clusterRoleSelector required if aggregationRule is non-nil",
        ));
    }
    for (i, selector) in selectors.iter().enumerate() {
        out.extend(cluster_role_selector(
            selector,
            &index("aggregationRule.clusterRoleSelectors", i),
        ));
    }
    out
}

/// One of a ClusterRole's aggregation selectors at `path`: `ValidateLabelSelector` with its
/// values checked as label values (its labels, then its expressions), and, when that finds
/// anything, the selector's failed conversion (`invalid label selector.`, of a nil selector).
fn cluster_role_selector(selector: &Value, path: &str) -> Errors {
    let mut out = label_selector_with_values(selector, path);
    if !out.is_empty() {
        out.push(super::errors::invalid(
            path,
            &Value::Null,
            "invalid label selector.",
        ));
    }
    out
}

/// `validateRoleBindingSubject`.
fn subject(subject: &Value, namespaced: bool, path: &str) -> Errors {
    let mut out = Vec::new();
    let name = text(subject, "name");
    let group = text(subject, "apiGroup");
    if name.is_empty() {
        out.push(required(&child(path, "name")));
    }
    match text(subject, "kind") {
        "ServiceAccount" => {
            if !name.is_empty() {
                for why in dns1123_subdomain(name) {
                    out.push(invalid_str(&child(path, "name"), name, &why));
                }
            }
            if !group.is_empty() {
                out.push(not_supported(&child(path, "apiGroup"), group, &[""]));
            }
            if !namespaced && text(subject, "namespace").is_empty() {
                out.push(required(&child(path, "namespace")));
            }
        }
        "User" | "Group" => {
            if group != GROUP {
                out.push(not_supported(&child(path, "apiGroup"), group, &[GROUP]));
            }
        }
        other => out.push(not_supported(
            &child(path, "kind"),
            other,
            &["ServiceAccount", "User", "Group"],
        )),
    }
    out
}

/// `ValidateRoleBinding` and `ValidateClusterRoleBinding` (without the metadata).
pub fn role_binding(object: &Value, namespaced: bool) -> Errors {
    let role_ref = &object["roleRef"];
    let mut out = Vec::new();
    let group = text(role_ref, "apiGroup");
    if group != GROUP {
        out.push(not_supported("roleRef.apiGroup", group, &[GROUP]));
    }
    let kinds: &[&str] = if namespaced {
        &["Role", "ClusterRole"]
    } else {
        &["ClusterRole"]
    };
    let kind = text(role_ref, "kind");
    if !kinds.contains(&kind) {
        out.push(not_supported("roleRef.kind", kind, kinds));
    }
    match text(role_ref, "name") {
        "" => out.push(required("roleRef.name")),
        name => {
            for why in path_segment(name) {
                out.push(invalid_str("roleRef.name", name, &why));
            }
        }
    }
    for (i, s) in items(&object["subjects"]).iter().enumerate() {
        out.extend(subject(s, namespaced, &index("subjects", i)));
    }
    out
}

/// A binding's role reference never changes (printed as the Go struct).
pub fn role_binding_update(object: &Value, old: &Value) -> Errors {
    let (new, old) = (&object["roleRef"], &old["roleRef"]);
    let fields = ["apiGroup", "kind", "name"];
    if fields.iter().all(|f| text(new, f) == text(old, f)) {
        return Vec::new();
    }
    let value = format!(
        "{{\"APIGroup\":{:?},\"Kind\":{:?},\"Name\":{:?}}}",
        text(new, "apiGroup"),
        text(new, "kind"),
        text(new, "name")
    );
    vec![invalid_text("roleRef", &value, "cannot change roleRef")]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bindings_name_a_role_and_known_subjects() {
        let rb = json!({"roleRef": {"apiGroup": GROUP, "kind": "Secret", "name": "x"},
            "subjects": [{"kind": "Robot", "name": "r"}, {"kind": "User", "name": "u"}]});
        let errs = role_binding(&rb, true);
        let fields: Vec<&str> = errs.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(
            fields,
            ["roleRef.kind", "subjects[0].kind", "subjects[1].apiGroup"]
        );
        let crb = json!({"roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": "x"},
            "subjects": [{"kind": "ServiceAccount", "name": "s"}]});
        assert_eq!(role_binding(&crb, false)[0].field, "subjects[0].namespace");
    }

    #[test]
    fn rules_need_verbs_groups_and_resources() {
        let r = json!({"rules": [{"verbs": ["get"], "nonResourceURLs": ["/x"]}]});
        assert_eq!(role(&r, true).len(), 1);
        assert!(role(&r, false).is_empty());
        let r = json!({"rules": [{}]});
        assert_eq!(role(&r, false).len(), 3);
        let r = json!({"rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["a", "b"], "resourceNames": ["n"]}]});
        assert!(role(&r, true).is_empty());
    }
}
