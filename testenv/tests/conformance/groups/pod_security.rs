//! The PodSecurity admission plugin (on by default in kube-apiserver v1.34): a namespace's
//! `pod-security.kubernetes.io/*` labels refuse pods that violate the enforced level (with
//! every violation, in the real server's order), warn of pods and pod templates that violate
//! the warned level, select older rules with a version pin, must themselves parse, and warn
//! of the existing pods a stricter enforced level would refuse.
//!
//! A real server's plugin reads namespaces from its informer: new labels take effect a
//! moment after they are written, so the checks that follow a relabelling poll.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{causes, eventually, exchange};

const JSON: &str = "application/json";
const MERGE: &str = "application/merge-patch+json";
const STRATEGIC: &str = "application/strategic-merge-patch+json";

/// Sends `method path` with a JSON `body`: the status code, the body and the warnings'
/// texts (unquoted).
async fn write(
    client: &kube::Client,
    method: &str,
    path: &str,
    content_type: &str,
    body: Value,
) -> (u16, Value, Vec<String>) {
    let headers = [("Content-Type", content_type)];
    let (code, headers, bytes) = exchange(client, method, path, &headers, Some(&body)).await;
    let warnings = headers
        .get_all("warning")
        .iter()
        .map(|w| {
            let w = w.to_str().unwrap_or_default();
            let text = w.strip_prefix("299 - \"").unwrap_or(w);
            let text = text.strip_suffix('"').unwrap_or(text);
            text.replace("\\\"", "\"").replace("\\\\", "\\")
        })
        .collect();
    (
        code,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        warnings,
    )
}

/// Sets the PodSecurity labels of namespace `ns` (a null removes one).
async fn label(client: &kube::Client, ns: &str, labels: Value) -> (u16, Value, Vec<String>) {
    let path = format!("/api/v1/namespaces/{ns}");
    write(
        client,
        "PATCH",
        &path,
        MERGE,
        json!({"metadata": {"labels": labels}}),
    )
    .await
}

/// Sends `body` to `path` until the answer's message names `standard` (the namespace's new
/// labels have reached the plugin), for at most 10 seconds; the last answer.
async fn once_labelled(
    client: &kube::Client,
    method: &str,
    path: &str,
    content_type: &str,
    body: &Value,
    standard: &str,
) -> (u16, Value) {
    let named = format!("PodSecurity \"{standard}\"");
    let seen = eventually(10, || async {
        let (code, answer, _) = write(client, method, path, content_type, body.clone()).await;
        let message = answer["message"].as_str().unwrap_or_default();
        message.contains(&named).then_some((code, answer))
    })
    .await;
    match seen {
        Some(answer) => answer,
        None => {
            let (code, answer, _) = write(client, method, path, content_type, body.clone()).await;
            (code, answer)
        }
    }
}

/// A Pod named `name` with `spec` (its container `c` when the spec names none).
fn pod(name: &str, spec: Value) -> Value {
    let mut spec = spec;
    if spec.get("containers").is_none() {
        spec["containers"] = json!([{"name": "c", "image": "busybox"}]);
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})
}

/// What a restricted pod needs to pass.
fn restricted_pod(name: &str) -> Value {
    pod(
        name,
        json!({"securityContext": {"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [{"name": "c", "image": "busybox", "securityContext":
                {"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]}),
    )
}

#[tokio::test]
async fn an_enforced_level_refuses_a_pod_naming_every_violation_in_order() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let (code, body, _) = label(
        &client,
        ns,
        json!({"pod-security.kubernetes.io/enforce": "restricted",
            "pod-security.kubernetes.io/warn": "baseline"}),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let pods = format!("/api/v1/namespaces/{ns}/pods?dryRun=All");
    let bad = pod(
        "p",
        json!({"hostNetwork": true, "volumes": [{"name": "h", "hostPath": {"path": "/"}}],
            "containers": [{"name": "c", "image": "busybox", "ports": [{"containerPort": 80, "hostPort": 80}],
                "securityContext": {"privileged": true, "capabilities": {"add": ["NET_ADMIN"]}}}]}),
    );
    let (code, body) = once_labelled(&client, "POST", &pods, JSON, &bad, "restricted:latest").await;
    assert_eq!(
        (code, &body["reason"]),
        (403, &json!("Forbidden")),
        "{body}"
    );
    assert_eq!(body["details"], json!({"name": "p", "kind": "pods"}));
    assert_eq!(
        body["message"],
        "pods \"p\" is forbidden: violates PodSecurity \"restricted:latest\": host namespaces (hostNetwork=true), hostPort (container \"c\" uses hostPort 80), privileged (container \"c\" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container \"c\" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container \"c\" must set securityContext.capabilities.drop=[\"ALL\"]; container \"c\" must not include \"NET_ADMIN\" in securityContext.capabilities.add), restricted volume types (volume \"h\" uses restricted volume type \"hostPath\"), runAsNonRoot != true (pod or container \"c\" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container \"c\" must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")"
    );
    let (code, body, warnings) = write(&client, "POST", &pods, JSON, restricted_pod("p")).await;
    assert_eq!(code, 201, "{body}");
    assert!(warnings.is_empty(), "{warnings:?}");

    // A pod template is never refused: it earns the warned level's warning.
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}},
            "spec": {"hostPID": true, "containers": [{"name": "c", "image": "busybox"}]}}}});
    let path = format!("/apis/apps/v1/namespaces/{ns}/deployments?dryRun=All");
    let (code, body, warnings) = write(&client, "POST", &path, JSON, deployment).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        warnings,
        ["would violate PodSecurity \"baseline:latest\": host namespaces (hostPID=true)"]
    );
}

#[tokio::test]
async fn pod_security_labels_must_name_a_level_and_a_version() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let name = format!("psa-{}", env.namespace());
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name,
        "labels": {"pod-security.kubernetes.io/enforce": "strict",
            "pod-security.kubernetes.io/enforce-version": "v1.022",
            "pod-security.kubernetes.io/audit": "baseline",
            "pod-security.kubernetes.io/warn-version": "1.20"}}});
    let path = "/api/v1/namespaces?dryRun=All";
    let (code, body, _) = write(&client, "POST", path, JSON, namespace).await;
    assert_eq!(code, 422, "{body}");
    let labels = "metadata.labels[pod-security.kubernetes.io";
    assert_eq!(
        causes(&body),
        [
            format!(
                "{labels}/enforce]: Invalid value: \"strict\": must be one of privileged, baseline, restricted"
            ),
            format!(
                "{labels}/enforce-version]: Invalid value: \"v1.022\": must be \"latest\" or \"v1.x\""
            ),
            format!(
                "{labels}/warn-version]: Invalid value: \"1.20\": must be \"latest\" or \"v1.x\""
            ),
        ]
    );
    let (code, body, _) = label(
        &client,
        env.namespace(),
        json!({"pod-security.kubernetes.io/warn": "Restricted"}),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "Namespace \"{}\" is invalid: {labels}/warn]: Invalid value: \"Restricted\": must be one of privileged, baseline, restricted",
            env.namespace()
        ))
    );
}

#[tokio::test]
async fn a_version_pin_runs_the_rules_of_that_version() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let pods = format!("/api/v1/namespaces/{ns}/pods?dryRun=All");
    let spec = json!({"securityContext": {"runAsNonRoot": true, "runAsUser": 0,
            "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [{"name": "c", "image": "busybox", "securityContext": {
            "allowPrivilegeEscalation": false, "capabilities": {"add": ["SYS_ADMIN"]}}}]});
    let mut messages = Vec::new();
    for version in ["v1.21", "v1.22", "v1.23", "latest"] {
        let (code, body, _) = label(
            &client,
            ns,
            json!({"pod-security.kubernetes.io/enforce": "restricted",
                "pod-security.kubernetes.io/enforce-version": version}),
        )
        .await;
        assert_eq!(code, 200, "{body}");
        let standard = format!("restricted:{version}");
        let p = pod("p", spec.clone());
        let (code, body) = once_labelled(&client, "POST", &pods, JSON, &p, &standard).await;
        assert_eq!(code, 403, "{body}");
        messages.push(body["message"].as_str().unwrap_or_default().to_string());
    }
    let refused = |v: &str, what: &str| {
        format!("pods \"p\" is forbidden: violates PodSecurity \"restricted:{v}\": {what}")
    };
    let baseline_caps = "non-default capabilities (container \"c\" must not include \"SYS_ADMIN\" in securityContext.capabilities.add)";
    let restricted_caps = "unrestricted capabilities (container \"c\" must set securityContext.capabilities.drop=[\"ALL\"]; container \"c\" must not include \"SYS_ADMIN\" in securityContext.capabilities.add)";
    let root = "runAsUser=0 (pod must not set runAsUser=0)";
    assert_eq!(
        messages,
        [
            refused("v1.21", baseline_caps),
            refused("v1.22", restricted_caps),
            refused("v1.23", &format!("{restricted_caps}, {root}")),
            refused("latest", &format!("{restricted_caps}, {root}")),
        ]
    );
}

#[tokio::test]
async fn a_stricter_enforced_level_warns_of_the_existing_pods_and_image_updates_are_checked() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let pods = format!("/api/v1/namespaces/{ns}/pods");
    let host = json!({"hostNetwork": true});
    for (name, spec) in [("a1", json!({})), ("a2", json!({})), ("b1", host.clone())] {
        let (code, body, _) = write(&client, "POST", &pods, JSON, pod(name, spec)).await;
        assert_eq!(code, 201, "{body}");
    }
    let (code, body, _) = write(&client, "POST", &pods, JSON, restricted_pod("ok")).await;
    assert_eq!(code, 201, "{body}");

    let enforce = |level: &str| json!({"pod-security.kubernetes.io/enforce": level});
    let (code, body, warnings) = label(&client, ns, enforce("baseline")).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        warnings,
        [
            format!(
                "existing pods in namespace \"{ns}\" violate the new PodSecurity enforce level \"baseline:latest\""
            ),
            "b1: host namespaces".to_string(),
        ]
    );
    let (_, _, warnings) = label(&client, ns, enforce("restricted")).await;
    let restricted = "allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile";
    assert_eq!(
        warnings,
        [
            format!(
                "existing pods in namespace \"{ns}\" violate the new PodSecurity enforce level \"restricted:latest\""
            ),
            format!("a1 (and 1 other pod): {restricted}"),
            format!("b1: host namespaces, {restricted}"),
        ]
    );
    // A looser level checks nothing.
    let (code, _, warnings) = label(&client, ns, enforce("baseline")).await;
    assert_eq!((code, warnings.len()), (200, 0));
    let (_, _, _) = label(&client, ns, enforce("restricted")).await;

    // Updates are checked when they change an image or add an ephemeral container.
    let a1 = format!("{pods}/a1?dryRun=All");
    let image = json!({"spec": {"containers": [{"name": "c", "image": "busybox:2"}]}});
    let (code, body) = once_labelled(
        &client,
        "PATCH",
        &a1,
        STRATEGIC,
        &image,
        "restricted:latest",
    )
    .await;
    assert_eq!(code, 403, "{body}");
    let relabel = json!({"metadata": {"labels": {"x": "y"}}});
    let (code, body, _) = write(&client, "PATCH", &a1, MERGE, relabel).await;
    assert_eq!(code, 200, "{body}");
    let ok = format!("{pods}/ok/ephemeralcontainers?dryRun=All");
    let debug = json!({"spec": {"ephemeralContainers": [{"name": "e", "image": "busybox"}]}});
    let (code, body, _) = write(&client, "PATCH", &ok, STRATEGIC, debug).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "pods \"ok\" is forbidden: violates PodSecurity \"restricted:latest\": allowPrivilegeEscalation != false (container \"e\" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container \"e\" must set securityContext.capabilities.drop=[\"ALL\"])"
    );
}
