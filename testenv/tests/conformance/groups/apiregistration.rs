//! `apiregistration.k8s.io`: the local APIService of every built-in group version, made at
//! start-up, and of every version a CustomResourceDefinition serves, made and removed with
//! it; all of them always available.

use std::collections::BTreeSet;

use serde_json::json;

use crate::common::env;
use crate::support::raw::{eventually, send};

const SERVICES: &str = "/apis/apiregistration.k8s.io/v1/apiservices";

#[tokio::test]
async fn the_local_api_services_are_there_and_available() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let (code, list) = send(&client, "GET", SERVICES, "", None).await;
    assert_eq!(code, 200, "{list}");
    let local: BTreeSet<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| {
            s["metadata"]["labels"]["kube-aggregator.kubernetes.io/automanaged"] == "onstart"
        })
        .map(|s| s["metadata"]["name"].as_str().unwrap())
        .collect();
    let expected: BTreeSet<&str> = [
        "v1.",
        "v1.admissionregistration.k8s.io",
        "v1.apiextensions.k8s.io",
        "v1.apps",
        "v1.authentication.k8s.io",
        "v1.authorization.k8s.io",
        "v1.autoscaling",
        "v1.batch",
        "v1.certificates.k8s.io",
        "v1.coordination.k8s.io",
        "v1.discovery.k8s.io",
        "v1.events.k8s.io",
        "v1.flowcontrol.apiserver.k8s.io",
        "v1.networking.k8s.io",
        "v1.node.k8s.io",
        "v1.policy",
        "v1.rbac.authorization.k8s.io",
        "v1.resource.k8s.io",
        "v1.scheduling.k8s.io",
        "v1.storage.k8s.io",
        "v2.autoscaling",
    ]
    .into_iter()
    .collect();
    assert_eq!(local, expected);

    let (code, apps) = send(&client, "GET", &format!("{SERVICES}/v1.apps"), "", None).await;
    assert_eq!(code, 200, "{apps}");
    assert_eq!(
        apps["spec"],
        json!({"group": "apps", "version": "v1", "groupPriorityMinimum": 17800, "versionPriority": 15})
    );
    let conditions = apps["status"]["conditions"].as_array().unwrap();
    assert_eq!(conditions.len(), 1, "{apps}");
    assert_eq!(
        (
            &conditions[0]["type"],
            &conditions[0]["status"],
            &conditions[0]["reason"],
            &conditions[0]["message"]
        ),
        (
            &json!("Available"),
            &json!("True"),
            &json!("Local"),
            &json!("Local APIServices are always available")
        )
    );
    let (_, core) = send(&client, "GET", &format!("{SERVICES}/v1."), "", None).await;
    assert_eq!(
        core["spec"],
        json!({"version": "v1", "groupPriorityMinimum": 18000, "versionPriority": 1})
    );
}

#[tokio::test]
async fn served_crd_versions_get_api_services_while_they_are_served() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let group = format!("{}.apiservices.example.com", env.namespace());
    let crd_name = format!("gadgets.{group}");
    let version = |name: &str, storage: bool| {
        json!({"name": name, "served": true, "storage": storage,
            "schema": {"openAPIV3Schema": {"type": "object"}}})
    };
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": crd_name},
        "spec": {"group": group, "scope": "Namespaced",
            "names": {"kind": "Gadget", "plural": "gadgets"},
            "versions": [version("v1", true), version("v1beta1", false)]}});
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (code, body) = send(&client, "POST", crds, "application/json", Some(crd)).await;
    assert_eq!(code, 201, "{body}");
    let read = |name: String| {
        let (client, path) = (client.clone(), format!("{SERVICES}/{name}"));
        async move { send(&client, "GET", &path, "", None).await }
    };
    // A real server registers them a moment after the CRD is established.
    let v1 = eventually(20, || async {
        let (code, service) = read(format!("v1.{group}")).await;
        (code == 200).then_some(service)
    })
    .await
    .expect("the CRD's v1 gets an APIService");
    assert_eq!(
        v1["metadata"]["labels"],
        json!({"kube-aggregator.kubernetes.io/automanaged": "true"})
    );
    assert_eq!(
        v1["spec"],
        json!({"group": group, "version": "v1", "groupPriorityMinimum": 1000, "versionPriority": 100})
    );
    let (code, beta) = read(format!("v1beta1.{group}")).await;
    assert_eq!(code, 200, "{beta}");
    assert_eq!(beta["spec"]["version"], "v1beta1");
    let available = eventually(20, || async {
        let (_, service) = read(format!("v1.{group}")).await;
        let condition = service["status"]["conditions"][0].clone();
        (condition["type"] == "Available").then_some(condition)
    })
    .await
    .expect("the APIService is available");
    assert_eq!(
        (&available["status"], &available["reason"]),
        (&json!("True"), &json!("Local"))
    );

    let (code, body) = send(&client, "DELETE", &format!("{crds}/{crd_name}"), "", None).await;
    assert_eq!(code, 200, "{body}");
    let gone = eventually(30, || async {
        let (v1, _) = read(format!("v1.{group}")).await;
        let (beta, _) = read(format!("v1beta1.{group}")).await;
        (v1 == 404 && beta == 404).then_some(())
    })
    .await;
    assert_eq!(gone, Some(()), "the APIServices go with the CRD");
}

#[tokio::test]
async fn api_services_are_validated() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!("{SERVICES}?dryRun=All");
    let service = |name: &str, spec: serde_json::Value| {
        json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
            "metadata": {"name": name}, "spec": spec})
    };
    let bad = service(
        "v1.bad",
        json!({"group": "other", "version": "v2", "groupPriorityMinimum": 0, "versionPriority": 0,
            "service": {"namespace": "", "name": "s", "port": 70000},
            "insecureSkipTLSVerify": true, "caBundle": "QUJD"}),
    );
    let messages = |answer: &serde_json::Value| -> Vec<String> {
        answer["details"]["causes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                format!(
                    "{}: {}",
                    c["field"].as_str().unwrap_or(""),
                    c["message"].as_str().unwrap_or("")
                )
            })
            .collect()
    };
    let (code, answer) = send(&client, "POST", &path, "application/json", Some(bad)).await;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        messages(&answer),
        [
            r#"metadata.name: Invalid value: "v1.bad": must be `spec.version+"."+spec.group`: "v2.other""#,
            "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
            "spec.versionPriority: Invalid value: 0: must be positive and less than 1000",
            "spec.service.namespace: Required value",
            "spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive",
            "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present",
        ]
    );
    let local = service(
        "v2",
        json!({"version": "v2", "groupPriorityMinimum": 1, "versionPriority": 1,
            "caBundle": "QUJD", "insecureSkipTLSVerify": true}),
    );
    let (code, answer) = send(&client, "POST", &path, "application/json", Some(local)).await;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        messages(&answer),
        [
            r#"metadata.name: Invalid value: "v2": must be `spec.version+"."+spec.group`: "v2.""#,
            "spec.group: Required value: only v1 may have an empty group and it better be legacy kube",
            r#"spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle"#,
            "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify",
        ]
    );
    let remote = service(
        "v1.remote.example.com",
        json!({"group": "remote.example.com", "version": "v1", "groupPriorityMinimum": 10,
            "versionPriority": 10, "service": {"namespace": "n", "name": "s"}}),
    );
    let (code, answer) = send(&client, "POST", &path, "application/json", Some(remote)).await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["spec"]["service"]["port"], 443);
}

#[tokio::test]
async fn a_local_api_service_is_available_from_its_creation() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!("{SERVICES}?dryRun=All");
    let local = json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": "v1.local.example.com"},
        "spec": {"group": "local.example.com", "version": "v1",
            "groupPriorityMinimum": 100, "versionPriority": 10}});
    let (code, made) = send(&client, "POST", &path, "application/json", Some(local)).await;
    assert_eq!(code, 201, "{made}");
    let condition = &made["status"]["conditions"][0];
    assert_eq!(condition["type"], "Available", "{made}");
    assert_eq!(condition["status"], "True");
    assert_eq!(condition["reason"], "Local");
    assert_eq!(
        condition["message"],
        "Local APIServices are always available"
    );
    // One served by a Service waits for the availability controller.
    let remote = json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": "v1.remote.example.com"},
        "spec": {"group": "remote.example.com", "version": "v1", "groupPriorityMinimum": 100,
            "versionPriority": 10, "insecureSkipTLSVerify": true,
            "service": {"namespace": "default", "name": "none"}}});
    let (code, made) = send(&client, "POST", &path, "application/json", Some(remote)).await;
    assert_eq!(code, 201, "{made}");
    assert_eq!(
        made["status"]["conditions"],
        serde_json::Value::Null,
        "{made}"
    );
}
