//! Renders the merged rules as `config/rbac/role.yaml`: one ClusterRole `manager-role`, plus one
//! Role `manager-role` per namespace that rules were declared for (or only Roles when the whole
//! project is namespaced).

use std::collections::BTreeMap;

use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule, Role};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Serialize;

use super::normalize::normalize;
use super::rule::Rule;

/// The name kubebuilder gives the manager's role.
pub const ROLE_NAME: &str = "manager-role";

fn policy(rule: &Rule) -> PolicyRule {
    let some = |v: &Vec<String>| (!v.is_empty()).then(|| v.clone());
    PolicyRule {
        api_groups: if rule.non_resource_urls.is_empty() {
            Some(rule.api_groups.clone())
        } else {
            None
        },
        resources: some(&rule.resources),
        resource_names: some(&rule.resource_names),
        non_resource_urls: some(&rule.non_resource_urls),
        verbs: rule.verbs.clone(),
    }
}

/// The role objects for `rules`: a ClusterRole for cluster-wide rules and a Role per namespace.
/// With `project_namespace`, every rule without its own namespace goes into a Role there.
/// Returns the documents in a fixed order (an empty ClusterRole when nothing is declared, so
/// kustomize's reference to it stays valid).
pub fn role_manifests(rules: &[Rule], project_namespace: Option<&str>) -> Vec<serde_json::Value> {
    let rules: Vec<Rule> = rules
        .iter()
        .cloned()
        .map(|mut r| {
            if r.namespace.is_none() {
                r.namespace = project_namespace.map(str::to_string);
            }
            r
        })
        .collect();
    let rules = normalize(&rules);
    let mut by_namespace: BTreeMap<Option<String>, Vec<PolicyRule>> = BTreeMap::new();
    for rule in &rules {
        by_namespace
            .entry(rule.namespace.clone())
            .or_default()
            .push(policy(rule));
    }
    fn doc<T: Serialize>(value: T) -> serde_json::Value {
        serde_json::to_value(value).expect("RBAC objects serialize")
    }
    if by_namespace.is_empty() {
        by_namespace.insert(project_namespace.map(str::to_string), Vec::new());
    }
    by_namespace
        .into_iter()
        .map(|(namespace, rules)| match namespace {
            None => doc(ClusterRole {
                metadata: ObjectMeta {
                    name: Some(ROLE_NAME.into()),
                    ..Default::default()
                },
                rules: Some(rules),
                ..Default::default()
            }),
            Some(ns) => doc(Role {
                metadata: ObjectMeta {
                    name: Some(ROLE_NAME.into()),
                    namespace: Some(ns),
                    ..Default::default()
                },
                rules: Some(rules),
            }),
        })
        .collect()
}
