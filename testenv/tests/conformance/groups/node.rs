//! `node.k8s.io`: a RuntimeClass names its handler with a DNS label that never changes, and
//! the RuntimeClass admission plugin gives its pods the class's overhead and scheduling.

use serde_json::json;

use crate::common::env;
use crate::support::raw::{causes, send};

const CLASSES: &str = "/apis/node.k8s.io/v1/runtimeclasses";
const LABEL_RULE: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

#[tokio::test]
async fn runtime_class_handlers_are_labels_that_never_change() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let json = "application/json";
    let class = |name: &str, handler: Option<&str>| {
        let mut c = json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
            "metadata": {"name": name}, "overhead": {"podFixed": {"cpu": "250m", "memory": "64Mi"}},
            "scheduling": {"nodeSelector": {"sandbox": "true"}}});
        if let Some(h) = handler {
            c["handler"] = json!(h);
        }
        c
    };
    let name = format!("sandboxed-{}", env.namespace());
    let (code, created) = send(
        &client,
        "POST",
        CLASSES,
        json,
        Some(class(&name, Some("runsc"))),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["handler"], "runsc");
    assert_eq!(
        created["overhead"],
        json!({"podFixed": {"cpu": "250m", "memory": "64Mi"}})
    );
    assert_eq!(
        created["scheduling"],
        json!({"nodeSelector": {"sandbox": "true"}})
    );

    let bad = format!("bad-{}", env.namespace());
    let (code, body) = send(
        &client,
        "POST",
        CLASSES,
        json,
        Some(class(&bad, Some("Run_SC"))),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "RuntimeClass.node.k8s.io \"{bad}\" is invalid: handler: Invalid value: \"Run_SC\": {LABEL_RULE}"
        ))
    );
    let (code, body) = send(&client, "POST", CLASSES, json, Some(class(&bad, None))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "RuntimeClass.node.k8s.io \"{bad}\" is invalid: handler: Invalid value: \"\": {LABEL_RULE}"
        ))
    );

    let path = format!("{CLASSES}/{name}");
    let merge = "application/merge-patch+json";
    let (code, body) = send(
        &client,
        "PATCH",
        &path,
        merge,
        Some(json!({"handler": "kata"})),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "RuntimeClass.node.k8s.io \"{name}\" is invalid: handler: Invalid value: \"kata\": field is immutable"
        ))
    );
    let (code, body) = send(
        &client,
        "PATCH",
        &path,
        merge,
        Some(json!({"overhead": {"podFixed": {"cpu": "500m"}}})),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        body["overhead"],
        json!({"podFixed": {"cpu": "500m", "memory": "64Mi"}})
    );
    let (code, _) = send(&client, "DELETE", &path, "", None).await;
    assert_eq!(code, 200);
}

#[tokio::test]
async fn pods_get_the_overhead_and_scheduling_of_their_runtime_class() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let json = "application/json";
    let name = format!("sandbox-{}", env.namespace());
    let class = json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
        "metadata": {"name": name}, "handler": "runsc", "overhead": {"podFixed": {"cpu": "250m"}},
        "scheduling": {"nodeSelector": {"sandbox": "true"},
            "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]}});
    let (code, body) = send(&client, "POST", CLASSES, json, Some(class)).await;
    assert_eq!(code, 201, "{body}");
    let pods = format!("/api/v1/namespaces/{}/pods", env.namespace());
    let pod = |pod_name: &str, spec: serde_json::Value| {
        let mut spec = spec;
        spec["containers"] = json!([{"name": "c", "image": "busybox"}]);
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": pod_name}, "spec": spec})
    };
    let (code, created) = send(
        &client,
        "POST",
        &pods,
        json,
        Some(pod(
            "sandboxed",
            json!({"runtimeClassName": name, "nodeSelector": {"zone": "a"}}),
        )),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    let spec = &created["spec"];
    assert_eq!(spec["overhead"], json!({"cpu": "250m"}));
    assert_eq!(
        spec["nodeSelector"],
        json!({"sandbox": "true", "zone": "a"})
    );
    let keys: Vec<&str> = spec["tolerations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable",
            "sandbox"
        ]
    );

    let refused = |pod_name: &'static str, spec: serde_json::Value, why: String| {
        let (client, pods, body) = (client.clone(), pods.clone(), pod(pod_name, spec));
        async move {
            let (code, answer) = send(&client, "POST", &pods, json, Some(body)).await;
            assert_eq!(code, 403, "{answer}");
            assert_eq!(
                answer["message"],
                json!(format!("pods \"{pod_name}\" is forbidden: {why}"))
            );
        }
    };
    refused(
        "unknown",
        json!({"runtimeClassName": "no-such-class"}),
        "pod rejected: RuntimeClass \"no-such-class\" not found".into(),
    )
    .await;
    refused(
        "conflicting",
        json!({"runtimeClassName": name, "nodeSelector": {"sandbox": "false"}}),
        "conflict: runtimeClass.scheduling.nodeSelector[sandbox] = true; pod.spec.nodeSelector[sandbox] = false".into(),
    )
    .await;
    refused(
        "heavier",
        json!({"runtimeClassName": name, "overhead": {"cpu": "1"}}),
        "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead".into(),
    )
    .await;
    refused(
        "classless",
        json!({"overhead": {"cpu": "1"}}),
        "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead".into(),
    )
    .await;
    let (code, same) = send(
        &client,
        "POST",
        &pods,
        json,
        Some(pod(
            "same",
            json!({"runtimeClassName": name, "overhead": {"cpu": "0.25"}}),
        )),
    )
    .await;
    assert_eq!(
        code, 201,
        "the same overhead in another form is fine: {same}"
    );
    send(&client, "DELETE", &format!("{CLASSES}/{name}"), "", None).await;
}

#[tokio::test]
async fn runtime_class_overhead_and_scheduling_are_validated() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!("{CLASSES}?dryRun=All");
    let class = |overhead: serde_json::Value| {
        json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "rc-checks"},
            "handler": "h", "overhead": {"podFixed": overhead},
            "scheduling": {"nodeSelector": {"k": "bad value!"},
                "tolerations": [{"operator": "Equal"}, {"key": "k", "operator": "Exists", "effect": "Nope"}]}})
    };
    let (code, answer) = send(
        &client,
        "POST",
        &path,
        "application/json",
        Some(class(json!({"foo": "-1"}))),
    )
    .await;
    assert_eq!(code, 422, "{answer}");
    let found = causes(&answer);
    assert_eq!(found.len(), 6, "{found:?}");
    assert_eq!(
        found[0],
        "overhead.limits[foo]: Invalid value: \"foo\": must be a standard resource type or fully qualified"
    );
    assert_eq!(
        found[1],
        "overhead.limits[foo]: Invalid value: \"foo\": must be a standard resource for containers"
    );
    assert_eq!(
        found[2],
        "overhead.limits[foo]: Invalid value: \"-1\": must be greater than or equal to 0"
    );
    assert!(
        found[3]
            .starts_with("scheduling.nodeSelector: Invalid value: \"bad value!\": a valid label"),
        "{found:?}"
    );
    assert_eq!(
        found[4],
        "scheduling.tolerations.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\""
    );
    assert_eq!(
        found[5],
        "scheduling.tolerations.tolerations[1].effect: Unsupported value: \"Nope\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""
    );
    let (code, answer) = send(
        &client,
        "POST",
        &path,
        "application/json",
        Some(class(json!({"hugepages-2Mi": "1Mi"}))),
    )
    .await;
    assert_eq!(code, 422, "{answer}");
    let found = causes(&answer);
    assert_eq!(
        found[0],
        "overhead.limits[hugepages-2Mi]: Invalid value: \"1Mi\": 1Mi is not positive integer multiple of hugepages-2Mi"
    );
    assert_eq!(
        found[1],
        "overhead: Forbidden: HugePages require cpu or memory"
    );
}
