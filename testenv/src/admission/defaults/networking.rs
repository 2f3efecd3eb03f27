//! `networking.k8s.io/v1` defaults: NetworkPolicy, IngressClass.

use super::fields::{each_object, ensure_object};
use serde_json::{Value, json};

/// `SetDefaults_NetworkPolicy` and `SetDefaults_NetworkPolicyPort`: every ingress/egress
/// port gets `protocol: TCP`; `policyTypes` defaults to `[Ingress]`, plus `Egress` when the
/// policy has egress rules.
pub fn network_policy(object: &mut Value) {
    let Some(spec) = object
        .as_object_mut()
        .and_then(|o| ensure_object(o, "spec"))
    else {
        return;
    };
    for dir in ["ingress", "egress"] {
        for rule in each_object(spec, dir) {
            for port in each_object(rule, "ports") {
                if port.get("protocol").is_none_or(Value::is_null) {
                    port.insert("protocol".into(), json!("TCP"));
                }
            }
        }
    }
    if spec
        .get("policyTypes")
        .is_none_or(|p| p.as_array().is_none_or(Vec::is_empty))
    {
        let has_egress = spec
            .get("egress")
            .and_then(Value::as_array)
            .is_some_and(|e| !e.is_empty());
        let types = if has_egress {
            json!(["Ingress", "Egress"])
        } else {
            json!(["Ingress"])
        };
        spec.insert("policyTypes".into(), types);
    }
}

/// `SetDefaults_IngressClass`: a reference to parameters without a scope is `Cluster`-scoped.
pub fn ingress_class(object: &mut Value) {
    let params = object
        .get_mut("spec")
        .and_then(|s| s.get_mut("parameters"))
        .and_then(Value::as_object_mut);
    if let Some(params) = params
        && params.get("scope").is_none_or(Value::is_null)
    {
        params.insert("scope".into(), json!("Cluster"));
    }
}
