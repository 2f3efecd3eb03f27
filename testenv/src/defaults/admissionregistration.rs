//! `admissionregistration.k8s.io/v1` defaults: Validating- and MutatingWebhookConfiguration.
//!
//! These matter beyond diffs: `failurePolicy: Fail`, `timeoutSeconds: 10` and the empty
//! selectors decide how the server calls the webhooks.

use super::{each_object, object_mut, set_default};
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

#[cfg(test)]
mod tests {
    use super::super::apply_builtin_defaults;
    use serde_json::json;

    #[test]
    fn webhook_defaults() {
        let mut m = json!({"webhooks": [{"name": "m.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "clientConfig": {"service": {"name": "svc", "namespace": "ns", "path": "/mutate"}},
            "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]}]});
        apply_builtin_defaults(
            "admissionregistration.k8s.io",
            "v1",
            "MutatingWebhookConfiguration",
            &mut m,
        );
        let h = &m["webhooks"][0];
        assert_eq!(h["failurePolicy"], "Fail");
        assert_eq!(h["matchPolicy"], "Equivalent");
        assert_eq!(h["namespaceSelector"], json!({}));
        assert_eq!(h["objectSelector"], json!({}));
        assert_eq!(h["timeoutSeconds"], 10);
        assert_eq!(h["reinvocationPolicy"], "Never");
        assert_eq!(h["rules"][0]["scope"], "*");
        assert_eq!(h["clientConfig"]["service"]["port"], 443);
        let mut v = json!({"webhooks": [{"name": "v.example.com", "failurePolicy": "Ignore"}]});
        apply_builtin_defaults(
            "admissionregistration.k8s.io",
            "v1",
            "ValidatingWebhookConfiguration",
            &mut v,
        );
        assert_eq!(v["webhooks"][0]["failurePolicy"], "Ignore");
        assert!(v["webhooks"][0].get("reinvocationPolicy").is_none());
    }
}
