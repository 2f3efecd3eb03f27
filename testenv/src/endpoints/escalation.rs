//! RBAC's escalation and bind checks on writes of roles and bindings, as kube-apiserver's
//! RBAC storage makes them before the strategy validates: a user outside `system:masters`
//! may write a Role or ClusterRole only with rules it holds itself (in the namespace of the
//! request, cluster-wide for a ClusterRole), unless it may `escalate` the role; a ClusterRole
//! with an aggregation rule needs every permission; a RoleBinding or ClusterRoleBinding needs
//! `bind` on the role it names, or else the role's rules held. An update that changes only
//! what the garbage collector changes (owner references, finalizers) is not checked.
//!
//! Who may `escalate` or `bind` is the server's [`Policy`](super::policy::Policy) decision:
//! RBAC by default; [`Policy::allow_all`](super::policy::Policy::allow_all) allows
//! everything.

use serde_json::{Value, json};

use super::policy::Authorizer;
use super::rbac::{self, Attributes};
use super::review::spec_of;
use super::state::Api;
use crate::admission::policies::rbac::{RoleError, grants, role_ref_rules};
use crate::admission::policies::rbac_covers::{self, Rule};
use crate::storage::Store;
use crate::support::go_quote::go_quote;
use crate::support::meta;
use crate::support::request::{Req, Target};
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;
use crate::support::user::User;

const GROUP: &str = "rbac.authorization.k8s.io";

/// Whether the policy allows `user` what `a` describes, deciding with `store`'s RBAC objects.
fn permits(api: &Api, store: &Store, user: &User, a: &Attributes) -> bool {
    match api.options.policy.authorizer() {
        Authorizer::AllowAll => true,
        Authorizer::Custom(f) => f(&spec_of(user, a)),
        Authorizer::Rbac => rbac::authorize(store, user, a).is_ok(),
    }
}

/// The 403 of the RBAC storage for the object named `name` (none: a generated name).
fn forbidden(def: &ResourceDef, name: &str, why: &str) -> ApiError {
    if !name.is_empty() {
        return ApiError::forbidden(def, name, why);
    }
    let mut e = ApiError::new(
        403,
        "Forbidden",
        format!("{} is forbidden: {why}", def.qualified()),
    );
    e.details = json!({"group": def.group, "kind": def.plural});
    e
}

/// Why `user` may not grant `granted` in `namespace` (empty: cluster-wide), in the real
/// server's words (`ConfirmNoEscalation`); `None` when it holds all of it.
fn escalation(
    store: &Store,
    def: &ResourceDef,
    user: &User,
    namespace: &str,
    granted: &[Rule],
) -> Option<String> {
    let mut held = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    for grant in grants(store, user, namespace) {
        match grant.rules {
            Ok(rules) => held.extend(rules.iter().map(Rule::of)),
            Err(e) => {
                // The role is looked up through the registry serving the request, whose
                // resource the absence names.
                let e = match e {
                    RoleError::NotFound { name, .. } => {
                        format!("{} \"{name}\" not found", def.qualified())
                    }
                    other => other.to_string(),
                };
                if !errors.contains(&e) {
                    errors.push(e);
                }
            }
        }
    }
    let missing = rbac_covers::missing(&held, granted);
    if missing.is_empty() {
        return None;
    }
    let groups: Vec<String> = user.groups.iter().map(|g| go_quote(g)).collect();
    let mut message = format!(
        "user {} (groups=[{}]) is attempting to grant RBAC permissions not currently held:\n{}",
        go_quote(&user.username),
        groups.join(" "),
        rbac_covers::describe(&missing).join("\n")
    );
    match errors.len() {
        0 => {}
        1 => message.push_str(&format!("; resolution errors: [{}]", errors[0])),
        _ => message.push_str(&format!("; resolution errors: [[{}]]", errors.join(", "))),
    }
    Some(message)
}

fn rules_of(object: &Value) -> Vec<Rule> {
    object["rules"]
        .as_array()
        .map(|rules| rules.iter().map(Rule::of).collect())
        .unwrap_or_default()
}

/// Whether a ClusterRole aggregates (an aggregation rule with at least one selector).
fn aggregates(role: &Value) -> bool {
    role["aggregationRule"]["clusterRoleSelectors"]
        .as_array()
        .is_some_and(|s| !s.is_empty())
}

/// Whether `new` differs from `old` only where the garbage collector writes: owner
/// references and finalizers (and managedFields and selfLink), empty and absent alike.
fn only_gc_fields_change(new: &Value, old: &Value) -> bool {
    fn comparable(v: &Value) -> Value {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("apiVersion");
            o.remove("kind");
        }
        if let Some(m) = v["metadata"].as_object_mut() {
            for field in ["ownerReferences", "finalizers", "managedFields", "selfLink"] {
                m.remove(field);
            }
        }
        without_empty(v)
    }
    fn without_empty(v: Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.into_iter()
                    .map(|(k, v)| (k, without_empty(v)))
                    .filter(|(_, v)| !is_empty(v))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.into_iter().map(without_empty).collect()),
            other => other,
        }
    }
    fn is_empty(v: &Value) -> bool {
        match v {
            Value::Null => true,
            Value::Array(a) => a.is_empty(),
            Value::Object(m) => m.is_empty(),
            Value::String(s) => s.is_empty(),
            _ => false,
        }
    }
    comparable(new) == comparable(old)
}

/// The escalation check of a Role or ClusterRole written by `user`.
fn check_role(
    api: &Api,
    store: &Store,
    user: &User,
    target: &Target,
    object: &Value,
    old: Option<&Value>,
) -> Result<(), ApiError> {
    let def = &target.def;
    let namespace = target.namespace.clone().unwrap_or_default();
    let escalate = Attributes {
        verb: "escalate".into(),
        group: GROUP.into(),
        resource: def.plural.clone(),
        namespace: namespace.clone(),
        name: target.name.clone().unwrap_or_default(),
        ..Attributes::default()
    };
    if permits(api, store, user, &escalate) {
        return Ok(());
    }
    let name = meta::meta_str(object, "name").unwrap_or_default();
    if let Some(why) = escalation(store, def, user, &namespace, &rules_of(object)) {
        return Err(forbidden(def, name, &why));
    }
    let aggregation =
        def.plural == "clusterroles" && (aggregates(object) || old.is_some_and(aggregates));
    let everything = [
        Rule {
            api_groups: vec!["*".into()],
            resources: vec!["*".into()],
            verbs: vec!["*".into()],
            ..Rule::default()
        },
        Rule {
            non_resource_urls: vec!["*".into()],
            verbs: vec!["*".into()],
            ..Rule::default()
        },
    ];
    if aggregation && escalation(store, def, user, &namespace, &everything).is_some() {
        return Err(forbidden(
            def,
            name,
            "must have cluster-admin privileges to use the aggregationRule",
        ));
    }
    Ok(())
}

/// The bind check of a RoleBinding or ClusterRoleBinding written by `user`.
fn check_binding(
    api: &Api,
    store: &Store,
    user: &User,
    target: &Target,
    object: &Value,
) -> Result<(), ApiError> {
    let def = &target.def;
    let namespace = target.namespace.clone().unwrap_or_default();
    let role_ref = &object["roleRef"];
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let role_resource = match role_ref["kind"].as_str() {
        Some("ClusterRole") => Some("clusterroles"),
        Some("Role") => Some("roles"),
        _ => None,
    };
    if let Some(resource) = role_resource {
        let bind = Attributes {
            verb: "bind".into(),
            group: text(&role_ref["apiGroup"]),
            resource: resource.into(),
            namespace: namespace.clone(),
            name: text(&role_ref["name"]),
            ..Attributes::default()
        };
        if permits(api, store, user, &bind) {
            return Ok(());
        }
    }
    if role_resource == Some("roles") && namespace.is_empty() {
        return Err(ApiError::bad_request("Namespace parameter required."));
    }
    let rules = role_ref_rules(store, role_ref, &namespace).map_err(|e| match e {
        RoleError::NotFound { name, .. } => ApiError::not_found(def, &name),
        other => ApiError::without_reason(500, other.to_string()),
    })?;
    let rules: Vec<Rule> = rules.iter().map(Rule::of).collect();
    match escalation(store, def, user, &namespace, &rules) {
        Some(why) => Err(forbidden(
            def,
            meta::meta_str(object, "name").unwrap_or_default(),
            &why,
        )),
        None => Ok(()),
    }
}

/// Whether the requester of `req` may write `object` to `target` (replacing `old`, if any):
/// RBAC's escalation check for roles, its bind check for bindings; other kinds are not
/// checked, nor a body the decoder refuses (the 400 comes first).
pub fn check_write(
    api: &Api,
    store: &Store,
    req: &Req,
    target: &Target,
    object: &Value,
    old: Option<&Value>,
) -> Result<(), ApiError> {
    let def = &target.def;
    let user = &req.user;
    if def.group != GROUP || target.subresource.is_some() || user.in_group("system:masters") {
        return Ok(());
    }
    let undecodable = req.query.decoding().is_some_and(|d| d.type_error.is_some())
        || crate::registry::validation::undecodable(&def.group, &def.kind, object).is_some();
    if undecodable {
        return Ok(());
    }
    if old.is_some_and(|old| only_gc_fields_change(object, old)) {
        return Ok(());
    }
    match def.plural.as_str() {
        "roles" | "clusterroles" => check_role(api, store, user, target, object, old),
        "rolebindings" | "clusterrolebindings" => check_binding(api, store, user, target, object),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_collector_fields_alone_are_not_checked() {
        let old = json!({"metadata": {"name": "r", "finalizers": ["a/b"]}, "rules": []});
        let gc =
            json!({"metadata": {"name": "r", "ownerReferences": [{"name": "x"}]}, "rules": null});
        assert!(only_gc_fields_change(&gc, &old));
        let labelled = json!({"metadata": {"name": "r", "labels": {"a": "b"}}});
        assert!(!only_gc_fields_change(&labelled, &old));
    }
}
