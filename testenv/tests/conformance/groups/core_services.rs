//! Services of the core group: the IP family fields the Service REST's allocator checks and
//! fills in (`ipFamilies`, `ipFamilyPolicy`, `clusterIPs`), on create and on update.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{client, send};

fn service(name: &str, spec: Value) -> Value {
    let mut spec = spec;
    spec["ports"] = json!([{"port": 80}]);
    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec})
}

/// The fields and messages of a refusal's causes.
fn causes(body: &Value) -> Vec<(String, String)> {
    body["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let text = |f: &str| c[f].as_str().unwrap_or_default().to_string();
            (text("field"), text("message"))
        })
        .collect()
}

fn cause(field: &str, message: &str) -> Vec<(String, String)> {
    vec![(field.to_string(), message.to_string())]
}

#[tokio::test]
async fn service_ip_families_are_checked_and_defaulted() {
    let env = env().await;
    let client = client(&env).await;
    let path = format!("/api/v1/namespaces/{}/services", env.namespace());
    let post = |body: Value| {
        let (client, path) = (client.clone(), path.clone());
        async move { send(&client, "POST", &path, "application/json", Some(body)).await }
    };

    // The allocator's checks come before the Service's own validation: a bad protocol
    // beside a bad family is not reported.
    let mut bad = service("fam-bad", json!({"ipFamilies": ["IPv5"]}));
    bad["spec"]["ports"][0]["protocol"] = json!("bad");
    let (code, body) = post(bad).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        cause(
            "spec.ipFamilies[0]",
            r#"Unsupported value: "IPv5": supported values: "IPv4", "IPv6""#
        )
    );
    let (code, body) = post(service(
        "fam-bad",
        json!({"clusterIP": "10.0.0.50", "clusterIPs": ["10.0.0.50", "10.0.0.51"]}),
    ))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        cause(
            "spec.clusterIPs",
            r#"Invalid value: ["10.0.0.50","10.0.0.51"]: may specify no more than one IP for each IP family"#
        )
    );
    let (code, body) = post(service(
        "fam-bad",
        json!({"ipFamilyPolicy": "SingleStack", "ipFamilies": ["IPv4", "IPv6"]}),
    ))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        cause(
            "spec.ipFamilyPolicy",
            r#"Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"#
        )
    );

    // PreferDualStack gets an address of each family the cluster has.
    let (code, prefer) = post(service(
        "fam-prefer",
        json!({"ipFamilyPolicy": "PreferDualStack"}),
    ))
    .await;
    assert_eq!(code, 201, "{prefer}");
    let families = prefer["spec"]["ipFamilies"].as_array().unwrap();
    assert_eq!(
        families.len(),
        prefer["spec"]["clusterIPs"].as_array().unwrap().len()
    );
    // A headless Service without selector takes both families, whatever the cluster has.
    let (code, headless) = post(service("fam-headless", json!({"clusterIP": "None"}))).await;
    assert_eq!(code, 201, "{headless}");
    assert_eq!(headless["spec"]["ipFamilyPolicy"], "RequireDualStack");
    assert_eq!(headless["spec"]["ipFamilies"].as_array().unwrap().len(), 2);
    assert_eq!(headless["spec"]["clusterIPs"], json!(["None"]));
    // Releasing its second family needs SingleStack.
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{path}/fam-headless"),
        "application/merge-patch+json",
        Some(json!({"spec": {"ipFamilies": [headless["spec"]["ipFamilies"][0]]}})),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        cause(
            "spec.ipFamilyPolicy",
            r#"Invalid value: "RequireDualStack": must be 'SingleStack' to release the secondary IP family"#
        )
    );

    // A type change to ExternalName drops the address and family fields it kept as stored.
    let (code, named) = send(
        &client,
        "PATCH",
        &format!("{path}/fam-prefer"),
        "application/merge-patch+json",
        Some(json!({"spec": {"type": "ExternalName", "externalName": "a.example.com"}})),
    )
    .await;
    assert_eq!(code, 200, "{named}");
    for field in ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"] {
        assert!(named["spec"].get(field).is_none(), "{field}: {named}");
    }

    if env.is_existing_cluster() {
        // A cluster may be dual-stack: the rest holds for single-stack IPv4 ones only.
        return;
    }
    assert_eq!(prefer["spec"]["ipFamilies"], json!(["IPv4"]));
    assert_eq!(headless["spec"]["ipFamilies"], json!(["IPv4", "IPv6"]));
    let (code, body) = post(service(
        "fam-bad",
        json!({"ipFamilyPolicy": "RequireDualStack"}),
    ))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        cause(
            "spec.ipFamilyPolicy",
            r#"Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services"#
        )
    );
    let (code, body) = post(service("fam-bad", json!({"clusterIP": "fd00::1"}))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        cause(
            "spec.clusterIPs[0]",
            r#"Invalid value: ["fd00::1"]: IPv6 is not configured on this cluster"#
        )
    );
}

#[tokio::test]
async fn cluster_ips_are_held_by_ip_addresses() {
    let env = env().await;
    let client = client(&env).await;
    let ns = env.namespace().to_string();
    let path = format!("/api/v1/namespaces/{ns}/services");
    let post = |body: Value| {
        let (client, path) = (client.clone(), path.clone());
        async move { send(&client, "POST", &path, "application/json", Some(body)).await }
    };
    let address = |ip: &str| format!("/apis/networking.k8s.io/v1/ipaddresses/{ip}");

    // A fixed address (of the static band) is held by an IPAddress named after it.
    let ip = "10.0.0.8";
    let (code, body) = post(service("held", json!({"clusterIP": ip}))).await;
    assert_eq!(code, 201, "{body}");
    let (code, held) = send(&client, "GET", &address(ip), "", None).await;
    assert_eq!(code, 200, "{held}");
    assert_eq!(
        held["metadata"]["labels"],
        json!({"ipaddress.kubernetes.io/ip-family": "IPv4",
            "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"})
    );
    assert_eq!(
        held["spec"]["parentRef"],
        json!({"resource": "services", "namespace": ns, "name": "held"})
    );
    assert_eq!(
        held["metadata"]["managedFields"][0]["manager"],
        "kube-apiserver"
    );

    // A second Service asking for it is refused before validation (no ports here).
    let (code, body) = post(json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "held-again"}, "spec": {"clusterIP": ip}}))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        cause(
            "spec.clusterIPs",
            r#"Invalid value: ["10.0.0.8"]: failed to allocate IP 10.0.0.8: provided IP is already allocated"#
        )
    );
    // So is an address outside the service range.
    let (code, body) = post(service("far", json!({"clusterIP": "192.168.228.1"}))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        cause(
            "spec.clusterIPs",
            r#"Invalid value: ["192.168.228.1"]: failed to allocate IP 192.168.228.1: the provided network does not match the current range"#
        )
    );

    // An allocated address is held too, and released with its Service.
    let (code, random) = post(service("random", json!({}))).await;
    assert_eq!(code, 201, "{random}");
    let allocated = random["spec"]["clusterIP"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let (code, held) = send(&client, "GET", &address(&allocated), "", None).await;
    assert_eq!(code, 200, "{held}");
    assert_eq!(held["spec"]["parentRef"]["name"], "random");
    for name in ["held", "random"] {
        send(&client, "DELETE", &format!("{path}/{name}"), "", None).await;
    }
    for ip in [ip, allocated.as_str()] {
        let (code, body) = send(&client, "GET", &address(ip), "", None).await;
        assert_eq!(code, 404, "{body}");
    }
}

#[tokio::test]
async fn service_fields_past_the_ports_are_validated_in_order() {
    let env = env().await;
    let client = client(&env).await;
    // Not dry runs: a real server's dry-run allocator may answer "allocator not ready" after
    // other tests changed the service CIDRs; a refused create leaves nothing behind.
    let path = format!("/api/v1/namespaces/{}/services", env.namespace());
    let delete = |name: &str| {
        let (client, at) = (client.clone(), format!("{path}/{name}"));
        async move { send(&client, "DELETE", &at, "", None).await.0 }
    };
    let post = |body: Value| {
        let (client, path) = (client.clone(), path.clone());
        async move { send(&client, "POST", &path, "application/json", Some(body)).await }
    };
    let fields = |body: &Value| -> Vec<String> {
        causes(body)
            .into_iter()
            .map(|(field, message)| format!("{field}: {message}"))
            .collect()
    };

    // Affinity, duplicate ports, source ranges, traffic policies and distribution of a
    // ClusterIP Service, in `ValidateService`'s order.
    let mut svc = service(
        "fields",
        json!({"type": "ClusterIP", "sessionAffinity": "ClientIP",
            "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 0}},
            "externalTrafficPolicy": "Local", "internalTrafficPolicy": "Sometimes",
            "loadBalancerSourceRanges": ["x"], "trafficDistribution": "Nearest"}),
    );
    svc["spec"]["ports"] = json!([{"port": 80, "name": "a"}, {"port": 80, "name": "a"}]);
    let (code, body) = post(svc).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        fields(&body),
        [
            "spec.ports[1].name: Duplicate value: \"a\"",
            "spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400",
            "spec.ports[1]: Duplicate value: {\"Name\":\"\",\"Protocol\":\"TCP\",\"AppProtocol\":null,\"Port\":80,\"TargetPort\":0,\"NodePort\":0}",
            "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
            "spec.LoadBalancerSourceRanges[0]: Invalid value: \"x\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
            "spec.externalTrafficPolicy: Invalid value: \"Local\": may only be set for externally-accessible services",
            "spec.internalTrafficPolicy: Unsupported value: \"Sometimes\": supported values: \"Cluster\", \"Local\"",
            "spec.trafficDistribution: Unsupported value: \"Nearest\": supported values: \"PreferClose\", \"PreferSameZone\", \"PreferSameNode\"",
        ]
    );

    // External IPs, a node port and load-balancer fields on a ClusterIP Service.
    let mut svc = service(
        "fields",
        json!({"type": "ClusterIP", "externalIPs": ["1.2.3.4", "x", "127.0.0.1"],
            "loadBalancerClass": "a/b", "allocateLoadBalancerNodePorts": true,
            "healthCheckNodePort": 30000}),
    );
    svc["spec"]["ports"][0]["nodePort"] = json!(30001);
    let (code, body) = post(svc).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        fields(&body),
        [
            "spec.externalIPs[1]: Invalid value: \"x\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
            "spec.externalIPs[2]: Invalid value: \"127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128)",
            "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
            "spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'",
            "spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'",
            "spec.healthCheckNodePort: Invalid value: 30000: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        ]
    );

    // The source ranges annotation stands in for the field; each range is checked.
    let mut svc = service("fields", json!({"internalTrafficPolicy": "Sometimes"}));
    svc["metadata"]["annotations"] = json!({
        "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8, x"});
    let (code, body) = post(svc).await;
    assert_eq!(code, 422, "{body}");
    let key = "metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]";
    assert_eq!(
        fields(&body),
        [
            format!("{key}: Forbidden: may only be used when `type` is 'LoadBalancer'"),
            format!(
                "{key}: Invalid value: \"x\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"
            ),
            "spec.internalTrafficPolicy: Unsupported value: \"Sometimes\": supported values: \"Cluster\", \"Local\"".to_string(),
        ]
    );

    // A ClusterIP Service with external IPs is externally accessible: its external traffic
    // policy is defaulted; a load balancer's padded source ranges and a known distribution
    // are accepted.
    let (code, body) = post(service("fields", json!({"externalIPs": ["1.2.3.4"]}))).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(body["spec"]["externalTrafficPolicy"], "Cluster");
    assert_eq!(delete("fields").await, 200);
    let (code, body) = post(service(
        "fields",
        json!({"type": "LoadBalancer", "loadBalancerSourceRanges": [" 10.0.0.0/8 "],
            "trafficDistribution": "PreferSameNode"}),
    ))
    .await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(delete("fields").await, 200);

    // A headless LoadBalancer.
    let (code, body) = post(service(
        "fields",
        json!({"type": "LoadBalancer", "clusterIP": "None"}),
    ))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        fields(&body),
        [
            "spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for LoadBalancer services"
        ]
    );
}

#[tokio::test]
async fn a_load_balancer_keeps_its_class_and_health_check_port() {
    let env = env().await;
    let client = client(&env).await;
    let path = format!("/api/v1/namespaces/{}/services", env.namespace());
    let body = service(
        "balanced",
        json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local",
            "loadBalancerClass": "example.com/a"}),
    );
    let (code, created) = send(&client, "POST", &path, "application/json", Some(body)).await;
    assert_eq!(code, 201, "{created}");
    assert!(
        created["spec"]["healthCheckNodePort"].as_i64().is_some(),
        "{created}"
    );
    let patch =
        json!({"spec": {"healthCheckNodePort": 31999, "loadBalancerClass": "example.com/b"}});
    let at = format!("{path}/balanced");
    let (code, body) = send(
        &client,
        "PATCH",
        &at,
        "application/merge-patch+json",
        Some(patch),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            (
                "spec.loadBalancerClass".to_string(),
                "Invalid value: \"example.com/b\": may not change once set".to_string()
            ),
            (
                "spec.healthCheckNodePort".to_string(),
                "Forbidden: field is immutable".to_string()
            ),
        ]
    );
    send(&client, "DELETE", &format!("{path}/balanced"), "", None).await;
}

#[tokio::test]
async fn requested_node_ports_are_taken_before_validation() {
    let env = env().await;
    let client = client(&env).await;
    let json = "application/json";
    let base = format!("/api/v1/namespaces/{}/services", env.namespace());
    let dry = format!("{base}?dryRun=All");
    let range = "provided port is not in the valid range. The range of valid ports is 30000-32767";
    // The health check port out of range: 500 from the allocator, before validation's errors.
    let mut local = service(
        "local",
        json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local",
            "healthCheckNodePort": 80, "sessionAffinity": "Nope"}),
    );
    local["metadata"]["labels"] = json!({"-bad": "x"});
    let (code, body) = send(&client, "POST", &base, json, Some(local.clone())).await;
    assert_eq!(
        (code, &body["reason"]),
        (500, &json!("InternalError")),
        "{body}"
    );
    let why = format!("failed to allocate requested HealthCheck NodePort 80: {range}");
    assert_eq!(
        body["message"],
        json!(format!("Internal error occurred: {why}"))
    );
    assert_eq!(body["details"]["causes"], json!([{"message": why}]));
    // A dry run does not check the range; validation then has its say.
    let (code, body) = send(&client, "POST", &dry, json, Some(local)).await;
    assert_eq!(code, 422, "{body}");
    let listed: Vec<String> = causes(&body).into_iter().map(|(f, _)| f).collect();
    assert_eq!(listed, ["metadata.labels", "spec.sessionAffinity"]);
    // A port's requested node port is refused with 422 first.
    let mut ports = service(
        "ports",
        json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local", "healthCheckNodePort": 80}),
    );
    ports["spec"]["ports"] = json!([{"port": 80, "nodePort": 81}]);
    let (code, body) = send(&client, "POST", &base, json, Some(ports)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        cause(
            "spec.ports[0].nodePort",
            &format!("Invalid value: 81: {range}")
        )
    );
    // Two port numbers asking for one node port: the second is held already, dry run or not.
    let mut twice = service("twice", json!({"type": "NodePort"}));
    twice["spec"]["ports"] = json!([{"name": "a", "port": 80, "nodePort": 81},
        {"name": "b", "port": 81, "nodePort": 81}]);
    let (code, body) = send(&client, "POST", &dry, json, Some(twice)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        cause(
            "spec.ports[1].nodePort",
            "Invalid value: 81: provided port is already allocated"
        )
    );
    // An update: a health check port is taken only when the update makes it needed.
    let local = service(
        "updated",
        json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local"}),
    );
    let (code, body) = send(&client, "POST", &base, json, Some(local)).await;
    assert_eq!(code, 201, "{body}");
    let path = format!("{base}/updated");
    let merge = "application/merge-patch+json";
    let cluster = json!({"spec": {"externalTrafficPolicy": "Cluster"}});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(cluster)).await;
    assert_eq!(
        (code, &body["spec"]["healthCheckNodePort"]),
        (200, &Value::Null),
        "{body}"
    );
    let back = json!({"spec": {"externalTrafficPolicy": "Local", "healthCheckNodePort": 80}});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(back)).await;
    assert_eq!(code, 500, "{body}");
    assert_eq!(
        body["message"],
        json!(format!("Internal error occurred: {why}"))
    );
    send(&client, "DELETE", &path, "", None).await;
}

#[tokio::test]
async fn node_ports_of_a_dry_run_and_an_update() {
    let env = env().await;
    let client = client(&env).await;
    let json = "application/json";
    let base = format!("/api/v1/namespaces/{}/services", env.namespace());
    let dry = format!("{base}?dryRun=All");
    let node_ports = |body: &Value| -> Vec<Value> {
        body["spec"]["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| p["nodePort"].clone())
            .collect()
    };
    // A dry run makes its ports up: one past the highest the request took, 32769 first.
    let mut made_up = service(
        "made-up",
        json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local"}),
    );
    made_up["spec"]["ports"] = json!([{"name": "a", "port": 80},
        {"name": "b", "port": 81, "nodePort": 30100}, {"name": "c", "port": 82}]);
    let (code, body) = send(&client, "POST", &dry, json, Some(made_up)).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        node_ports(&body),
        [json!(32769), json!(30100), json!(32770)]
    );
    assert_eq!(body["spec"]["healthCheckNodePort"], 32771);
    // An update keeps a stored node port by the port's name, whatever its number now.
    let mut kept = service("kept", json!({"type": "NodePort"}));
    kept["spec"]["ports"] = json!([{"name": "a", "port": 80}]);
    let (code, body) = send(&client, "POST", &base, json, Some(kept)).await;
    assert_eq!(code, 201, "{body}");
    let stored = body["spec"]["ports"][0]["nodePort"].clone();
    let path = format!("{base}/kept");
    let merge = "application/merge-patch+json";
    let renumbered =
        json!({"spec": {"ports": [{"name": "a", "port": 81}, {"name": "z", "port": 80}]}});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(renumbered)).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["spec"]["ports"][0]["nodePort"], stored);
    // The same node port twice for one protocol: a 500 without a reason.
    let twice = json!({"spec": {"ports": [{"name": "a", "port": 80, "nodePort": stored},
        {"name": "b", "port": 81, "nodePort": stored}]}});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(twice)).await;
    assert_eq!(code, 500, "{body}");
    assert_eq!(body["reason"], Value::Null, "{body}");
    assert_eq!(
        body["message"],
        json!(format!("duplicate nodePort: {{TCP {stored}}}"))
    );
    send(&client, "DELETE", &path, "", None).await;
}

#[tokio::test]
async fn an_update_is_recorded_before_the_allocator_fills_it_in() {
    let env = env().await;
    let client = client(&env).await;
    let json = "application/json";
    let base = format!("/api/v1/namespaces/{}/services", env.namespace());
    let (code, body) = send(
        &client,
        "POST",
        &format!("{base}?fieldManager=c"),
        json,
        Some(service("recorded", json!({}))),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let path = format!("{base}/recorded");
    let spec_of = |body: &Value, manager: &str| -> Value {
        body["metadata"]["managedFields"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|e| e["manager"] == manager)
            .map_or(Value::Null, |e| e["fieldsV1"]["f:spec"].clone())
    };
    // A NodePort type: the writer owns the traffic policy the decoding defaults, not the
    // node port the allocator gives.
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{path}?fieldManager=w"),
        "application/merge-patch+json",
        Some(json!({"spec": {"type": "NodePort"}})),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert!(body["spec"]["ports"][0]["nodePort"].is_number(), "{body}");
    assert_eq!(
        spec_of(&body, "w"),
        json!({"f:externalTrafficPolicy": {}, "f:type": {}})
    );
    // A PUT without the addresses: they are kept, and nobody owns them any more.
    let mut sent = body.clone();
    let spec = sent["spec"].as_object_mut().unwrap();
    spec.remove("clusterIP");
    spec.remove("clusterIPs");
    let (code, body) = send(
        &client,
        "PUT",
        &format!("{path}?fieldManager=p"),
        json,
        Some(sent),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert!(body["spec"]["clusterIP"].is_string(), "{body}");
    for manager in ["c", "w", "p"] {
        let spec = spec_of(&body, manager);
        assert!(spec.get("f:clusterIP").is_none(), "{manager}: {body}");
        assert!(spec.get("f:clusterIPs").is_none(), "{manager}: {body}");
    }
    assert!(spec_of(&body, "c")["f:ports"].is_object(), "{body}");
    send(&client, "DELETE", &path, "", None).await;
}
