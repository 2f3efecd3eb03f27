//! `admissionregistration.k8s.io/v1` defaults: Validating- and MutatingWebhookConfiguration,
//! ValidatingAdmissionPolicy and its binding.
//!
//! These matter beyond diffs: `failurePolicy: Fail`, `timeoutSeconds: 10` and the empty
//! selectors decide how the server calls the webhooks.

use super::fields::{each_object, object_mut, set_default};
use serde_json::{Value, json};

/// `SetDefaults_ValidatingWebhook` / `SetDefaults_MutatingWebhook` on every webhook:
/// `failurePolicy: Fail`, `matchPolicy: Equivalent`, empty `namespaceSelector` and
/// `objectSelector`, `timeoutSeconds: 10`, `reinvocationPolicy: Never` (mutating only),
/// rules' `scope: "*"` and service references' `port: 443`.
pub fn webhook_configuration(object: &mut Value, mutating: bool) {
    let Some(o) = object.as_object_mut() else {
        return;
    };
    for hook in each_object(o, "webhooks") {
        set_default(hook, "failurePolicy", json!("Fail"));
        set_default(hook, "matchPolicy", json!("Equivalent"));
        set_default(hook, "namespaceSelector", json!({}));
        set_default(hook, "objectSelector", json!({}));
        set_default(hook, "timeoutSeconds", json!(10));
        if mutating {
            set_default(hook, "reinvocationPolicy", json!("Never"));
        }
        for rule in each_object(hook, "rules") {
            set_default(rule, "scope", json!("*"));
        }
        if let Some(cfg) = object_mut(hook, "clientConfig")
            && let Some(svc) = object_mut(cfg, "service")
        {
            set_default(svc, "port", json!(443));
        }
    }
}

/// `SetDefaults_MatchResources`: `matchPolicy: Equivalent`, empty `namespaceSelector` and
/// `objectSelector`, and `scope: "*"` on every rule, included or excluded.
fn match_resources(resources: &mut serde_json::Map<String, Value>) {
    set_default(resources, "matchPolicy", json!("Equivalent"));
    set_default(resources, "namespaceSelector", json!({}));
    set_default(resources, "objectSelector", json!({}));
    for list in ["resourceRules", "excludeResourceRules"] {
        for rule in each_object(resources, list) {
            set_default(rule, "scope", json!("*"));
        }
    }
}

/// `SetDefaults_ValidatingAdmissionPolicySpec`: `failurePolicy: Fail`, and the match
/// constraints' defaults ([`match_resources`]).
pub fn validating_admission_policy(object: &mut Value) {
    let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    set_default(spec, "failurePolicy", json!("Fail"));
    if let Some(constraints) = object_mut(spec, "matchConstraints") {
        match_resources(constraints);
    }
}

/// A ValidatingAdmissionPolicyBinding: its `matchResources`, when set, get the match
/// defaults ([`match_resources`]); nothing else is defaulted.
pub fn validating_admission_policy_binding(object: &mut Value) {
    if let Some(resources) = object
        .get_mut("spec")
        .and_then(Value::as_object_mut)
        .and_then(|spec| object_mut(spec, "matchResources"))
    {
        match_resources(resources);
    }
}
