//! The status rules of the core kinds' status updates: a Pod's (`ValidatePodStatusUpdate`:
//! conditions, the nominated node, the observed generation, the QoS class that may not change,
//! resource claim statuses, pod and host IPs), a
//! Namespace's phase, a Node's amounts and addresses, a PersistentVolumeClaim's capacity and a
//! ResourceQuota's hard and used amounts. A ReplicationController's follow a ReplicaSet's (see `status_apps`).

use std::net::IpAddr;

use serde_json::Value;

use super::errors::{
    Errors, dns1123_subdomain, duplicate, immutable, invalid, invalid_str, invalid_text, key,
    not_supported,
};
use crate::support::meta::qualified_name_errors;
use crate::support::status::Cause;

/// The pod condition types the kubelet and the control plane set, which need no prefix.
const POD_CONDITIONS: &[&str] = &[
    "PodScheduled",
    "Ready",
    "Initialized",
    "ContainersReady",
    "DisruptionTarget",
    "PodReadyToStartContainers",
    "PodResizePending",
    "PodResizeInProgress",
];

/// A string field, empty when unset.
fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// The message of an address that is not an IP.
const BAD_IP: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/// A Pod's status against the stored one: each condition's observed generation and type, the
/// nominated node, the observed generation, the QoS class, the resource claim statuses, then
/// the pod and host IPs.
pub fn pod(object: &Value, old: &Value) -> Errors {
    let status = &object["status"];
    let mut out = Vec::new();
    for (i, c) in status["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = format!("status.conditions[{i}]");
        out.extend(non_negative_generation(
            &format!("{at}.observedGeneration"),
            &c["observedGeneration"],
        ));
        let kind = text(c, "type");
        if !POD_CONDITIONS.contains(&kind) {
            for why in qualified_name_errors(kind) {
                out.push(invalid_str(&format!("{at}.Type"), kind, &why));
            }
        }
    }
    let nominated = text(status, "nominatedNodeName");
    if !nominated.is_empty() {
        for why in dns1123_subdomain(nominated) {
            out.push(invalid_str("status.nominatedNodeName", nominated, &why));
        }
    }
    out.extend(non_negative_generation(
        "status.observedGeneration",
        &status["observedGeneration"],
    ));
    let qos = &status["qosClass"];
    if qos != &old["status"]["qosClass"] {
        let shown = if qos.is_null() { &Value::from("") } else { qos };
        out.push(immutable("status.qosClass", shown));
    }
    out.extend(resource_claim_statuses(object));
    out.extend(ip_list(&status["podIPs"], "status.podIPs"));
    let first_host = &status["hostIPs"][0]["ip"];
    if !first_host.is_null() && first_host.as_str() != Some(text(status, "hostIP")) {
        out.push(invalid(
            "status.hostIPs[0].ip",
            first_host,
            "must be equal to `hostIP`",
        ));
    }
    out.extend(ip_list(&status["hostIPs"], "status.hostIPs"));
    out
}

/// A negative observed generation of a pod or of one of its conditions.
fn non_negative_generation(field: &str, value: &Value) -> Errors {
    match value.as_i64() {
        Some(g) if g < 0 => vec![invalid(field, &g.into(), "must be a non-negative integer")],
        _ => Vec::new(),
    }
}

/// A pod's resource claim statuses: each named after one of its claims, once, with a claim
/// name that is a DNS subdomain (reported at `name`, as the real server reports it).
fn resource_claim_statuses(object: &Value) -> Errors {
    let claims: Vec<&str> = object["spec"]["resourceClaims"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| text(c, "name"))
        .collect();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (i, entry) in object["status"]["resourceClaimStatuses"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let field = format!("status.resourceClaimStatuses[{i}].name");
        let name = text(entry, "name");
        if !claims.contains(&name) {
            out.push(invalid_str(
                &field,
                name,
                "must match the name of an entry in `spec.resourceClaims`",
            ));
        }
        if !seen.insert(name) {
            out.push(duplicate(&field, &name.into()));
        }
        if let Some(claim) = entry["resourceClaimName"].as_str() {
            for why in dns1123_subdomain(claim) {
                out.push(invalid_str(&field, claim, &why));
            }
        }
    }
    out
}

/// A list of pod or host IPs: each an IP, and more than one only as one of each family.
fn ip_list(list: &Value, path: &str) -> Errors {
    let ips: Vec<&str> = list
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| e["ip"].as_str().unwrap_or_default())
        .collect();
    let mut out = Vec::new();
    for (i, ip) in ips.iter().enumerate() {
        if ip.parse::<IpAddr>().is_err() {
            out.push(invalid_str(&format!("{path}[{i}]"), ip, BAD_IP));
        }
    }
    if ips.len() < 2 {
        return out;
    }
    let parsed: Vec<Option<IpAddr>> = ips.iter().map(|ip| ip.parse().ok()).collect();
    if let Some(bad) = parsed.iter().position(Option::is_none) {
        out.push(Cause {
            reason: "InternalError".into(),
            message: format!(
                "Internal error: failed to check for dual stack with error:invalid IP[{bad}]: {}",
                ips[bad]
            ),
            field: path.into(),
        });
    }
    let v4 = parsed.iter().flatten().any(IpAddr::is_ipv4);
    let v6 = parsed.iter().flatten().any(IpAddr::is_ipv6);
    let dual = v4 && v6 && parsed.iter().all(Option::is_some);
    if !dual || ips.len() > 2 {
        let shown: Vec<String> = ips
            .iter()
            .map(|ip| format!("{{\"IP\":{}}}", Value::from(*ip)))
            .collect();
        out.push(invalid_text(
            path,
            &format!("[{}]", shown.join(",")),
            "may specify no more than one IP for each IP family",
        ));
    }
    out
}

/// A Namespace's phase: `Active` unless it is being deleted, then `Terminating`.
pub fn namespace(object: &Value) -> Errors {
    let phase = object["status"]["phase"].as_str().unwrap_or_default();
    let deleting = object["metadata"]
        .get("deletionTimestamp")
        .is_some_and(|t| !t.is_null());
    let (want, why) = if deleting {
        (
            "Terminating",
            "may only be 'Terminating' if `deletionTimestamp` is not empty",
        )
    } else {
        (
            "Active",
            "may only be 'Active' if `deletionTimestamp` is empty",
        )
    };
    if phase == want {
        Vec::new()
    } else {
        vec![invalid_str("status.Phase", phase, why)]
    }
}

/// The resize states a claim's `allocatedResourceStatuses` may hold.
const RESIZE_STATUSES: &[&str] = &[
    "ControllerResizeInProgress",
    "ControllerResizeInfeasible",
    "NodeResizeInProgress",
    "NodeResizeInfeasible",
    "NodeResizePending",
];

/// Whether a claim's status may name `resource`: storage, or a resource outside the
/// `kubernetes.io` domains.
fn claim_resource(resource: &str) -> bool {
    resource == "storage" || (resource.contains('/') && !resource.contains("kubernetes.io/"))
}

/// A PersistentVolumeClaim's status: no negative capacity; the resize states' resources and
/// states (the real server names the resource in both errors); the allocated resources'
/// names and amounts.
pub fn persistent_volume_claim(object: &Value) -> Errors {
    let status = &object["status"];
    let mut out: Errors = status["capacity"]
        .as_object()
        .into_iter()
        .flatten()
        .flat_map(|(k, v)| super::storage::basic_resource(&key("status.capacity", k), v))
        .collect();
    let states = "status.allocatedResourceStatuses";
    for (k, v) in status["allocatedResourceStatuses"]
        .as_object()
        .into_iter()
        .flatten()
    {
        if !claim_resource(k) {
            out.push(not_supported(states, k, &["storage"]));
        }
        if !RESIZE_STATUSES.contains(&v.as_str().unwrap_or_default()) {
            out.push(not_supported(states, k, RESIZE_STATUSES));
        }
    }
    let allocated = "status.allocatedResources";
    for (k, v) in status["allocatedResources"]
        .as_object()
        .into_iter()
        .flatten()
    {
        if claim_resource(k) {
            out.extend(super::storage::basic_resource(&key(allocated, k), v));
        } else {
            out.push(not_supported(allocated, k, &["storage"]));
        }
    }
    out
}

/// A Node's status (`ValidateNodeUpdate`, the spec being the stored one): the capacity's and
/// allocatable amounts' values, then no address listed twice.
pub fn node(object: &Value) -> Errors {
    let status = &object["status"];
    let mut out = Vec::new();
    for list in ["capacity", "allocatable"] {
        for (k, v) in status[list].as_object().into_iter().flatten() {
            let field = format!("status.{list}.{k}");
            out.extend(super::quota::quantity_value(k, v, &field));
        }
    }
    let mut seen = Vec::new();
    for (i, address) in status["addresses"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let text = |f: &str| address[f].as_str().unwrap_or_default().to_string();
        let pair = (text("type"), text("address"));
        if seen.contains(&pair) {
            out.push(Cause {
                reason: "FieldValueDuplicate".into(),
                message: format!(
                    "Duplicate value: {{\"Type\":{},\"Address\":{}}}",
                    Value::from(pair.0.as_str()),
                    Value::from(pair.1.as_str())
                ),
                field: format!("status.addresses[{i}]"),
            });
        } else {
            seen.push(pair);
        }
    }
    out
}

/// A ResourceQuota's status: the hard and used amounts' names and values.
pub fn resource_quota(object: &Value) -> Errors {
    super::quota::resource_quota_status(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use super::super::errors::field_messages as messages;

    #[test]
    fn a_pod_status_names_conditions_keeps_its_class_and_lists_ips() {
        let old = json!({"status": {"qosClass": "BestEffort"}});
        let new = json!({"status": {"conditions": [{"type": "Ready"}, {"type": "bad type!", "observedGeneration": -2}],
            "observedGeneration": -1, "qosClass": "Bogus", "podIPs": [{"ip": "10.0.0.1"}, {"ip": "bad"}],
            "hostIP": "10.1.0.2", "hostIPs": [{"ip": "10.1.0.1"}]}});
        let got = messages(&pod(&new, &old));
        assert_eq!(got.len(), 8, "{got:?}");
        assert_eq!(
            got[0],
            "status.conditions[1].observedGeneration: Invalid value: -2: must be a non-negative integer"
        );
        assert!(got[1].starts_with("status.conditions[1].Type: Invalid value: \"bad type!\""));
        assert_eq!(
            got[2..],
            [
                "status.observedGeneration: Invalid value: -1: must be a non-negative integer",
                "status.qosClass: Invalid value: \"Bogus\": field is immutable",
                "status.podIPs[1]: Invalid value: \"bad\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                "status.podIPs: Internal error: failed to check for dual stack with error:invalid IP[1]: bad",
                "status.podIPs: Invalid value: [{\"IP\":\"10.0.0.1\"},{\"IP\":\"bad\"}]: may specify no more than one IP for each IP family",
                "status.hostIPs[0].ip: Invalid value: \"10.1.0.1\": must be equal to `hostIP`",
            ]
        );
    }

    #[test]
    fn resource_claim_statuses_name_the_pod_claims_once() {
        let pod = json!({"spec": {"resourceClaims": [{"name": "a"}]}, "status": {
            "resourceClaimStatuses": [{"name": "a", "resourceClaimName": "bad!"}, {"name": "a"}, {"name": "x"}]}});
        let got = messages(&resource_claim_statuses(&pod));
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[0].starts_with("status.resourceClaimStatuses[0].name: Invalid value: \"bad!\": a lowercase RFC 1123 subdomain"));
        assert_eq!(
            got[1..],
            [
                "status.resourceClaimStatuses[1].name: Duplicate value: \"a\"",
                "status.resourceClaimStatuses[2].name: Invalid value: \"x\": must match the name of an entry in `spec.resourceClaims`",
            ]
        );
    }

    #[test]
    fn a_namespace_phase_follows_its_deletion() {
        assert!(namespace(&json!({"metadata": {}, "status": {"phase": "Active"}})).is_empty());
        assert_eq!(
            messages(&namespace(
                &json!({"metadata": {}, "status": {"phase": "Terminating"}})
            )),
            [
                "status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty"
            ]
        );
        let deleting = json!({"metadata": {"deletionTimestamp": "2020-01-01T00:00:00Z"},
            "status": {"phase": "Active"}});
        assert_eq!(namespace(&deleting).len(), 1);
    }

    #[test]
    fn a_node_lists_amounts_and_addresses_once() {
        let n = json!({"status": {"capacity": {"pods": "1500m", "cpu": "-1"},
            "allocatable": {"memory": "1Gi"},
            "addresses": [{"type": "InternalIP", "address": "10.0.0.1"},
                {"type": "InternalIP", "address": "10.0.0.1"}]}});
        assert_eq!(
            messages(&node(&n)),
            [
                "status.capacity.cpu: Invalid value: \"-1\": must be greater than or equal to 0",
                "status.capacity.pods: Invalid value: \"1500m\": must be an integer",
                "status.addresses[1]: Duplicate value: {\"Type\":\"InternalIP\",\"Address\":\"10.0.0.1\"}",
            ]
        );
    }

    #[test]
    fn a_claim_resizes_only_its_storage() {
        let pvc = json!({"status": {"allocatedResourceStatuses": {"storage": "Bogus"},
            "allocatedResources": {"cpu": "1", "example.com/x": "1", "storage": "-1"}}});
        assert_eq!(
            messages(&persistent_volume_claim(&pvc)),
            [
                "status.allocatedResourceStatuses: Unsupported value: \"storage\": supported values: \"ControllerResizeInProgress\", \"ControllerResizeInfeasible\", \"NodeResizeInProgress\", \"NodeResizeInfeasible\", \"NodeResizePending\"",
                "status.allocatedResources: Unsupported value: \"cpu\": supported values: \"storage\"",
                "status.allocatedResources[storage]: Invalid value: -1: must be a valid resource quantity",
            ]
        );
    }

    #[test]
    fn a_claim_capacity_is_not_negative() {
        let pvc = json!({"status": {"capacity": {"storage": "-1"}}});
        assert_eq!(
            messages(&persistent_volume_claim(&pvc)),
            ["status.capacity[storage]: Invalid value: -1: must be a valid resource quantity"]
        );
    }
}
