//! `node.k8s.io`: a RuntimeClass names its handler with a DNS label that never changes.

use serde_json::json;

use crate::common::env;
use crate::support::raw::send;

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
