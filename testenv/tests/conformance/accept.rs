//! `Accept` as kube-apiserver takes it: a built-in route (go-restful) takes a clause only when
//! its media type, parameters dropped, is one the route produces or `*/*` (`application/*` is
//! no wildcard there), checking the method first (405); a custom resource's handler negotiates
//! with wildcards and refuses what names nothing it writes.

use serde_json::Value;

use crate::common::env;
use crate::support::raw::{client, exchange};

/// The code and `Status` message of a GET of `path` accepting `accept`.
async fn ask(client: &kube::Client, method: &str, path: &str, accept: &str) -> (u16, Value) {
    let (code, _, bytes) = exchange(client, method, path, &[("Accept", accept)], None).await;
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (code, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn built_in_routes_take_exact_media_types_and_custom_resources_wildcards() {
    let env = env().await;
    let client = client(&env).await;
    let ns = env.namespace().to_string();
    let configmaps = format!("/api/v1/namespaces/{ns}/configmaps");

    let (code, status) = ask(&client, "GET", &configmaps, "application/*").await;
    assert_eq!(code, 406, "{status}");
    assert_eq!(
        status["message"],
        "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, \
         application/vnd.kubernetes.protobuf, application/json;stream=watch, \
         application/vnd.kubernetes.protobuf;stream=watch"
    );
    assert_eq!(status["details"], serde_json::json!({}));
    let (code, list) = ask(&client, "GET", &configmaps, "text/html, */*").await;
    assert_eq!((code, list["kind"].as_str()), (200, Some("ConfigMapList")));

    // A parameter go-restful drops, which the handler then refuses.
    let (code, status) = ask(&client, "GET", &configmaps, "application/json;as=Foo").await;
    assert_eq!(code, 406);
    assert_eq!(
        status["message"],
        "only the following media types are accepted: application/json, application/yaml, \
         application/vnd.kubernetes.protobuf"
    );

    // The method is checked before Accept: a token is only created.
    let token = format!("/api/v1/namespaces/{ns}/serviceaccounts/default/token");
    let (code, status) = ask(&client, "GET", &token, "text/plain").await;
    assert_eq!(
        (code, status["reason"].as_str()),
        (405, Some("MethodNotAllowed"))
    );

    let (code, status) = ask(&client, "GET", "/version", "application/xml").await;
    assert_eq!(code, 406);
    assert_eq!(
        status["message"],
        "406: Not Acceptable\n\nAvailable representations: application/json"
    );

    let widgets = format!("/apis/conformance.kubeforge.dev/v1/namespaces/{ns}/widgets");
    // A real server answers 429 (its storage initialising) for a moment after the CRD is
    // established.
    let mut tries = 0;
    let (code, list) = loop {
        let (code, list) = ask(&client, "GET", &widgets, "application/*").await;
        tries += 1;
        if code != 429 || tries == 30 {
            break (code, list);
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    };
    assert_eq!((code, list["kind"].as_str()), (200, Some("WidgetList")));
    let (code, status) = ask(&client, "GET", &widgets, "text/plain").await;
    assert_eq!(
        (code, status["reason"].as_str()),
        (406, Some("NotAcceptable"))
    );
    let (code, status) = ask(&client, "GET", "/apis", "text/plain").await;
    assert_eq!(
        (code, status["reason"].as_str()),
        (406, Some("NotAcceptable"))
    );
}
