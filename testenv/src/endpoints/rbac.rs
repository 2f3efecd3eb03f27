//! RBAC as the endpoints use it: the request authorization's decision (made by
//! [`crate::admission::policies::rbac`], which admission policies' `authorizer` shares),
//! the real server's 403 message, and the rules of a SelfSubjectRulesReview.

use serde_json::{Value, json};

use crate::admission::policies::rbac::{decide, grants, resolution_error};
use crate::storage::Store;
use crate::support::user::User;

pub use crate::registry::schema::cel_types::authz::Attributes;

/// Whether RBAC allows `user` the attributes, with RBAC's reason either way: why it allows
/// (none for `system:masters`), or the roles its bindings name that are missing (none when
/// all exist).
pub fn authorize(store: &Store, user: &User, a: &Attributes) -> Result<String, String> {
    let decision = decide(store, user, a);
    if decision.allowed {
        Ok(decision.reason)
    } else {
        Err(decision.reason)
    }
}

/// The real server's 403 message for a denied request, ending with the authorizer's reason
/// when it gives one (`: RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`).
pub fn forbidden_message(user: &User, a: &Attributes, reason: &str) -> String {
    let message = denial(user, a);
    if reason.is_empty() {
        message
    } else {
        format!("{message}: {reason}")
    }
}

/// The 403 message without a reason.
fn denial(user: &User, a: &Attributes) -> String {
    if let Some(path) = &a.path {
        return format!(
            "forbidden: User \"{}\" cannot {} path \"{path}\"",
            user.username, a.verb
        );
    }
    let what = if a.subresource.is_empty() {
        format!("resource \"{}\"", a.resource)
    } else {
        format!("resource \"{}/{}\"", a.resource, a.subresource)
    };
    let place = if a.namespace.is_empty() {
        "at the cluster scope".to_string()
    } else {
        format!("in the namespace \"{}\"", a.namespace)
    };
    let subject = if a.name.is_empty() {
        a.resource.clone()
    } else {
        format!("{} \"{}\"", a.resource, a.name)
    };
    let subject = if a.group.is_empty() {
        subject
    } else {
        subject.replacen(&a.resource, &format!("{}.{}", a.resource, a.group), 1)
    };
    format!(
        "{subject} is forbidden: User \"{}\" cannot {} {what} in API group \"{}\" {place}",
        user.username, a.verb, a.group
    )
}

/// The rules of a SelfSubjectRulesReview: every rule granted in `namespace`, split into
/// resource and non-resource rules, and the bindings' resolution errors as its
/// `evaluationError`.
pub fn rules_review(store: &Store, user: &User, namespace: &str) -> Value {
    let mut resource = Vec::new();
    let mut non_resource = Vec::new();
    for grant in grants(store, user, namespace) {
        for rule in grant.rules.unwrap_or_default() {
            let verbs = rule["verbs"].clone();
            if rule
                .get("nonResourceURLs")
                .is_some_and(serde_json::Value::is_array)
            {
                non_resource
                    .push(json!({"verbs": verbs, "nonResourceURLs": rule["nonResourceURLs"]}));
            }
            if rule
                .get("resources")
                .is_some_and(serde_json::Value::is_array)
            {
                let mut r = json!({"verbs": verbs, "apiGroups": rule["apiGroups"], "resources": rule["resources"]});
                if rule
                    .get("resourceNames")
                    .is_some_and(serde_json::Value::is_array)
                {
                    r["resourceNames"] = rule["resourceNames"].clone();
                }
                resource.push(r);
            }
        }
    }
    let mut status =
        json!({"resourceRules": resource, "nonResourceRules": non_resource, "incomplete": false});
    if let Some(error) = resolution_error(store, user, namespace) {
        status["evaluationError"] = json!(error);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_messages_read_as_the_real_servers() {
        let user = User {
            username: "system:serviceaccount:probe:default".into(),
            ..User::default()
        };
        let a = Attributes {
            verb: "list".into(),
            namespace: "probe".into(),
            resource: "pods".into(),
            ..Attributes::default()
        };
        assert_eq!(
            forbidden_message(&user, &a, ""),
            "pods is forbidden: User \"system:serviceaccount:probe:default\" cannot list resource \"pods\" in API group \"\" in the namespace \"probe\""
        );
        assert_eq!(
            forbidden_message(
                &user,
                &a,
                "RBAC: role.rbac.authorization.k8s.io \"x\" not found"
            ),
            "pods is forbidden: User \"system:serviceaccount:probe:default\" cannot list resource \"pods\" in API group \"\" in the namespace \"probe\": RBAC: role.rbac.authorization.k8s.io \"x\" not found"
        );
    }
}
