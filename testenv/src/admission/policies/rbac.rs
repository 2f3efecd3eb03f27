//! The RBAC authorizer of kube-apiserver over the stored Roles, ClusterRoles and their
//! bindings: which rules apply to a user in a namespace, and whether they allow an
//! authorization check, with RBAC's reasons. `system:masters` is allowed everything before
//! RBAC is asked (with no reason), as the real server's privileged-group authorizer does.
//!
//! The request authorization of the endpoints and the `authorizer` of admission policies
//! both decide here; admission gets a [`Snapshot`] of the RBAC objects, which the CEL
//! values it binds can keep.

use std::sync::Arc;

use serde_json::Value;

use crate::registry::schema::cel_types::authz::{Attributes, Authorize, Decision};
use crate::storage::Store;
use crate::storage::store::Bucket;
use crate::support::user::User;

const ROLES: &str = "rbac.authorization.k8s.io/roles";
const CLUSTER_ROLES: &str = "rbac.authorization.k8s.io/clusterroles";
const BINDINGS: &str = "rbac.authorization.k8s.io/rolebindings";
const CLUSTER_BINDINGS: &str = "rbac.authorization.k8s.io/clusterrolebindings";

/// Where the RBAC objects are read from: the store, or a snapshot of it.
pub trait Objects {
    /// The stored objects of one RBAC resource (`rolebindings`, ...), if any.
    fn rbac_bucket(&self, key: &str) -> Option<&Bucket>;
}

impl Objects for Store {
    fn rbac_bucket(&self, key: &str) -> Option<&Bucket> {
        self.bucket(key)
    }
}

/// The RBAC objects of a store at one moment, for an authorizer that outlives the lock.
#[derive(Debug, Default)]
pub struct Snapshot {
    buckets: [(&'static str, Bucket); 4],
}

impl Snapshot {
    /// Copies the roles, cluster roles and their bindings of `store`.
    pub fn of(store: &Store) -> Self {
        let copy = |key: &'static str| (key, store.bucket(key).cloned().unwrap_or_default());
        Snapshot {
            buckets: [
                copy(ROLES),
                copy(CLUSTER_ROLES),
                copy(BINDINGS),
                copy(CLUSTER_BINDINGS),
            ],
        }
    }
}

impl Objects for Snapshot {
    fn rbac_bucket(&self, key: &str) -> Option<&Bucket> {
        self.buckets.iter().find(|(k, _)| *k == key).map(|(_, b)| b)
    }
}

impl Authorize for Snapshot {
    fn authorize(&self, user: &User, attributes: &Attributes) -> Decision {
        decide(self, user, attributes)
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

/// Whether one PolicyRule allows the attributes (RBAC's `RuleAllows`).
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
            || (!a.subresource.is_empty() && r.strip_prefix("*/") == Some(a.subresource.as_str()))
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
            !ns.is_empty() && user.username == format!("system:serviceaccount:{ns}:{name}")
        }
        _ => false,
    }
}

/// One binding that applies to a user, with the rules of the role it grants.
pub struct Grant {
    /// `ClusterRoleBinding "x" of ClusterRole "y" to User "z"`, as RBAC words it.
    pub describe: String,
    /// The role's rules, or why there are none.
    pub rules: Result<Vec<Value>, RoleError>,
}

/// Why the role a binding names gives no rules.
#[derive(Debug, Clone, PartialEq)]
pub enum RoleError {
    /// The role does not exist: its resource (`role`, `clusterrole`) and name.
    NotFound {
        /// `role` or `clusterrole`.
        resource: &'static str,
        /// The role's name.
        name: String,
    },
    /// The binding names a kind that is no role.
    UnsupportedKind(String),
}

impl std::fmt::Display for RoleError {
    /// The resolver's error: `clusterrole.rbac.authorization.k8s.io "y" not found`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RoleError::NotFound { resource, name } => {
                write!(
                    f,
                    "{resource}.rbac.authorization.k8s.io \"{name}\" not found"
                )
            }
            RoleError::UnsupportedKind(kind) => {
                write!(f, "unsupported role reference kind: \"{kind}\"")
            }
        }
    }
}

/// The rules of the role `role_ref` names, for a binding in `ns` (empty: a cluster role
/// binding).
pub fn role_ref_rules(
    objects: &dyn Objects,
    role_ref: &Value,
    ns: &str,
) -> Result<Vec<Value>, RoleError> {
    let name = role_ref["name"].as_str().unwrap_or_default();
    let (key, resource, role_ns) = match role_ref["kind"].as_str().unwrap_or_default() {
        "ClusterRole" => (CLUSTER_ROLES, "clusterrole", ""),
        "Role" => (ROLES, "role", ns),
        other => return Err(RoleError::UnsupportedKind(other.to_string())),
    };
    let found: Option<&Arc<Value>> = objects
        .rbac_bucket(key)
        .and_then(|b| b.get(&(role_ns.to_string(), name.to_string())));
    match found {
        Some(r) => Ok(r["rules"].as_array().cloned().unwrap_or_default()),
        None => Err(RoleError::NotFound {
            resource,
            name: name.to_string(),
        }),
    }
}

fn describe_subject(subject: &Value, binding_ns: &str) -> String {
    let kind = subject["kind"].as_str().unwrap_or_default();
    let name = subject["name"].as_str().unwrap_or_default();
    if kind == "ServiceAccount" {
        let ns = subject["namespace"]
            .as_str()
            .filter(|s| !s.is_empty())
            .unwrap_or(binding_ns);
        return format!("{kind} \"{name}/{ns}\"");
    }
    format!("{kind} \"{name}\"")
}

/// The bindings that apply to `user` in `namespace` (cluster-wide ones first), with their
/// rules.
pub fn grants(objects: &dyn Objects, user: &User, namespace: &str) -> Vec<Grant> {
    let mut out = Vec::new();
    let mut consider = |key: &str, only_ns: Option<&str>| {
        for ((ns, name), b) in objects.rbac_bucket(key).into_iter().flatten() {
            if only_ns.is_some_and(|want| want != ns) {
                continue;
            }
            let subjects = b["subjects"].as_array().cloned().unwrap_or_default();
            let Some(subject) = subjects.iter().find(|s| subject_matches(s, user, ns)) else {
                continue;
            };
            let role_kind = b["roleRef"]["kind"].as_str().unwrap_or_default();
            let role_name = b["roleRef"]["name"].as_str().unwrap_or_default();
            let binding = if ns.is_empty() {
                format!("ClusterRoleBinding \"{name}\"")
            } else {
                format!("RoleBinding \"{name}/{ns}\"")
            };
            out.push(Grant {
                describe: format!(
                    "{binding} of {role_kind} \"{role_name}\" to {}",
                    describe_subject(subject, ns)
                ),
                rules: role_ref_rules(objects, &b["roleRef"], ns),
            });
        }
    };
    consider(CLUSTER_BINDINGS, None);
    if !namespace.is_empty() {
        consider(BINDINGS, Some(namespace));
    }
    out
}

/// Why RBAC could not give all the rules `user` holds in `namespace` (the resolution errors of
/// its bindings, as a SelfSubjectRulesReview's `evaluationError` words them); `None` when
/// every role a binding names exists.
pub fn resolution_error(objects: &dyn Objects, user: &User, namespace: &str) -> Option<String> {
    let errors: Vec<String> = grants(objects, user, namespace)
        .into_iter()
        .filter_map(|g| g.rules.err().map(|e| e.to_string()))
        .collect();
    (!errors.is_empty()).then(|| go_aggregate(&errors))
}

/// Several errors as Go's `utilerrors.Aggregate` prints them: one alone as it is, more in
/// brackets, each distinct message once.
fn go_aggregate(errors: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errors {
        if !seen.contains(&e.as_str()) {
            seen.push(e);
        }
    }
    match seen.as_slice() {
        [one] => (*one).to_string(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// The decision of the real server's authorizer chain (privileged groups, then RBAC):
/// `system:masters` is allowed with no reason; a rule that allows gives `RBAC: allowed by
/// <binding>`; a denial has no reason unless a binding names a role that does not exist
/// (`RBAC: <error>`, several as `RBAC: [<e1>, <e2>]`).
pub fn decide(objects: &dyn Objects, user: &User, a: &Attributes) -> Decision {
    if user.in_group("system:masters") {
        return Decision {
            allowed: true,
            ..Decision::default()
        };
    }
    let mut errors = Vec::new();
    for grant in grants(objects, user, &a.namespace) {
        match grant.rules {
            Ok(rules) if rules.iter().any(|r| rule_allows(r, a)) => {
                return Decision {
                    allowed: true,
                    reason: format!("RBAC: allowed by {}", grant.describe),
                    error: None,
                };
            }
            Ok(_) => {}
            Err(e) => errors.push(e.to_string()),
        }
    }
    let reason = if errors.is_empty() {
        String::new()
    } else {
        format!("RBAC: {}", go_aggregate(&errors))
    };
    Decision {
        allowed: false,
        reason,
        error: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rules_match_as_rbac_does() {
        let rule = json!({"verbs": ["get", "list"], "apiGroups": ["apps"], "resources": ["deployments", "deployments/scale", "*/status"]});
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
        assert!(rule_allows(
            &rule,
            &a("get", "apps", "statefulsets", "status")
        ));
        assert!(!rule_allows(
            &rule,
            &a("get", "apps", "deployments", "rollback")
        ));
        assert!(!rule_allows(&rule, &a("delete", "apps", "deployments", "")));
        assert!(!rule_allows(&rule, &a("get", "", "deployments", "")));
        // `deployments/*` is no wildcard to RBAC.
        let slash_star =
            json!({"verbs": ["get"], "apiGroups": ["apps"], "resources": ["deployments/*"]});
        assert!(!rule_allows(
            &slash_star,
            &a("get", "apps", "deployments", "scale")
        ));
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

    fn bucket(items: &[(&str, &str, Value)]) -> Bucket {
        items
            .iter()
            .map(|(ns, name, v)| ((ns.to_string(), name.to_string()), Arc::new(v.clone())))
            .collect()
    }

    #[test]
    fn decisions_carry_rbacs_reasons() {
        let snapshot = Snapshot {
            buckets: [
                (
                    ROLES,
                    bucket(&[(
                        "team",
                        "reader",
                        json!({"rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]}),
                    )]),
                ),
                (CLUSTER_ROLES, Bucket::new()),
                (
                    BINDINGS,
                    bucket(&[
                        (
                            "team",
                            "reads",
                            json!({"roleRef": {"kind": "Role", "name": "reader"},
                            "subjects": [{"kind": "ServiceAccount", "name": "bot"}]}),
                        ),
                        (
                            "team",
                            "dangling",
                            json!({"roleRef": {"kind": "ClusterRole", "name": "gone"},
                            "subjects": [{"kind": "Group", "name": "system:serviceaccounts"}]}),
                        ),
                    ]),
                ),
                (CLUSTER_BINDINGS, Bucket::new()),
            ],
        };
        let bot = User {
            username: "system:serviceaccount:team:bot".into(),
            groups: vec!["system:serviceaccounts".into()],
            ..User::default()
        };
        let get = |resource: &str| Attributes {
            verb: "get".into(),
            namespace: "team".into(),
            resource: resource.into(),
            ..Attributes::default()
        };
        assert_eq!(
            snapshot.authorize(&bot, &get("pods")),
            Decision {
                allowed: true,
                reason: "RBAC: allowed by RoleBinding \"reads/team\" of Role \"reader\" to ServiceAccount \"bot/team\"".into(),
                error: None,
            }
        );
        assert_eq!(
            snapshot.authorize(&bot, &get("secrets")),
            Decision {
                allowed: false,
                reason: "RBAC: clusterrole.rbac.authorization.k8s.io \"gone\" not found".into(),
                error: None,
            }
        );
        let nobody = User {
            username: "someone".into(),
            ..User::default()
        };
        assert_eq!(
            snapshot.authorize(&nobody, &get("pods")),
            Decision::default()
        );
        let admin = User::admin();
        assert!(snapshot.authorize(&admin, &get("secrets")).allowed);
        assert_eq!(snapshot.authorize(&admin, &get("secrets")).reason, "");
    }
}
