//! The core group's cluster machinery kinds: a Node's taints (reported under
//! `metadata.taints`), pod CIDRs and set-once fields, and the not-ready taint the
//! TaintNodesByCondition plugin gives a new one; an Endpoints object's addresses and ports;
//! a ServiceAccount's secret references and its deprecated annotation.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{causes, exchange, send};

const JSON: &str = "application/json";
const MERGE: &str = "application/merge-patch+json";

/// A create of `body` at `path`: the status code, the body and the warnings.
async fn create(client: &kube::Client, path: &str, body: Value) -> (u16, Value, Vec<String>) {
    let (code, headers, bytes) =
        exchange(client, "POST", path, &[("Content-Type", JSON)], Some(&body)).await;
    let warnings = crate::support::raw::warnings(&headers);
    (
        code,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        warnings,
    )
}

#[tokio::test]
async fn node_taints_and_pod_cidrs_are_validated_and_a_new_node_is_not_ready() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let nodes = "/api/v1/nodes?dryRun=All";
    let bad = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n-bad"},
        "spec": {"podCIDRs": ["10.0.0.1/24", "bad"],
            "taints": [{"key": "", "effect": "Bogus"}, {"key": "a", "effect": "NoSchedule"},
                {"key": "a", "effect": "NoSchedule"}]}});
    let (code, body, _) = create(&client, nodes, bad).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "metadata.taints[0].key: Invalid value: \"\": name part must be non-empty",
            "metadata.taints[0].key: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            "metadata.taints[0].effect: Unsupported value: \"Bogus\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
            "metadata.taints[2]: Duplicate value: {\"Key\":\"a\",\"Value\":\"\",\"Effect\":\"NoSchedule\",\"TimeAdded\":null}: taints must be unique by key and effect pair",
            "spec.podCIDRs[1]: Invalid value: \"bad\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
            "spec.podCIDRs: Internal error: invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[1]: <nil> (invalid CIDR address: bad)",
            "spec.podCIDRs: Invalid value: [\"10.0.0.1/24\",\"bad\"]: may specify no more than one CIDR for each IP family",
        ]
    );
    // podCIDR wins over a list that does not start with it; configSource is dropped; the
    // not-ready taint comes after the node's own.
    let ok = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n-ok"},
        "spec": {"podCIDR": "10.0.0.1/24", "podCIDRs": ["10.1.0.0/24"], "externalID": "e",
            "taints": [{"key": "a", "effect": "NoExecute"}],
            "configSource": {"configMap": {"name": "c", "namespace": "n", "kubeletConfigKey": "k"}}}});
    let (code, node, warnings) = create(&client, nodes, ok).await;
    assert_eq!(code, 201, "{node}");
    assert_eq!(
        node["spec"],
        json!({"podCIDR": "10.0.0.1/24", "podCIDRs": ["10.0.0.1/24"], "externalID": "e",
            "taints": [{"key": "a", "effect": "NoExecute"},
                {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]})
    );
    assert_eq!(
        warnings,
        [
            "299 - \"spec.externalID: this field is deprecated, and is unused by Kubernetes\"",
            "299 - \"spec.podCIDRs[0]: CIDR value \\\"10.0.0.1/24\\\" is ambiguous in this context (should be \\\"10.0.0.0/24\\\" or \\\"10.0.0.1/32\\\"?)\"",
        ]
    );
}

#[tokio::test]
async fn a_node_sets_its_pod_cidrs_and_provider_id_once() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let name = format!("conf-{}-n", env.namespace());
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
        "spec": {"podCIDR": "10.9.0.0/24"}});
    let (code, created, _) = create(&client, "/api/v1/nodes", node).await;
    assert_eq!(code, 201, "{created}");
    let path = format!("/api/v1/nodes/{name}");
    let patch = |body: Value| send(&client, "PATCH", &path, MERGE, Some(body));
    let (code, body) = patch(json!({"spec": {"podCIDR": "10.8.0.0/24"}})).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        ["spec.podCIDRs: Forbidden: node updates may not change podCIDR except from \"\" to valid"]
    );
    let (code, body) =
        patch(json!({"spec": {"providerID": "a"}, "status": {"capacity": {"cpu": "-1"}}})).await;
    assert_eq!(code, 200, "{body}");
    // The main resource keeps the stored status.
    assert_eq!(body["status"]["capacity"], Value::Null, "{body}");
    let (code, body) = patch(json!({"spec": {"providerID": "b", "externalID": "x"}})).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "spec.providerID: Forbidden: node updates may not change providerID except from \"\" to valid",
            "spec.externalID: Forbidden: may not be updated",
        ]
    );
    let (code, body) = send(&client, "DELETE", &path, JSON, None).await;
    assert_eq!(code, 200, "{body}");
}

#[tokio::test]
async fn endpoints_addresses_and_ports_are_validated() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{ns}/endpoints?dryRun=All");
    let bad = json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "ep"},
        "subsets": [{"addresses": [{"ip": "300.1.1.1"}, {"ip": "127.0.0.1", "hostname": "Bad_Host"}],
            "ports": [{"port": 0, "protocol": "XTP"}, {"name": "b", "port": 81}]}, {}]});
    let (code, body, _) = create(&client, &path, bad).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "subsets[0].addresses[0].ip: Invalid value: \"300.1.1.1\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
            "subsets[0].addresses[0].ip: Invalid value: \"300.1.1.1\": must be a valid IP address",
            "subsets[0].addresses[1].hostname: Invalid value: \"Bad_Host\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
            "subsets[0].addresses[1].ip: Invalid value: \"127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128)",
            "subsets[0].ports[0].name: Required value",
            "subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
            "subsets[0].ports[0].protocol: Unsupported value: \"XTP\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
            "subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`",
        ]
    );
}

#[tokio::test]
async fn a_service_account_keeps_the_names_of_its_secrets() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{ns}/serviceaccounts?dryRun=All");
    let sa = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa",
            "annotations": {"kubernetes.io/enforce-mountable-secrets": "true"}},
        "secrets": [{"kind": "ConfigMap", "name": "x", "namespace": "n", "uid": "u"}]});
    let (code, body, warnings) = create(&client, &path, sa).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(body["secrets"], json!([{"name": "x"}]));
    assert_eq!(
        warnings,
        [
            "299 - \"metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets\""
        ]
    );
}

#[tokio::test]
async fn a_node_keeps_its_status_on_create_and_its_specific_annotations_are_checked() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let nodes = "/api/v1/nodes?dryRun=All";
    // The status sent is kept (the Node strategy lets a create set it), allocatable defaulted
    // from the capacity.
    let with_status = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n-status"},
        "status": {"capacity": {"cpu": "4", "pods": "110"},
            "addresses": [{"type": "InternalIP", "address": "10.1.2.3"}]}});
    let (code, node, _) = create(&client, nodes, with_status).await;
    assert_eq!(code, 201, "{node}");
    assert_eq!(
        node["status"]["allocatable"],
        json!({"cpu": "4", "pods": "110"})
    );
    assert_eq!(node["status"]["addresses"][0]["address"], "10.1.2.3");
    let bad_status = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n-bad"},
        "status": {"allocatable": {"cpu": "-1", "example.com/x": "0.5"}}});
    let (code, body, _) = create(&client, nodes, bad_status).await;
    assert_eq!(code, 422, "{body}");
    // The real server ranges over the amounts' Go map, so their order is random there.
    let mut found = causes(&body);
    found.sort();
    assert_eq!(
        found,
        [
            "status.allocatable.cpu: Invalid value: \"-1\": must be greater than or equal to 0",
            "status.allocatable.example.com/x: Invalid value: \"500m\": must be an integer",
        ]
    );
    // The deprecated taints annotation is decoded as Go decodes it, then checked as taints.
    for (text, expected) in [
        (
            "x",
            "metadata.annotations: Invalid value: \"scheduler.alpha.kubernetes.io/taints\": invalid character 'x' looking for beginning of value",
        ),
        (
            "[{\"key\": \"a\", \"effect\": \"Bogus\"}]",
            "metadata.annotations.scheduler.alpha.kubernetes.io/taints[0].effect: Unsupported value: \"Bogus\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
        ),
    ] {
        let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n-taints",
            "annotations": {"scheduler.alpha.kubernetes.io/taints": text}}});
        let (code, body, _) = create(&client, nodes, node).await;
        assert_eq!(code, 422, "{body}");
        assert_eq!(causes(&body), [expected], "{text}");
    }
    // Each preferAvoidPods entry must name a controller.
    let avoid = "{\"preferAvoidPods\": [{}]}";
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n-avoid",
        "annotations": {"scheduler.alpha.kubernetes.io/preferAvoidPods": avoid}}});
    let (code, body, _) = create(&client, nodes, node).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "metadata.annotations.scheduler.alpha.kubernetes.io/preferAvoidPods[0].PodSignature: Required value"
        ]
    );
}
