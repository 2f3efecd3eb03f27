//! What the decoder keeps of a built-in body: the members its Go type has no field for are
//! gone from the object on every write (create, replace, each patch type, `/status`), and
//! warned of with whatever answer follows; a body of another version of the resource's own
//! type is decoded as that type before its apiVersion is refused.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{client, exchange};

/// Sends `body` and answers the status code, the `Warning` headers and the body.
async fn write(
    client: &kube::Client,
    method: &str,
    path: &str,
    content_type: &str,
    body: Value,
) -> (u16, Vec<String>, Value) {
    let (code, headers, bytes) = exchange(
        client,
        method,
        path,
        &[("Content-Type", content_type)],
        Some(&body),
    )
    .await;
    let warnings = crate::support::raw::warnings(&headers);
    (
        code,
        warnings,
        serde_json::from_slice(&bytes).unwrap_or_default(),
    )
}

fn unknown(path: &str) -> String {
    format!("299 - \"unknown field \\\"{path}\\\"\"")
}

fn has_no_zz(object: &Value) -> bool {
    object.get("zz").is_none() && object["metadata"].get("zz").is_none()
}

#[tokio::test]
async fn unknown_members_are_dropped_and_warned_of_on_every_write() {
    let env = env().await;
    let ns = env.namespace();
    let client = client(&env).await;
    let base = format!("/api/v1/namespaces/{ns}/configmaps");
    let json = "application/json";
    let (code, warnings, created) = write(
        &client,
        "POST",
        &base,
        json,
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "u", "zz": 1, "labels": {"a": "b"}}, "zz": 1, "data": {"a": "b"}}),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(warnings, [unknown("metadata.zz"), unknown("zz")]);
    assert!(has_no_zz(&created), "{created}");
    let managed = created["metadata"]["managedFields"].to_string();
    assert!(!managed.contains("zz"), "{managed}");
    let object = format!("{base}/u");
    for (content_type, patch) in [
        (
            "application/merge-patch+json",
            json!({"zz": 2, "data": {"b": "c"}}),
        ),
        ("application/strategic-merge-patch+json", json!({"zz": 3})),
        (
            "application/json-patch+json",
            json!([{"op": "add", "path": "/zz", "value": {"a": 1}}]),
        ),
    ] {
        let (code, warnings, patched) = write(&client, "PATCH", &object, content_type, patch).await;
        assert_eq!(code, 200, "{content_type}: {patched}");
        assert_eq!(warnings, [unknown("zz")], "{content_type}");
        assert!(has_no_zz(&patched), "{content_type}: {patched}");
    }
    // The merge consumes the directive of a map the object has, and Strict quotes what is left.
    let (code, warnings, refused) = write(
        &client,
        "PATCH",
        &format!("{object}?fieldValidation=Strict"),
        "application/strategic-merge-patch+json",
        json!({"metadata": {"labels": {"$patch": "replace", "q": "r"}}, "zz": 1}),
    )
    .await;
    assert_eq!((code, warnings.len()), (422, 0), "{refused}");
    assert_eq!(
        refused["message"],
        " \"\" is invalid: patch: Invalid value: \"map[metadata:map[labels:map[q:r]] zz:1]\": strict decoding error: unknown field \"zz\""
    );
    // A PUT of an absent ConfigMap is a 404 with the decoder's warnings.
    let (code, warnings, _) = write(
        &client,
        "PUT",
        &format!("{base}/absent"),
        json,
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "absent"}, "zz": 1}),
    )
    .await;
    assert_eq!((code, warnings), (404, vec![unknown("zz")]));
}

#[tokio::test]
async fn a_body_of_another_version_is_decoded_as_its_own_type() {
    let env = env().await;
    let ns = env.namespace();
    let client = client(&env).await;
    let v1 = format!("/apis/autoscaling/v1/namespaces/{ns}/horizontalpodautoscalers");
    let v2_body = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "h"}, "spec": {"maxReplicas": 3, "targetCPUUtilizationPercentage": 5}});
    let (code, warnings, body) =
        write(&client, "POST", &v1, "application/json", v2_body.clone()).await;
    assert_eq!(code, 400, "{body}");
    assert_eq!(warnings, [unknown("spec.targetCPUUtilizationPercentage")]);
    assert_eq!(
        body["message"],
        "the API version in the data (autoscaling/v2) does not match the expected API version (autoscaling/v1)"
    );
    let (code, _, body) = write(
        &client,
        "POST",
        &format!("{v1}?fieldValidation=Strict"),
        "application/json",
        v2_body,
    )
    .await;
    assert_eq!(code, 400, "{body}");
    assert_eq!(
        body["message"],
        "HorizontalPodAutoscaler in version \"v2\" cannot be handled as a HorizontalPodAutoscaler: strict decoding error: unknown field \"spec.targetCPUUtilizationPercentage\""
    );
    let internal = json!({"apiVersion": "apps/__internal", "kind": "Deployment", "name": "d",
        "metadata": {"name": "d"}});
    let (code, warnings, _) = write(
        &client,
        "POST",
        &format!("/apis/apps/v1/namespaces/{ns}/deployments?dryRun=All"),
        "application/json",
        internal,
    )
    .await;
    assert_eq!((code, warnings), (400, vec![unknown("metadata")]));
}
