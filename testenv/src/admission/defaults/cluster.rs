//! Defaults of the cluster-facing kinds: `discovery.k8s.io/v1` EndpointSlice,
//! `resource.k8s.io/v1` ResourceClaim and ResourceClaimTemplate, and
//! `flowcontrol.apiserver.k8s.io/v1` PriorityLevelConfiguration and FlowSchema, and
//! `apiregistration.k8s.io/v1` APIService.

use serde_json::{Map, Value, json};

use super::fields::{
    each_object, ensure_object, object_mut, set_default, set_default_nonzero, set_default_str,
};

/// EndpointSlice: every endpoint has `conditions` (empty when unknown) and every port a
/// `name` (`""`, stored and returned as such) and a `protocol` (`TCP`).
pub fn endpoint_slice(object: &mut Value) {
    let Some(o) = object.as_object_mut() else {
        return;
    };
    for endpoint in each_object(o, "endpoints") {
        set_default(endpoint, "conditions", json!({}));
    }
    for port in each_object(o, "ports") {
        set_default(port, "name", json!(""));
        // A pointer: only a missing protocol is defaulted, an empty one is refused.
        set_default(port, "protocol", json!("TCP"));
    }
}

/// A device request (`exactly`) or sub-request (`firstAvailable[*]`):
/// `allocationMode: ExactCount` and, in that mode, `count: 1`.
fn device_request(request: &mut Map<String, Value>) {
    set_default_str(request, "allocationMode", "ExactCount");
    // `count` is not a pointer: 0 is unset, and defaulted too.
    if request.get("allocationMode").and_then(Value::as_str) == Some("ExactCount")
        && request
            .get("count")
            .is_none_or(|c| c.is_null() || c.as_i64() == Some(0))
    {
        request.insert("count".into(), json!(1));
    }
}

fn claim_spec(spec: &mut Map<String, Value>) {
    let Some(devices) = object_mut(spec, "devices") else {
        return;
    };
    for request in each_object(devices, "requests") {
        if let Some(exactly) = object_mut(request, "exactly") {
            device_request(exactly);
        }
        for sub in each_object(request, "firstAvailable") {
            device_request(sub);
        }
    }
}

/// ResourceClaim: the device request defaults of its spec.
pub fn resource_claim(object: &mut Value) {
    if let Some(spec) = object.as_object_mut().and_then(|o| object_mut(o, "spec")) {
        claim_spec(spec);
    }
}

/// ResourceClaimTemplate: the device request defaults of the claim spec it stamps.
pub fn resource_claim_template(object: &mut Value) {
    if let Some(spec) = object
        .as_object_mut()
        .and_then(|o| object_mut(o, "spec"))
        .and_then(|s| object_mut(s, "spec"))
    {
        claim_spec(spec);
    }
}

/// PriorityLevelConfiguration: a `Limited` level has `nominalConcurrencyShares: 30` and
/// `lendablePercent: 0`, its queuing 64 queues, hands of 8 and queues of 50 requests; an
/// `exempt` configuration has no shares and lends nothing.
pub fn priority_level(object: &mut Value) {
    let Some(spec) = object
        .as_object_mut()
        .and_then(|o| ensure_object(o, "spec"))
    else {
        return;
    };
    if let Some(limited) = object_mut(spec, "limited") {
        set_default(limited, "nominalConcurrencyShares", json!(30));
        if let Some(queuing) =
            object_mut(limited, "limitResponse").and_then(|r| object_mut(r, "queuing"))
        {
            set_default_nonzero(queuing, "handSize", 8);
            set_default_nonzero(queuing, "queues", 64);
            set_default_nonzero(queuing, "queueLengthLimit", 50);
        }
        set_default(limited, "lendablePercent", json!(0));
    }
    if let Some(exempt) = object_mut(spec, "exempt") {
        set_default(exempt, "nominalConcurrencyShares", json!(0));
        set_default(exempt, "lendablePercent", json!(0));
    }
}

/// FlowSchema: a schema without a precedence gets 1000.
pub fn flow_schema(object: &mut Value) {
    if let Some(spec) = object
        .as_object_mut()
        .and_then(|o| ensure_object(o, "spec"))
    {
        set_default_nonzero(spec, "matchingPrecedence", 1000);
    }
}

/// APIService: a service without a port is reached on 443.
pub fn api_service(object: &mut Value) {
    if let Some(service) = object
        .as_object_mut()
        .and_then(|o| object_mut(o, "spec"))
        .and_then(|s| object_mut(s, "service"))
    {
        set_default(service, "port", json!(443));
    }
}
