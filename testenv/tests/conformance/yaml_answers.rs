//! YAML answers, as a client asking `Accept: application/yaml` gets them: the JSON answer
//! converted as sigs.k8s.io/yaml converts it (keys sorted with numbers compared as numbers,
//! strings that would read as another type quoted, indicators single-quoted, line feeds in
//! literal blocks), Status errors in YAML, and a watch refused (YAML has no stream form).

use serde_json::json;

use crate::common::env;
use crate::support::raw::{client, exchange};

const YAML: &str = "application/yaml";

fn content_type(headers: &http::HeaderMap) -> &str {
    headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_read_in_yaml_is_written_as_yaml_v2_writes_its_json() {
    let env = env().await;
    let client = client(&env).await;
    let ns = env.namespace().to_string();
    let collection = format!("/api/v1/namespaces/{ns}/configmaps");
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "yaml-answer"},
        "data": {"b": "true", "a10": "x", "a2": "123", "multi": "l1\nl2\n", "ts": "2024-01-01",
            "e": "", "colon": "a: b", "plain": "just words"}});
    let headers = [("Accept", YAML), ("Content-Type", "application/json")];
    let (code, created_headers, _) =
        exchange(&client, "POST", &collection, &headers, Some(&body)).await;
    assert_eq!((code, content_type(&created_headers)), (201, YAML));

    let path = format!("{collection}/yaml-answer");
    let (code, headers, bytes) = exchange(&client, "GET", &path, &[("Accept", YAML)], None).await;
    assert_eq!((code, content_type(&headers)), (200, YAML));
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    assert!(text.starts_with("apiVersion: v1\ndata:\n"), "{text}");
    assert!(text.ends_with('\n') && !text.ends_with("\n\n"), "{text}");
    let data = concat!(
        "data:\n",
        "  a2: \"123\"\n",
        "  a10: x\n",
        "  b: \"true\"\n",
        "  colon: 'a: b'\n",
        "  e: \"\"\n",
        "  multi: |\n",
        "    l1\n",
        "    l2\n",
        "  plain: just words\n",
        "  ts: \"2024-01-01\"\n",
        "kind: ConfigMap\n",
        "metadata:\n",
    );
    assert!(text.contains(data), "{text}");
    assert!(
        text.contains(&format!("  name: yaml-answer\n  namespace: {ns}\n")),
        "{text}"
    );
    // `?pretty` changes nothing in YAML.
    let pretty = format!("{path}?pretty=true");
    let (_, _, again) = exchange(&client, "GET", &pretty, &[("Accept", YAML)], None).await;
    assert_eq!(String::from_utf8_lossy(&again), text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_are_yaml_and_a_watch_in_yaml_is_refused() {
    let env = env().await;
    let client = client(&env).await;
    let ns = env.namespace().to_string();
    let accept = [("Accept", YAML)];
    let missing = format!("/api/v1/namespaces/{ns}/configmaps/nope");
    let (code, headers, bytes) = exchange(&client, "GET", &missing, &accept, None).await;
    assert_eq!((code, content_type(&headers)), (404, YAML));
    assert_eq!(
        String::from_utf8_lossy(&bytes),
        concat!(
            "apiVersion: v1\n",
            "code: 404\n",
            "details:\n",
            "  kind: configmaps\n",
            "  name: nope\n",
            "kind: Status\n",
            "message: configmaps \"nope\" not found\n",
            "metadata: {}\n",
            "reason: NotFound\n",
            "status: Failure\n",
        )
    );

    let watch = format!("/api/v1/namespaces/{ns}/configmaps?watch=1&timeoutSeconds=1");
    for accept in [YAML, "application/yaml, application/json"] {
        let (code, headers, bytes) =
            exchange(&client, "GET", &watch, &[("Accept", accept)], None).await;
        assert_eq!((code, content_type(&headers)), (406, YAML), "{accept}");
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            concat!(
                "apiVersion: v1\n",
                "code: 406\n",
                "kind: Status\n",
                "message: 'only the following media types are accepted: application/json;stream=watch,\n",
                "  application/vnd.kubernetes.protobuf;stream=watch'\n",
                "metadata: {}\n",
                "reason: NotAcceptable\n",
                "status: Failure\n",
            ),
            "{accept}"
        );
    }
}
