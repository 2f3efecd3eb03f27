//! ValidatingAdmissionPolicyBindings (`pkg/apis/admissionregistration/validation`,
//! `validateValidatingAdmissionPolicyBindingSpec`): the policy's name, the parameter
//! reference (a name xor a selector, what to do when the parameter is missing), the match
//! resources (match policy, selectors, resource rules with their subresources) and the
//! validation actions (known, unique, not both Deny and Warn).

use std::collections::HashSet;

use serde_json::Value;

use super::errors::{
    Errors, child, dns1123_subdomain, duplicate, forbidden, index, invalid, invalid_str,
    not_supported, required, required_because,
};
use super::rbac::path_segment;
use super::workloads::label_selector;

const NOT_FOUND_ACTIONS: &[&str] = &["Deny", "Allow"];
const MATCH_POLICIES: &[&str] = &["Equivalent", "Exact"];
const ACTIONS: &[&str] = &["Audit", "Deny", "Warn"];
const OPERATIONS: &[&str] = &["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const SCOPES: &[&str] = &["*", "Cluster", "Namespaced"];

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| v.as_str().unwrap_or_default())
        .collect()
}

/// `validateValidatingAdmissionPolicyBindingSpec` of a binding (without the metadata).
pub fn binding(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = Vec::new();
    let policy = spec["policyName"].as_str().unwrap_or_default();
    if policy.is_empty() {
        out.push(required("spec.policyName"));
    }
    for why in dns1123_subdomain(policy)
        .iter()
        .filter(|_| !policy.is_empty())
    {
        out.push(invalid_str("spec.policyName", policy, why));
    }
    if spec["paramRef"].is_object() {
        out.extend(param_ref(&spec["paramRef"], "spec.paramRef"));
    }
    if spec["matchResources"].is_object() {
        out.extend(match_resources(
            &spec["matchResources"],
            "spec.matchResources",
        ));
    }
    out.extend(actions(
        &spec["validationActions"],
        "spec.validationActions",
    ));
    out
}

/// `validateParamRef`.
fn param_ref(reference: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let name = reference["name"].as_str().unwrap_or_default();
    let selector = &reference["selector"];
    let exclusive = "name and selector are mutually exclusive";
    if !name.is_empty() {
        for why in path_segment(name) {
            out.push(invalid_str(&child(path, "name"), name, &why));
        }
        if selector.is_object() {
            out.push(forbidden(&child(path, "name"), exclusive));
        }
    }
    if selector.is_object() {
        out.extend(label_selector(selector, &child(path, "selector")));
        if !name.is_empty() {
            out.push(forbidden(&child(path, "selector"), exclusive));
        }
    }
    if name.is_empty() && !selector.is_object() {
        out.push(required_because(
            path,
            "one of name or selector must be specified",
        ));
    }
    let action_path = child(path, "parameterNotFoundAction");
    match reference["parameterNotFoundAction"]
        .as_str()
        .unwrap_or_default()
    {
        "" => out.push(required(&action_path)),
        "Deny" | "Allow" => {}
        other => out.push(not_supported(&action_path, other, NOT_FOUND_ACTIONS)),
    }
    out
}

/// `validateMatchResources`.
pub(super) fn match_resources(resources: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let policy_path = child(path, "matchPolicy");
    match resources["matchPolicy"].as_str() {
        None => out.push(required(&policy_path)),
        Some(p) if !MATCH_POLICIES.contains(&p) => {
            out.push(not_supported(&policy_path, p, MATCH_POLICIES));
        }
        Some(_) => {}
    }
    for f in ["namespaceSelector", "objectSelector"] {
        if resources[f].is_object() {
            out.extend(label_selector(&resources[f], &child(path, f)));
        } else {
            out.push(required(&child(path, f)));
        }
    }
    for list in ["resourceRules", "excludeResourceRules"] {
        let rules = resources[list].as_array().map_or(&[][..], Vec::as_slice);
        for (i, rule) in rules.iter().enumerate() {
            out.extend(named_rule(rule, &index(&child(path, list), i)));
        }
    }
    out
}

/// `validateNamedRuleWithOperations`: the resource names, then the rule.
fn named_rule(rule: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (i, name) in strings(&rule["resourceNames"]).into_iter().enumerate() {
        let at = index(&child(path, "resourceNames"), i);
        for why in path_segment(name) {
            out.push(invalid_str(&at, name, &why));
        }
        if !seen.insert(name) {
            out.push(duplicate(&at, &Value::from(name)));
        }
    }
    out.extend(rule_with_operations(rule, path));
    out
}

/// `ValidateRuleWithOperations` of an admission rule at `path` (a policy's resource rule or
/// a webhook's rule): its operations, API groups and versions, resources with their
/// subresources, and scope.
pub fn rule_with_operations(rule: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let operations = strings(&rule["operations"]);
    let ops_path = child(path, "operations");
    if operations.is_empty() {
        out.push(required(&ops_path));
    }
    if operations.len() > 1 && operations.contains(&"*") {
        out.push(invalid(
            &ops_path,
            &rule["operations"],
            "if '*' is present, must not specify other operations",
        ));
    }
    for (i, op) in operations.iter().enumerate() {
        if !OPERATIONS.contains(op) {
            out.push(not_supported(&index(&ops_path, i), op, OPERATIONS));
        }
    }
    for (f, what) in [("apiGroups", "API groups"), ("apiVersions", "API versions")] {
        let list = strings(&rule[f]);
        if list.is_empty() {
            out.push(required(&child(path, f)));
        }
        if list.len() > 1 && list.contains(&"*") {
            out.push(invalid(
                &child(path, f),
                &rule[f],
                &format!("if '*' is present, must not specify other {what}"),
            ));
        }
    }
    for (i, version) in strings(&rule["apiVersions"]).iter().enumerate() {
        if version.is_empty() {
            out.push(required(&index(&child(path, "apiVersions"), i)));
        }
    }
    out.extend(resource_list(&rule["resources"], &child(path, "resources")));
    if let Some(scope) = rule["scope"].as_str()
        && !SCOPES.contains(&scope)
    {
        out.push(not_supported(&child(path, "scope"), scope, SCOPES));
    }
    out
}

/// `validateResources`: resources with their subresources, wildcards not repeating what
/// another entry already covers.
fn resource_list(value: &Value, path: &str) -> Errors {
    let resources = strings(value);
    let mut out = Vec::new();
    if resources.is_empty() {
        out.push(required(path));
    }
    let mut wildcard_subresources = HashSet::new();
    let mut wildcard_resources = HashSet::new();
    let (mut double, mut single, mut plain) = (false, false, false);
    for (i, entry) in resources.iter().enumerate() {
        if entry.is_empty() {
            out.push(required(&index(path, i)));
            continue;
        }
        double |= *entry == "*/*";
        single |= *entry == "*";
        let Some((resource, sub)) = entry.split_once('/') else {
            plain = *entry != "*";
            continue;
        };
        if wildcard_subresources.contains(resource) {
            out.push(invalid_str(
                &index(path, i),
                entry,
                &format!("if '{resource}/*' is present, must not specify {entry}"),
            ));
        }
        if wildcard_resources.contains(sub) {
            out.push(invalid_str(
                &index(path, i),
                entry,
                &format!("if '*/{sub}' is present, must not specify {entry}"),
            ));
        }
        if sub == "*" {
            wildcard_subresources.insert(resource);
        }
        if resource == "*" {
            wildcard_resources.insert(sub);
        }
    }
    if resources.len() > 1 && double {
        out.push(invalid(
            path,
            value,
            "if '*/*' is present, must not specify other resources",
        ));
    }
    if single && plain {
        out.push(invalid(
            path,
            value,
            "if '*' is present, must not specify other resources without subresources",
        ));
    }
    out
}

/// `validateValidationActions`.
fn actions(value: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (i, action) in strings(value).into_iter().enumerate() {
        if !ACTIONS.contains(&action) {
            out.push(not_supported(&index(path, i), action, ACTIONS));
        }
        if !seen.insert(action) {
            out.push(duplicate(&index(path, i), &Value::from(action)));
        }
    }
    if seen.contains("Deny") && seen.contains("Warn") {
        out.push(invalid(
            path,
            value,
            "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        ));
    }
    if seen.is_empty() {
        out.push(required_because(
            path,
            "at least one validation action is required",
        ));
    }
    out
}
