//! `discovery.k8s.io`: the `kubernetes` EndpointSlice in `default` that leads to the API
//! server, and what an EndpointSlice gets and must have.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{causes, kubernetes_endpoint_slice, send};

const JSON: &str = "application/json";

#[tokio::test]
async fn the_kubernetes_endpoint_slice_points_where_its_endpoints_do() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    if env.mode_name() == "binaries" {
        eprintln!(
            "skipped: envtest's flags advertise 127.0.0.1, for which kube-apiserver publishes no endpoints"
        );
        return;
    }
    let slice = kubernetes_endpoint_slice(&client).await;
    assert_eq!(
        slice["metadata"]["labels"],
        json!({"kubernetes.io/service-name": "kubernetes"})
    );
    assert_eq!(slice["addressType"], "IPv4");
    let (code, endpoints) = send(
        &client,
        "GET",
        "/api/v1/namespaces/default/endpoints/kubernetes",
        "",
        None,
    )
    .await;
    assert_eq!(code, 200, "{endpoints}");
    let ips: Vec<Value> = endpoints["subsets"][0]["addresses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["ip"].clone())
        .collect();
    let port = &endpoints["subsets"][0]["ports"][0]["port"];
    assert_eq!(
        slice["endpoints"],
        json!([{"addresses": ips, "conditions": {"ready": true}}])
    );
    assert_eq!(
        slice["ports"],
        json!([{"name": "https", "protocol": "TCP", "port": port}])
    );
}

#[tokio::test]
async fn endpoint_slices_are_defaulted_and_checked() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!(
        "/apis/discovery.k8s.io/v1/namespaces/{}/endpointslices",
        env.namespace()
    );
    let slice = |name: &str, address_type: &str, address: &str, port: Value| {
        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": name, "labels": {"kubernetes.io/service-name": "web"}},
            "addressType": address_type, "endpoints": [{"addresses": [address]}], "ports": [port]})
    };
    let (code, created) = send(
        &client,
        "POST",
        &base,
        JSON,
        Some(slice(
            "web-1",
            "IPv4",
            "10.0.0.1",
            json!({"name": "http", "port": 80}),
        )),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["endpoints"],
        json!([{"addresses": ["10.0.0.1"], "conditions": {}}])
    );
    assert_eq!(
        created["ports"],
        json!([{"name": "http", "protocol": "TCP", "port": 80}])
    );

    let (code, body) = send(
        &client,
        "POST",
        &base,
        JSON,
        Some(slice("web-2", "IPv4", "not-an-ip", json!({"port": 80}))),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "EndpointSlice.discovery.k8s.io \"web-2\" is invalid: endpoints[0].addresses[0]: Invalid value: \"not-an-ip\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
    );
    let (code, body) = send(
        &client,
        "POST",
        &base,
        JSON,
        Some(slice("web-3", "IPv5", "10.0.0.1", json!({"port": 80}))),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "EndpointSlice.discovery.k8s.io \"web-3\" is invalid: addressType: Unsupported value: \"IPv5\": supported values: \"FQDN\", \"IPv4\", \"IPv6\""
    );
    let (code, body) = send(
        &client,
        "POST",
        &base,
        JSON,
        Some(slice(
            "web-4",
            "IPv4",
            "10.0.0.1",
            json!({"name": "Web_Port", "port": 80}),
        )),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "EndpointSlice.discovery.k8s.io \"web-4\" is invalid: ports[0].name: Invalid value: \"Web_Port\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
    );
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{base}/web-1"),
        "application/merge-patch+json",
        Some(json!({"addressType": "IPv6", "endpoints": [{"addresses": ["fd00::1"]}]})),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "EndpointSlice.discovery.k8s.io \"web-1\" is invalid: addressType: Invalid value: \"IPv6\": field is immutable"
    );
}

#[tokio::test]
async fn endpoint_slice_addresses_ports_and_hints_are_validated() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!(
        "/apis/discovery.k8s.io/v1/namespaces/{}/endpointslices?dryRun=All",
        env.namespace()
    );
    let body = json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": "es-checks"}, "addressType": "IPv4",
        "endpoints": [{"addresses": ["fd00::1", "127.0.0.1"]}, {"addresses": []},
            {"addresses": ["10.0.0.1"], "hostname": "Bad_Host", "nodeName": "n",
                "hints": {"forZones": [{"name": "a"}, {"name": "a"}]}}],
        "ports": [{"name": "http", "port": 80, "protocol": "XTP", "appProtocol": "a/b/c"}, {"name": "http", "port": 81}]});
    let (code, answer) = send(&client, "POST", &path, JSON, Some(body)).await;
    assert_eq!(code, 422, "{answer}");
    let causes = causes(&answer);
    assert_eq!(causes.len(), 8, "{causes:?}");
    assert_eq!(
        causes[0],
        "ports[0].protocol: Unsupported value: \"XTP\": supported values: \"SCTP\", \"TCP\", \"UDP\""
    );
    assert!(
        causes[1].starts_with("ports[0].appProtocol: Invalid value: \"a/b/c\": a qualified name"),
        "{causes:?}"
    );
    assert_eq!(causes[2], "ports[1].name: Duplicate value: \"http\"");
    assert_eq!(
        causes[3],
        "endpoints[0].addresses: Invalid value: \"fd00::1\": must be an IPv4 address"
    );
    assert_eq!(
        causes[4],
        "endpoints[0].addresses[1]: Invalid value: \"127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128)"
    );
    assert_eq!(
        causes[5],
        "endpoints[1].addresses: Required value: must contain at least 1 address"
    );
    assert!(
        causes[6].starts_with("endpoints[2].hostname: Invalid value: \"Bad_Host\""),
        "{causes:?}"
    );
    assert_eq!(
        causes[7],
        "endpoints[2].hints.forZones[1].name: Duplicate value: \"a\""
    );
}

#[tokio::test]
async fn endpoint_slice_port_names_default_to_empty() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!(
        "/apis/discovery.k8s.io/v1/namespaces/{}/endpointslices",
        env.namespace()
    );
    let slice = |ports: Value| {
        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": "unnamed"}, "addressType": "IPv4",
            "endpoints": [{"addresses": ["10.0.0.1"]}], "ports": ports})
    };
    let ports = json!([{"port": 80}, {"name": "x", "port": 81}]);
    let (code, created) = send(&client, "POST", &base, JSON, Some(slice(ports))).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["ports"],
        json!([{"name": "", "protocol": "TCP", "port": 80}, {"name": "x", "protocol": "TCP", "port": 81}])
    );
    let (code, read) = send(&client, "GET", &format!("{base}/unnamed"), "", None).await;
    assert_eq!(
        (code, &read["ports"][0]["name"]),
        (200, &json!("")),
        "{read}"
    );
    let twice = json!([{"port": 80}, {"name": "", "port": 81}]);
    let dry = format!("{base}?dryRun=All");
    let (code, body) = send(&client, "POST", &dry, JSON, Some(slice(twice))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(causes(&body), ["ports[1].name: Duplicate value: \"\""]);
    send(&client, "DELETE", &format!("{base}/unnamed"), "", None).await;
}

/// Only a missing port protocol of an EndpointSlice is defaulted: an empty one is refused.
#[tokio::test]
async fn endpoint_slice_ports_refuse_an_empty_protocol() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let slice = json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": "empty-protocol"}, "addressType": "IPv4", "endpoints": [],
        "ports": [{"name": "a", "port": 80, "protocol": ""}, {"name": "b", "port": 81}]});
    let path = format!(
        "/apis/discovery.k8s.io/v1/namespaces/{}/endpointslices?dryRun=All",
        env.namespace()
    );
    let (code, body) = send(&client, "POST", &path, "application/json", Some(slice)).await;
    assert_eq!(code, 422);
    assert_eq!(
        causes(&body),
        [
            "ports[0].protocol: Unsupported value: \"\": supported values: \"SCTP\", \"TCP\", \"UDP\""
        ]
    );
}
