//! The ClusterRole aggregation controller of kube-controller-manager: a ClusterRole with an
//! `aggregationRule` gets the rules of every ClusterRole its selectors match (by name order,
//! each rule once), and follows them as they change.

use std::sync::Arc;

use serde_json::Value;

use crate::endpoints::hooks::Client;
use crate::support::selector::LabelSelector;

const CLUSTER_ROLES: &str = "rbac.authorization.k8s.io/clusterroles";

fn rules_for(roles: &[(String, Arc<Value>)], aggregate: &Value) -> Vec<Value> {
    let selectors: Vec<LabelSelector> = aggregate["aggregationRule"]["clusterRoleSelectors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(LabelSelector::from_metav1)
        .collect();
    let own = &aggregate["metadata"]["name"];
    let mut rules: Vec<Value> = Vec::new();
    for (_, role) in roles {
        if &role["metadata"]["name"] == own {
            continue;
        }
        let labels = &role["metadata"]["labels"];
        if !selectors.iter().any(|s| !s.is_empty() && s.matches(labels)) {
            continue;
        }
        for rule in role["rules"].as_array().into_iter().flatten() {
            if !rules.contains(rule) {
                rules.push(rule.clone());
            }
        }
    }
    rules
}

/// Brings the rules of every aggregated ClusterRole up to date (aggregates of aggregates
/// settle within a few rounds).
pub fn aggregate_all(client: &mut dyn Client) {
    let Some(def) = client
        .registry()
        .get("rbac.authorization.k8s.io", "v1", "clusterroles")
    else {
        return;
    };
    for _ in 0..4 {
        let mut roles: Vec<(String, Arc<Value>)> = client
            .store()
            .bucket(CLUSTER_ROLES)
            .into_iter()
            .flatten()
            .map(|((_, name), r)| (name.clone(), r.clone()))
            .collect();
        roles.sort_by(|a, b| a.0.cmp(&b.0));
        let mut changed = false;
        for (name, role) in &roles {
            if !role["aggregationRule"].is_object() {
                continue;
            }
            let rules = Value::Array(rules_for(&roles, role));
            if role.get("rules") == Some(&rules) {
                continue;
            }
            let mut updated = (**role).clone();
            updated["rules"] = rules;
            client.put(&def, "", name, updated);
            changed = true;
        }
        if !changed {
            break;
        }
    }
}
