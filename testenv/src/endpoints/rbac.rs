//! The RBAC authorizer of kube-apiserver over the stored Roles, ClusterRoles and their
//! bindings: which rules apply to a user in a namespace, and whether they allow a request's
//! attributes. `system:masters` is allowed everything before RBAC is asked, as the real
//! server's privileged-group authorizer does.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::storage::Store;
use crate::support::user::User;

const ROLES: &str = "rbac.authorization.k8s.io/roles";
const CLUSTER_ROLES: &str = "rbac.authorization.k8s.io/clusterroles";
const BINDINGS: &str = "rbac.authorization.k8s.io/rolebindings";
const CLUSTER_BINDINGS: &str = "rbac.authorization.k8s.io/clusterrolebindings";

/// What a request asks to do, as the authorizer sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attributes {
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`, ...
    pub verb: String,
    /// The namespace, empty for cluster-wide requests.
    pub namespace: String,
    /// The API group of a resource request (empty for the core group).
    pub group: String,
    /// The resource (plural), empty for a non-resource request.
    pub resource: String,
    /// The subresource, if any.
    pub subresource: String,
    /// The object's name, if the request names one.
    pub name: String,
    /// The path of a non-resource request (`/healthz`, `/metrics`).
    pub path: Option<String>,
}

impl Attributes {
    /// The attributes of a SubjectAccessReview spec (`resourceAttributes` or
    /// `nonResourceAttributes`).
    pub fn of_review(spec: &Value) -> Self {
        let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
        if let Some(n) = spec.get("nonResourceAttributes").filter(|v| v.is_object()) {
            return Attributes {
                verb: s(&n["verb"]),
                path: Some(s(&n["path"])),
                ..Attributes::default()
            };
        }
        let r = &spec["resourceAttributes"];
        Attributes {
            verb: s(&r["verb"]),
            namespace: s(&r["namespace"]),
            group: s(&r["group"]),
            resource: s(&r["resource"]),
            subresource: s(&r["subresource"]),
            name: s(&r["name"]),
            path: None,
        }
    }
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn has(list: &Value, want: &str) -> bool {
    strings(list).iter().any(|x| *x == "*" || *x == want)
}

/// Whether one PolicyRule allows the attributes.
pub fn rule_allows(rule: &Value, a: &Attributes) -> bool {
    if !has(&rule["verbs"], &a.verb) {
        return false;
    }
    if let Some(path) = &a.path {
        return strings(&rule["nonResourceURLs"]).iter().any(|u| {
            *u == "*"
                || *u == path
                || u.strip_suffix('*')
                    .is_some_and(|prefix| path.starts_with(prefix))
        });
    }
    if !has(&rule["apiGroups"], &a.group) {
        return false;
    }
    let combined = if a.subresource.is_empty() {
        a.resource.clone()
    } else {
        format!("{}/{}", a.resource, a.subresource)
    };
    let resource_ok = strings(&rule["resources"]).iter().any(|r| {
        *r == "*"
            || *r == combined
            || (a.subresource.is_empty() && *r == a.resource)
            || (!a.subresource.is_empty()
                && (*r == format!("*/{}", a.subresource) || *r == format!("{}/*", a.resource)))
    });
    if !resource_ok {
        return false;
    }
    let names = strings(&rule["resourceNames"]);
    names.is_empty() || names.contains(&a.name.as_str())
}

fn subject_matches(subject: &Value, user: &User, binding_ns: &str) -> bool {
    let name = subject["name"].as_str().unwrap_or_default();
    match subject["kind"].as_str().unwrap_or_default() {
        "User" => name == user.username,
        "Group" => user.in_group(name),
        "ServiceAccount" => {
            let ns = subject["namespace"]
                .as_str()
                .filter(|s| !s.is_empty())
                .unwrap_or(binding_ns);
            user.username == format!("system:serviceaccount:{ns}:{name}")
        }
        _ => false,
    }
}

/// One binding that applies to a user, with the rules of the role it grants.
pub struct Grant {
    /// `ClusterRoleBinding "x" of ClusterRole "y"`, as the real server words it.
    pub describe: String,
    /// The role's rules.
    pub rules: Vec<Value>,
}

fn role_rules(store: &Store, binding: &Value, ns: &str) -> Vec<Value> {
    let role = &binding["roleRef"];
    let name = role["name"].as_str().unwrap_or_default();
    let found: Option<Arc<Value>> = match role["kind"].as_str() {
        Some("ClusterRole") => store.get(CLUSTER_ROLES, "", name),
        Some("Role") => store.get(ROLES, ns, name),
        _ => None,
    };
    found
        .and_then(|r| r["rules"].as_array().cloned())
        .unwrap_or_default()
}

/// The bindings that apply to `user` in `namespace` (cluster-wide ones first), with their
/// rules.
pub fn grants(store: &Store, user: &User, namespace: &str) -> Vec<Grant> {
    let mut out = Vec::new();
    let mut consider = |key: &str, only_ns: Option<&str>| {
        for ((ns, name), b) in store.bucket(key).into_iter().flatten() {
            if only_ns.is_some_and(|want| want != ns) {
                continue;
            }
            let subjects = b["subjects"].as_array().cloned().unwrap_or_default();
            let Some(subject) = subjects.iter().find(|s| subject_matches(s, user, ns)) else {
                continue;
            };
            let kind = if ns.is_empty() {
                "ClusterRoleBinding"
            } else {
                "RoleBinding"
            };
            let role_kind = b["roleRef"]["kind"].as_str().unwrap_or_default();
            let role_name = b["roleRef"]["name"].as_str().unwrap_or_default();
            let place = if ns.is_empty() {
                String::new()
            } else {
                format!(" in {ns}")
            };
            out.push(Grant {
                describe: format!(
                    "{kind} \"{name}\" of {role_kind} \"{role_name}\" to {} \"{}\"{place}",
                    subject["kind"].as_str().unwrap_or_default(),
                    subject["name"].as_str().unwrap_or_default()
                ),
                rules: role_rules(store, b, ns),
            });
        }
    };
    consider(CLUSTER_BINDINGS, None);
    if !namespace.is_empty() {
        consider(BINDINGS, Some(namespace));
    }
    out
}

/// Whether RBAC allows `user` the attributes; `Err` carries nothing, `Ok` the reason.
pub fn authorize(store: &Store, user: &User, a: &Attributes) -> Result<String, ()> {
    if user.in_group("system:masters") {
        return Ok(String::new());
    }
    for grant in grants(store, user, &a.namespace) {
        if grant.rules.iter().any(|r| rule_allows(r, a)) {
            return Ok(format!("RBAC: allowed by {}", grant.describe));
        }
    }
    Err(())
}

/// The real server's 403 message for a denied request.
pub fn forbidden_message(user: &User, a: &Attributes) -> String {
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
/// resource and non-resource rules.
pub fn rules_review(store: &Store, user: &User, namespace: &str) -> Value {
    let mut resource = Vec::new();
    let mut non_resource = Vec::new();
    for grant in grants(store, user, namespace) {
        for rule in grant.rules {
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
    json!({"resourceRules": resource, "nonResourceRules": non_resource, "incomplete": false})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_match_as_rbac_does() {
        let rule = json!({"verbs": ["get", "list"], "apiGroups": ["apps"], "resources": ["deployments", "deployments/scale"]});
        let a = |verb: &str, group: &str, resource: &str, sub: &str| Attributes {
            verb: verb.into(),
            group: group.into(),
            resource: resource.into(),
            subresource: sub.into(),
            ..Attributes::default()
        };
        assert!(rule_allows(&rule, &a("get", "apps", "deployments", "")));
        assert!(rule_allows(
            &rule,
            &a("get", "apps", "deployments", "scale")
        ));
        assert!(!rule_allows(
            &rule,
            &a("get", "apps", "deployments", "status")
        ));
        assert!(!rule_allows(&rule, &a("delete", "apps", "deployments", "")));
        assert!(!rule_allows(&rule, &a("get", "", "deployments", "")));
        let named = json!({"verbs": ["*"], "apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["x"]});
        let mut get_x = a("get", "", "configmaps", "");
        assert!(!rule_allows(&named, &get_x));
        get_x.name = "x".into();
        assert!(rule_allows(&named, &get_x));
        let urls = json!({"verbs": ["get"], "nonResourceURLs": ["/healthz", "/api/*"]});
        let path = |p: &str| Attributes {
            verb: "get".into(),
            path: Some(p.into()),
            ..Attributes::default()
        };
        assert!(rule_allows(&urls, &path("/healthz")));
        assert!(rule_allows(&urls, &path("/api/v1")));
        assert!(!rule_allows(&urls, &path("/metrics")));
    }

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
            forbidden_message(&user, &a),
            "pods is forbidden: User \"system:serviceaccount:probe:default\" cannot list resource \"pods\" in API group \"\" in the namespace \"probe\""
        );
    }
}
