//! The core group's Pod checks beyond the spec's fields: the pod-specific annotations
//! (tolerations, deletion cost, the deprecated seccomp annotations and their agreement with
//! the `seccompProfile` fields), the OS checks of Windows and Linux pods, the image
//! volumes a create drops while the `ImageVolume` feature is off (v1.34's default),
//! quantities as Go decodes and writes them, and the security context's IDs and
//! privilege-escalation rules.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{causes, send};

const JSON: &str = "application/json";

fn pod(name: &str, annotations: Value, spec: Value) -> Value {
    let mut full = json!({"automountServiceAccountToken": false,
        "containers": [{"name": "c", "image": "busybox"}]});
    for (k, v) in spec.as_object().into_iter().flatten() {
        full[k] = v.clone();
    }
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "annotations": annotations}, "spec": full})
}

#[tokio::test]
async fn pod_specific_annotations_are_checked_in_order() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let pods = format!("/api/v1/namespaces/{}/pods?dryRun=All", env.namespace());
    let annotations = json!({
        "scheduler.alpha.kubernetes.io/tolerations": "not json",
        "controller.kubernetes.io/pod-deletion-cost": "007",
        "seccomp.security.alpha.kubernetes.io/pod": "localhost//../x",
    });
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("a", annotations, json!({}))),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let m = "metadata.annotations";
    let seccomp = "seccomp.security.alpha.kubernetes.io/pod";
    assert_eq!(
        causes(&body),
        [
            format!(
                "{m}: Invalid value: \"scheduler.alpha.kubernetes.io/tolerations\": invalid character 'o' in literal null (expecting 'u')"
            ),
            format!(
                "{m}[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"007\": must be a 32bit integer"
            ),
            format!("{m}.{seccomp}: Invalid value: \"/../x\": must be a relative path"),
            format!("{m}.{seccomp}: Invalid value: \"/../x\": must not contain '..'"),
        ]
    );
    // Tolerations that decode are validated like the spec's; a wrong JSON type is named as
    // Go's decoder names it.
    let tolerations = json!({"scheduler.alpha.kubernetes.io/tolerations": "[{\"key\": \"k\", \"operator\": \"Foo\"}]"});
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("b", tolerations, json!({}))),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [format!(
            "{m}.scheduler.alpha.kubernetes.io/tolerations[0].operator: Unsupported value: \"Foo\": supported values: \"Equal\", \"Exists\""
        )]
    );
    let typed =
        json!({"scheduler.alpha.kubernetes.io/tolerations": "[{\"tolerationSeconds\": 1.5}]"});
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("c", typed, json!({}))),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [format!(
            "{m}: Invalid value: \"scheduler.alpha.kubernetes.io/tolerations\": json: cannot unmarshal number 1.5 into Go struct field .0.tolerationSeconds of type int64"
        )]
    );
    let valid = json!({"scheduler.alpha.kubernetes.io/tolerations": "null",
        "controller.kubernetes.io/pod-deletion-cost": "-08",
        "seccomp.security.alpha.kubernetes.io/pod": "docker/default"});
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("d", valid, json!({}))),
    )
    .await;
    assert_eq!(code, 201, "{body}");
}

#[tokio::test]
async fn seccomp_annotations_must_agree_with_the_fields() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let annotations = json!({"seccomp.security.alpha.kubernetes.io/pod": "unconfined",
        "container.seccomp.security.alpha.kubernetes.io/c": "localhost/a"});
    let spec = json!({"securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [{"name": "c", "image": "busybox",
            "securityContext": {"seccompProfile": {"type": "Localhost", "localhostProfile": "b"}}}]});
    let pods = format!("/api/v1/namespaces/{ns}/pods?dryRun=All");
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("a", annotations.clone(), spec.clone())),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let s = "securityContext.seccompProfile";
    assert_eq!(
        causes(&body),
        [
            format!("spec.{s}.type: Forbidden: seccomp type in annotation and field must match"),
            format!(
                "spec.containers[0].{s}.localhostProfile: Forbidden: seccomp profile in annotation and field must match"
            ),
        ]
    );
    // A Deployment's template: the same agreement, under its path.
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
            "metadata": {"labels": {"a": "b"}, "annotations": annotations}, "spec": spec}}});
    let deployments = format!("/apis/apps/v1/namespaces/{ns}/deployments?dryRun=All");
    let (code, body) = send(&client, "POST", &deployments, JSON, Some(deployment)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            format!(
                "spec.template.spec.{s}.type: Forbidden: seccomp type in annotation and field must match"
            ),
            format!(
                "spec.template.spec.containers[0].{s}.localhostProfile: Forbidden: seccomp profile in annotation and field must match"
            ),
        ]
    );
}

#[tokio::test]
async fn windows_and_linux_pods_set_only_their_own_fields() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let pods = format!("/api/v1/namespaces/{}/pods?dryRun=All", env.namespace());
    let windows = json!({"os": {"name": "windows"}, "hostPID": true,
        "securityContext": {"runAsUser": 1, "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [{"name": "c", "image": "busybox",
            "securityContext": {"privileged": false, "windowsOptions": {"runAsUserName": "u"}}}]});
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("w", json!({}), windows)),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let no = "Forbidden: cannot be set for a windows pod";
    assert_eq!(
        causes(&body),
        [
            format!("spec.hostPID: {no}"),
            format!("spec.securityContext.seccompProfile: {no}"),
            format!("spec.securityContext.runAsUser: {no}"),
            format!("spec.containers[0].securityContext.privileged: {no}"),
        ]
    );
    let linux = json!({"os": {"name": "linux"}, "securityContext": {"windowsOptions": {}}});
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("l", json!({}), linux)),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod"
        ]
    );
    let unknown = json!({"os": {"name": "Windows"}, "securityContext": {"runAsUser": 1}});
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("u", json!({}), unknown)),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        ["spec.os: Unsupported value: \"Windows\": supported values: \"linux\", \"windows\""]
    );
    let valid = json!({"os": {"name": "windows"},
        "securityContext": {"runAsNonRoot": true, "windowsOptions": {"runAsUserName": "u"}}});
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("v", json!({}), valid)),
    )
    .await;
    assert_eq!(code, 201, "{body}");
}

#[tokio::test]
async fn image_volumes_are_dropped_with_their_mounts() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let spec = json!({"volumes": [{"name": "img", "image": {"reference": "busybox"}},
            {"name": "e", "emptyDir": {}}],
        "containers": [{"name": "c", "image": "busybox", "volumeMounts": [
            {"name": "img", "mountPath": "/i"}, {"name": "e", "mountPath": "/e"}]}]});
    let pods = format!("/api/v1/namespaces/{ns}/pods?dryRun=All");
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("p", json!({}), spec.clone())),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        body["spec"]["volumes"],
        json!([{"name": "e", "emptyDir": {}}])
    );
    assert_eq!(
        body["spec"]["containers"][0]["volumeMounts"],
        json!([{"name": "e", "mountPath": "/e"}])
    );
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
            "metadata": {"labels": {"a": "b"}}, "spec": spec}}});
    let deployments = format!("/apis/apps/v1/namespaces/{ns}/deployments?dryRun=All");
    let (code, body) = send(&client, "POST", &deployments, JSON, Some(deployment)).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        body["spec"]["template"]["spec"]["volumes"],
        json!([{"name": "e", "emptyDir": {}}])
    );
}

#[tokio::test]
async fn quantities_decode_as_go_does_and_come_back_canonical() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let pods = format!("/api/v1/namespaces/{}/pods?dryRun=All", env.namespace());
    let with_resources = |resources: Value| {
        pod(
            "q",
            json!({}),
            json!({"containers": [{"name": "c", "image": "busybox", "resources": resources}]}),
        )
    };
    // A quantity Go cannot parse fails the decoding of the whole body (400).
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(with_resources(json!({"requests": {"cpu": "1 core"}}))),
    )
    .await;
    assert_eq!(code, 400, "{body}");
    assert_eq!(
        body["message"],
        "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    );
    // One that parses is written back in Go's canonical form unless it is one already, and a
    // request finer than a milli-unit is rounded up to one.
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(with_resources(json!({
            "requests": {"cpu": "+2", "memory": "1024Mi", "ephemeral-storage": "0.1m"},
            "limits": {"cpu": "2000m"}}))),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        body["spec"]["containers"][0]["resources"],
        json!({"requests": {"cpu": "+2", "memory": "1Gi", "ephemeral-storage": "1m"},
            "limits": {"cpu": "2"}})
    );
}

#[tokio::test]
async fn security_context_ids_and_privilege_escalation_are_checked() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let pods = format!("/api/v1/namespaces/{}/pods?dryRun=All", env.namespace());
    let spec = json!({
        "hostPID": true, "shareProcessNamespace": true,
        "securityContext": {"runAsUser": -1, "supplementalGroups": [1, -4]},
        "containers": [{"name": "c", "image": "busybox", "securityContext": {
            "runAsGroup": 2147483648_i64, "procMount": "Unmasked",
            "allowPrivilegeEscalation": false, "privileged": true}}]});
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("s", json!({}), spec)),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let range = "must be between 0 and 2147483647, inclusive";
    let c = "spec.containers[0].securityContext";
    assert_eq!(
        causes(&body),
        [
            format!("{c}.runAsGroup: Invalid value: 2147483648: {range}"),
            format!("{c}.procMount: Invalid value: \"Unmasked\": `hostUsers` must be false to use `Unmasked`"),
            format!("{c}: Invalid value: {{\"Capabilities\":null,\"Privileged\":true,\"SELinuxOptions\":null,\"WindowsOptions\":null,\"RunAsUser\":null,\"RunAsGroup\":2147483648,\"RunAsNonRoot\":null,\"ReadOnlyRootFilesystem\":null,\"AllowPrivilegeEscalation\":false,\"ProcMount\":\"Unmasked\",\"SeccompProfile\":null,\"AppArmorProfile\":null}}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true"),
            format!("spec.securityContext.runAsUser: Invalid value: -1: {range}"),
            format!("spec.securityContext.supplementalGroups[1]: Invalid value: -4: {range}"),
            "spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled".to_string(),
        ]
    );
}
