//! `networking.k8s.io`: the IngressClass marked default is given to Ingresses that name no
//! class (the DefaultIngressClass plugin), and not to those that name one.

use serde_json::json;

use crate::common::env;
use crate::support::raw::{causes, eventually, send};

#[tokio::test]
async fn the_default_ingress_class_is_given_to_ingresses_without_one() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let name = format!("nginx-{ns}");
    let class = json!({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
        "metadata": {"name": name,
            "annotations": {"ingressclass.kubernetes.io/is-default-class": "true"}},
        "spec": {"controller": "example.com/nginx"}});
    let base = "/apis/networking.k8s.io/v1/ingressclasses";
    let (code, created) = send(&client, "POST", base, "application/json", Some(class)).await;
    assert_eq!(code, 201, "{created}");
    let ingresses = format!("/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses");
    let ingress = |name: &str| {
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": name},
            "spec": {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}}})
    };
    // A real server's admission sees the new class through an informer, a moment later.
    let seen = eventually(10, || {
        let (client, path) = (client.clone(), format!("{ingresses}?dryRun=All"));
        let name = name.clone();
        async move {
            let (_, probe) = send(
                &client,
                "POST",
                &path,
                "application/json",
                Some(ingress("probe")),
            )
            .await;
            (probe["spec"]["ingressClassName"] == json!(name)).then_some(())
        }
    })
    .await;
    assert_eq!(seen, Some(()), "the default class is never given");
    let (code, given) = send(
        &client,
        "POST",
        &ingresses,
        "application/json",
        Some(ingress("given")),
    )
    .await;
    assert_eq!(code, 201, "{given}");
    assert_eq!(given["spec"]["ingressClassName"], json!(name));
    let mut own = ingress("own");
    own["spec"]["ingressClassName"] = json!("other");
    let (code, kept) = send(&client, "POST", &ingresses, "application/json", Some(own)).await;
    assert_eq!(code, 201, "{kept}");
    assert_eq!(kept["spec"]["ingressClassName"], "other");
    let mut legacy = ingress("legacy");
    legacy["metadata"]["annotations"] = json!({"kubernetes.io/ingress.class": "old"});
    let (code, legacy) = send(
        &client,
        "POST",
        &ingresses,
        "application/json",
        Some(legacy),
    )
    .await;
    assert_eq!(code, 201, "{legacy}");
    assert_eq!(legacy["spec"].get("ingressClassName"), None);
    send(&client, "DELETE", &format!("{base}/{name}"), "", None).await;
}

#[tokio::test]
async fn ip_address_names_are_canonical_addresses_and_their_parents_never_change() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = "/apis/networking.k8s.io/v1/ipaddresses";
    let address = |name: &str| {
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress", "metadata": {"name": name},
            "spec": {"parentRef": {"resource": "services", "namespace": "default", "name": "x"}}})
    };
    let dry_run = format!("{base}?dryRun=All");
    for (name, why) in [
        ("010.1.2.3", "must not have leading 0s".to_string()),
        (
            "::ffff:1.2.3.4",
            "must not be an IPv4-mapped IPv6 address".into(),
        ),
        (
            "2001:DB8::1",
            r#"must be in canonical form ("2001:db8::1")"#.into(),
        ),
        (
            "fe80::1%eth0",
            "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)".into(),
        ),
    ] {
        let (code, answer) = send(
            &client,
            "POST",
            &dry_run,
            "application/json",
            Some(address(name)),
        )
        .await;
        assert_eq!(code, 422, "{answer}");
        assert_eq!(
            causes(&answer),
            [format!("metadata.name: Invalid value: {name:?}: {why}")]
        );
    }
    // The parent reference is required with its resource and name; a generateName is the name.
    let mut orphan = address("198.51.100.9");
    orphan["spec"]["parentRef"] = json!({});
    let (code, answer) = send(&client, "POST", &dry_run, "application/json", Some(orphan)).await;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        causes(&answer),
        [
            "spec.parentRef.resource: Required value",
            "spec.parentRef.name: Required value"
        ]
    );
    let mut generated = address("");
    generated["metadata"] = json!({"generateName": "198.51.100.9"});
    let (code, answer) = send(
        &client,
        "POST",
        &dry_run,
        "application/json",
        Some(generated),
    )
    .await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["metadata"]["name"], "198.51.100.9");
    // On an update the parent reference is immutable.
    let (code, created) = send(
        &client,
        "POST",
        base,
        "application/json",
        Some(address("2001:db8::9")),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    let one = format!("{base}/2001:db8::9");
    let patch = json!({"spec": {"parentRef": {"name": "y"}}});
    let (code, answer) = send(
        &client,
        "PATCH",
        &one,
        "application/merge-patch+json",
        Some(patch),
    )
    .await;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        causes(&answer),
        [
            r#"spec.parentRef: Invalid value: {"Group":"","Resource":"services","Namespace":"default","Name":"y"}: field is immutable"#
        ]
    );
    send(&client, "DELETE", &one, "", None).await;
}

#[tokio::test]
async fn ingress_backends_rules_paths_and_tls_are_validated() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses?dryRun=All");
    let ingress = |metadata: serde_json::Value, spec: serde_json::Value| {
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": metadata,
            "spec": spec})
    };
    let bad = ingress(
        json!({"name": "bad"}),
        json!({"ingressClassName": "Bad_Class",
            "defaultBackend": {"service": {"name": "s"}, "resource": {"kind": "K", "name": "r"}},
            "tls": [{"hosts": ["*.a.*.com"]}],
            "rules": [{"host": "1.2.3.4", "http": {"paths": [
                {"path": "relative", "pathType": "Prefix",
                    "backend": {"service": {"name": "s", "port": {"number": 80, "name": "http"}}}},
                {"path": "/a", "pathType": "Weird", "backend": {}},
                {"path": "/b//c", "pathType": "Exact",
                    "backend": {"service": {"name": "s", "port": {"number": 70000}}}}]}},
                {"host": "*.ok.com", "http": {"paths": []}}]}),
    );
    let (code, answer) = send(&client, "POST", &path, "application/json", Some(bad)).await;
    assert_eq!(code, 422, "{answer}");
    let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let wildcard = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    assert_eq!(
        causes(&answer),
        [
            r#"spec.defaultBackend: Invalid value: "": cannot set both resource and service backends"#.to_string(),
            r#"spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address"#.into(),
            r#"spec.rules[0].http.paths[0].path: Invalid value: "relative": must be an absolute path"#.into(),
            r#"spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name & port number"#.into(),
            r#"spec.rules[0].http.paths[1].pathType: Unsupported value: "Weird": supported values: "Exact", "ImplementationSpecific", "Prefix""#.into(),
            r#"spec.rules[0].http.paths[1].backend: Invalid value: "": resource or service backend is required"#.into(),
            r#"spec.rules[0].http.paths[2].path: Invalid value: "/b//c": must not contain '//'"#.into(),
            "spec.rules[0].http.paths[2].backend.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive".into(),
            "spec.rules[1].http.paths: Required value".into(),
            format!(r#"spec.tls[0].hosts[0]: Invalid value: "*.a.*.com": {wildcard}"#),
            format!(r#"spec.ingressClassName: Invalid value: "Bad_Class": {subdomain}"#),
        ]
    );
    let (code, answer) = send(
        &client,
        "POST",
        &path,
        "application/json",
        Some(ingress(json!({"name": "empty"}), json!({}))),
    )
    .await;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        causes(&answer),
        ["spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"]
    );
    let backend = json!({"service": {"name": "s", "port": {"number": 80}}});
    let annotated = ingress(
        json!({"name": "annotated", "annotations": {"kubernetes.io/ingress.class": "x"}}),
        json!({"ingressClassName": "nginx", "defaultBackend": backend}),
    );
    let (code, answer) = send(&client, "POST", &path, "application/json", Some(annotated)).await;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        causes(&answer),
        [
            r#"annotations.kubernetes.io/ingress.class: Invalid value: "x": must match `ingressClassName` when both are specified"#
        ]
    );
}

#[tokio::test]
async fn service_cidrs_are_one_or_two_canonical_ranges_of_the_two_families() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = "/apis/networking.k8s.io/v1/servicecidrs?dryRun=All";
    let cidr = |cidrs: serde_json::Value| {
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR",
            "metadata": {"name": "sc-checks"}, "spec": {"cidrs": cidrs}})
    };
    for (cidrs, message) in [
        (
            json!([]),
            "spec.cidrs: Required value: at least one CIDR required",
        ),
        (
            json!(["10.0.0.0/24", "fd00::/64", "fd01::/64"]),
            r#"spec.cidrs: Invalid value: {"CIDRs":["10.0.0.0/24","fd00::/64","fd01::/64"]}: may only hold up to 2 values"#,
        ),
        (
            json!(["10.0.0.1/24", "FD00::/64"]),
            r#"[spec.cidrs[0]: Invalid value: "10.0.0.1/24": must not have bits set beyond the prefix length, spec.cidrs[1]: Invalid value: "FD00::/64": must be in canonical form ("fd00::/64")]"#,
        ),
        (
            json!(["10.0.0.0/24", "10.1.0.0/24"]),
            r#"spec.cidrs: Invalid value: ["10.0.0.0/24","10.1.0.0/24"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"#,
        ),
    ] {
        let (code, answer) =
            send(&client, "POST", path, "application/json", Some(cidr(cidrs))).await;
        assert_eq!(code, 422, "{answer}");
        assert_eq!(
            answer["message"],
            format!("ServiceCIDR.networking.k8s.io \"sc-checks\" is invalid: {message}")
        );
    }
    let (code, answer) = send(
        &client,
        "POST",
        path,
        "application/json",
        Some(cidr(json!(["10.0.0.0/24", "fd00::/64"]))),
    )
    .await;
    assert_eq!(code, 201, "{answer}");
}

#[tokio::test]
async fn an_empty_list_sent_is_validated_as_set_and_stored_as_absent() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses?dryRun=All");
    let ingress = |spec: serde_json::Value| {
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
            "metadata": {"name": "empty-lists"}, "spec": spec})
    };
    // Go decodes `[]` as an empty list that is set: the error prints it as `[]`, not `null`.
    let (code, body) = send(
        &client,
        "POST",
        &path,
        "application/json",
        Some(ingress(json!({"rules": []}))),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        ["spec: Invalid value: []: either `defaultBackend` or `rules` must be specified"]
    );
    let backend = json!({"service": {"name": "web", "port": {"number": 80}}});
    let spec = json!({"defaultBackend": backend, "rules": [], "tls": []});
    let (code, made) = send(
        &client,
        "POST",
        &path,
        "application/json",
        Some(ingress(spec)),
    )
    .await;
    assert_eq!(code, 201, "{made}");
    assert_eq!(made["spec"], json!({"defaultBackend": backend}), "{made}");
}

#[tokio::test]
async fn ingress_class_parameters_are_validated() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = "/apis/networking.k8s.io/v1/ingressclasses?dryRun=All";
    let class = |parameters: serde_json::Value| {
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
            "metadata": {"name": "params"},
            "spec": {"controller": "example.com/ingress", "parameters": parameters}})
    };
    let post = |parameters| {
        let (client, body) = (client.clone(), class(parameters));
        async move { send(&client, "POST", path, "application/json", Some(body)).await }
    };
    let p = "spec.parameters";
    let (code, body) = post(json!({"apiGroup": "", "kind": "", "name": "..",
        "scope": "Namespace", "namespace": "Bad_NS"}))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            format!(
                "{p}.apiGroup: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ),
            format!("{p}.kind: Required value"),
            format!("{p}.name: Invalid value: \"..\": may not be '..'"),
            format!(
                "{p}.namespace: Invalid value: \"Bad_NS\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            ),
        ]
    );
    let (code, body) = post(json!({"kind": "K/%", "name": "a%b", "scope": "Namespace"})).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            format!("{p}.kind: Invalid value: \"K/%\": may not contain '/'"),
            format!("{p}.kind: Invalid value: \"K/%\": may not contain '%'"),
            format!("{p}.name: Invalid value: \"a%b\": may not contain '%'"),
            format!("{p}.namespace: Required value: `parameters.scope` is set to 'Namespace'"),
        ]
    );
    // Without a scope the reference is the cluster's: no namespace, even an empty one.
    let (code, body) = post(json!({"kind": "K", "name": "n", "namespace": ""})).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [format!(
            "{p}.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"
        )]
    );
    let (code, body) = post(json!({"apiGroup": "k8s.example.com", "kind": "Params",
        "name": "p", "scope": "Namespace", "namespace": "team-a"}))
    .await;
    assert_eq!(code, 201, "{body}");
}

/// An IngressClass's controller is required; an IPAddress's `parentRef` (a pointer) is owned
/// itself by its creator.
#[tokio::test]
async fn ingress_class_controllers_are_required_and_ip_address_parents_owned() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let class = json!({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
        "metadata": {"name": "no-controller"}, "spec": {"controller": ""}});
    let (code, body) = send(
        &client,
        "POST",
        "/apis/networking.k8s.io/v1/ingressclasses?dryRun=All",
        "application/json",
        Some(class),
    )
    .await;
    assert_eq!(code, 422);
    assert_eq!(causes(&body), ["spec.controller: Required value"]);
    let address = json!({"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress",
        "metadata": {"name": "10.0.0.202"},
        "spec": {"parentRef": {"group": "", "resource": "services", "namespace": "ns", "name": "svc"}}});
    let (code, body) = send(
        &client,
        "POST",
        "/apis/networking.k8s.io/v1/ipaddresses?dryRun=All",
        "application/json",
        Some(address),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        body["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]["f:parentRef"]["."],
        json!({})
    );
}
