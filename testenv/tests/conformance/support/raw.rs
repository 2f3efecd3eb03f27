//! Raw requests (status code and body, whatever the content type) and clients that
//! authenticate with a bearer token, for the subresources typed clients do not cover.

#![allow(dead_code)]

use std::time::Duration;

use http_body_util::BodyExt;
use kubeforge_testenv::TestEnv;
use serde_json::Value;

/// The `Warning` headers of an answer, in the order sent, as text.
pub fn warnings(headers: &http::HeaderMap) -> Vec<String> {
    headers
        .get_all(http::header::WARNING)
        .iter()
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .collect()
}

/// Sends `method path` with these headers and an optional JSON body: the answer's status
/// code, headers and raw body bytes (as sent, before any decoding).
pub async fn exchange(
    client: &kube::Client,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> (u16, http::HeaderMap, bytes::Bytes) {
    let text = body.map(Value::to_string).unwrap_or_default();
    exchange_text(client, method, path, headers, &text).await
}

/// [`exchange`] with a body sent as it is written (a JSON value would be written again with
/// its keys sorted).
pub async fn exchange_text(
    client: &kube::Client,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, http::HeaderMap, bytes::Bytes) {
    let mut request = http::Request::builder().method(method).uri(path);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let request = request.body(body.as_bytes().to_vec()).unwrap();
    let response = client
        .send(request.map(kube::client::Body::from))
        .await
        .unwrap();
    let code = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (code, headers, bytes)
}

/// Sends `method path` with an optional JSON body; the answer's status code and JSON body
/// (`Null` when empty, a string when not JSON).
pub async fn send(
    client: &kube::Client,
    method: &str,
    path: &str,
    content_type: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let headers: &[(&str, &str)] = if body.is_some() {
        &[("Content-Type", content_type)]
    } else {
        &[]
    };
    let (code, _, bytes) = exchange(client, method, path, headers, body.as_ref()).await;
    let value = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
    };
    (code, value)
}

async fn config(env: &TestEnv) -> kube::Config {
    let kubeconfig = kube::config::Kubeconfig::read_from(env.kubeconfig_path()).unwrap();
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap();
    // 429, 503 and 504 are answers under test here, not reasons to try again.
    config.default_retry = false;
    config
}

/// A client of `env`'s server (its admin) that does not retry 429, 503 and 504.
pub async fn client(env: &TestEnv) -> kube::Client {
    kube::Client::try_from(config(env).await).unwrap()
}

/// A client of `env`'s server that authenticates with `token` only.
pub async fn client_with_token(env: &TestEnv, token: &str) -> kube::Client {
    let mut config = config(env).await;
    config.auth_info = kube::config::AuthInfo {
        token: Some(token.to_string().into()),
        ..Default::default()
    };
    kube::Client::try_from(config).unwrap()
}

/// Polls `check` every 100 ms until it returns `Some` (a real cluster's controllers act a
/// moment after the write), for at most `secs` seconds.
pub async fn eventually<T, F, Fut>(secs: u64, mut check: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = check().await {
            return Some(v);
        }
        if tokio::time::Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The `kubernetes` EndpointSlice in `default`, which a real server writes a moment after it
/// is ready.
pub async fn kubernetes_endpoint_slice(client: &kube::Client) -> Value {
    eventually(20, || async {
        let (code, slice) = send(
            client,
            "GET",
            "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes",
            "",
            None,
        )
        .await;
        (code == 200).then_some(slice)
    })
    .await
    .expect("the kubernetes EndpointSlice exists")
}

/// The `field: message` of each cause of a refusal, in order.
pub fn causes(body: &Value) -> Vec<String> {
    body["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            format!(
                "{}: {}",
                c["field"].as_str().unwrap_or_default(),
                c["message"].as_str().unwrap_or_default()
            )
        })
        .collect()
}
