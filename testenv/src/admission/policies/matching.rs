//! Which requests a ValidatingAdmissionPolicy and its binding cover: `matchConstraints`
//! and the binding's `matchResources` (resource rules with their operations, scope and
//! resource names, exclusions, namespace and object selectors), as kube-apiserver matches
//! them.

use serde_json::Value;

use crate::admission::webhooks::config::{Operation, Rule, selector_matches};
use crate::support::resource::ResourceDef;

/// What is being written, as the matcher sees it.
pub struct Request<'a> {
    /// The resource written.
    pub def: &'a ResourceDef,
    /// The subresource, if any.
    pub subresource: Option<&'a str>,
    /// The operation.
    pub operation: Operation,
    /// The object's name.
    pub name: &'a str,
    /// The new object (absent on delete).
    pub object: Option<&'a Value>,
    /// The stored object (absent on create).
    pub old: Option<&'a Value>,
    /// The labels of the object's namespace (`None` for cluster-scoped objects other than
    /// Namespaces, which every namespace selector matches).
    pub namespace_labels: Option<&'a Value>,
}

fn rule_covers(rule: &Value, r: &Request<'_>) -> bool {
    let parsed = Rule::parse(rule);
    if !parsed.matches_operation(r.operation) || !parsed.matches_resource(r.def, r.subresource) {
        return false;
    }
    match rule["resourceNames"].as_array() {
        Some(names) if !names.is_empty() => names.iter().any(|n| n == r.name),
        _ => true,
    }
}

/// Whether a `matchConstraints` or `matchResources` block covers the request.
pub fn matches(block: &Value, r: &Request<'_>) -> bool {
    let rules = block["resourceRules"].as_array();
    if !rules.is_some_and(|rules| rules.iter().any(|rule| rule_covers(rule, r))) {
        return false;
    }
    if block["excludeResourceRules"]
        .as_array()
        .is_some_and(|rules| rules.iter().any(|rule| rule_covers(rule, r)))
    {
        return false;
    }
    if let Some(labels) = r.namespace_labels
        && !selector_matches(&block["namespaceSelector"], labels)
    {
        return false;
    }
    let labels = |o: Option<&Value>| o.map_or(Value::Null, |o| o["metadata"]["labels"].clone());
    selector_matches(&block["objectSelector"], &labels(r.object))
        || selector_matches(&block["objectSelector"], &labels(r.old))
}

/// Whether a binding's `matchResources` lets the request through: absent, or without
/// rules (then only its selectors apply), or matching.
pub fn binding_matches(block: &Value, r: &Request<'_>) -> bool {
    if !block.is_object() {
        return true;
    }
    let has_rules = block["resourceRules"]
        .as_array()
        .is_some_and(|rules| !rules.is_empty());
    if has_rules {
        return matches(block, r);
    }
    let mut with_all = block.clone();
    with_all["resourceRules"] = serde_json::json!([{"apiGroups": ["*"], "apiVersions": ["*"],
        "resources": ["*", "*/*"], "operations": ["*"]}]);
    matches(&with_all, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;
    use serde_json::json;

    #[test]
    fn rules_selectors_and_exclusions() {
        let reg = Registry::with_builtins();
        let deploy = reg.get("apps", "v1", "deployments").unwrap();
        let obj = json!({"metadata": {"name": "d", "labels": {"team": "a"}}});
        let ns = json!({"env": "test"});
        let r = Request {
            def: &deploy,
            subresource: None,
            operation: Operation::Create,
            name: "d",
            object: Some(&obj),
            old: None,
            namespace_labels: Some(&ns),
        };
        let rules = json!([{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}]);
        assert!(matches(&json!({"resourceRules": rules}), &r));
        assert!(!matches(
            &json!({"resourceRules": rules, "excludeResourceRules": rules}),
            &r
        ));
        assert!(!matches(
            &json!({"resourceRules": rules, "namespaceSelector": {"matchLabels": {"env": "prod"}}}),
            &r
        ));
        assert!(matches(
            &json!({"resourceRules": rules, "objectSelector": {"matchLabels": {"team": "a"}}}),
            &r
        ));
        assert!(binding_matches(
            &json!({"namespaceSelector": {"matchLabels": {"env": "test"}}}),
            &r
        ));
        assert!(!binding_matches(
            &json!({"namespaceSelector": {"matchLabels": {"env": "x"}}}),
            &r
        ));
    }
}
