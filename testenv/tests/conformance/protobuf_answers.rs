//! Protobuf answers, as a client asking `Accept: application/vnd.kubernetes.protobuf` (client-go
//! configured for protobuf, kube-controller-manager) gets them: the `k8s\0` envelope around the
//! object, a list or a `Status` error, a watch's length-prefixed events; JSON for a custom
//! resource when JSON is accepted too, 406 when it is not (the error itself in protobuf), and
//! 406 for a Table in protobuf, refused before anything is done.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::protobuf_wire::read_varint;
use crate::support::raw::{client, exchange, exchange_text};

const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

/// One field of a message: its number and its value (a varint or a length-delimited payload).
#[derive(Debug, Clone, PartialEq)]
enum Field {
    Varint(u64),
    Bytes(Vec<u8>),
}

/// The fields of a message, in the order written.
fn fields(b: &[u8]) -> Vec<(u64, Field)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < b.len() {
        let key = read_varint(b, &mut at);
        let field = match key & 7 {
            0 => Field::Varint(read_varint(b, &mut at)),
            2 => {
                let len = read_varint(b, &mut at) as usize;
                at += len;
                Field::Bytes(b[at - len..at].to_vec())
            }
            wire => panic!("unexpected wire type {wire}"),
        };
        out.push((key >> 3, field));
    }
    out
}

/// The payloads of field `number`.
fn all(message: &[u8], number: u64) -> Vec<Vec<u8>> {
    fields(message)
        .into_iter()
        .filter_map(|(n, f)| match (n == number, f) {
            (true, Field::Bytes(b)) => Some(b),
            _ => None,
        })
        .collect()
}

/// The payload of field `number` (the first).
fn one(message: &[u8], number: u64) -> Vec<u8> {
    all(message, number)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("field {number} in {message:02x?}"))
}

fn text(message: &[u8], number: u64) -> String {
    String::from_utf8(one(message, number)).unwrap()
}

/// An envelope's apiVersion, kind and message; its content encoding and type are empty.
fn envelope(body: &[u8]) -> (String, String, Vec<u8>) {
    let unknown = body.strip_prefix(b"k8s\0").expect("the protobuf magic");
    let numbers: Vec<u64> = fields(unknown).iter().map(|(n, _)| *n).collect();
    assert_eq!(
        numbers,
        [1, 2, 3, 4],
        "typeMeta, raw, contentEncoding, contentType"
    );
    assert!(one(unknown, 3).is_empty() && one(unknown, 4).is_empty());
    let type_meta = one(unknown, 1);
    (text(&type_meta, 1), text(&type_meta, 2), one(unknown, 2))
}

/// Whether the fields of `message` come in field-number order.
fn in_order(message: &[u8]) -> bool {
    let numbers: Vec<u64> = fields(message).iter().map(|(n, _)| *n).collect();
    numbers.windows(2).all(|w| w[0] <= w[1])
}

/// The entries of a `map<string, string>` field, as written.
fn entries(message: &[u8], number: u64) -> Vec<(String, String)> {
    all(message, number)
        .iter()
        .map(|entry| (text(entry, 1), text(entry, 2)))
        .collect()
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put(out: &mut Vec<u8>, number: u64, payload: &[u8]) {
    put_varint(out, (number << 3) | 2);
    put_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

fn put_int(out: &mut Vec<u8>, number: u64, v: u64) {
    put_varint(out, number << 3);
    put_varint(out, v);
}

/// The bytes kube-apiserver writes for a 404 of the configmap `name`.
fn not_found(name: &str) -> Vec<u8> {
    let mut list_meta = Vec::new();
    for n in 1..=3 {
        put(&mut list_meta, n, b"");
    }
    let mut details = Vec::new();
    put(&mut details, 1, name.as_bytes());
    put(&mut details, 2, b"");
    put(&mut details, 3, b"configmaps");
    put_int(&mut details, 5, 0);
    put(&mut details, 6, b"");
    let mut status = Vec::new();
    put(&mut status, 1, &list_meta);
    put(&mut status, 2, b"Failure");
    put(
        &mut status,
        3,
        format!("configmaps \"{name}\" not found").as_bytes(),
    );
    put(&mut status, 4, b"NotFound");
    put(&mut status, 5, &details);
    put_int(&mut status, 6, 404);
    let mut type_meta = Vec::new();
    put(&mut type_meta, 1, b"v1");
    put(&mut type_meta, 2, b"Status");
    let mut out = b"k8s\0".to_vec();
    put(&mut out, 1, &type_meta);
    put(&mut out, 2, &status);
    put(&mut out, 3, b"");
    put(&mut out, 4, b"");
    out
}

fn content_type(headers: &http::HeaderMap) -> &str {
    headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

/// A configmap read in protobuf holds what its JSON says, written as Go writes it: metadata
/// first, every non-pointer string (empty ones too), map entries in key order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_read_in_protobuf_is_the_one_read_in_json() {
    let env = env().await;
    let client = client(&env).await;
    let ns = env.namespace().to_string();
    let collection = format!("/api/v1/namespaces/{ns}/configmaps");
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "pb-answer", "labels": {"b": "2", "a": "1"}},
        "data": {"z": "last", "k": "v"}});
    let json_accept = [
        ("Accept", "application/json"),
        ("Content-Type", "application/json"),
    ];
    let (code, _, _) = exchange(&client, "POST", &collection, &json_accept, Some(&body)).await;
    assert_eq!(code, 201);
    let path = format!("{collection}/pb-answer");
    let (_, _, json) = exchange(&client, "GET", &path, &json_accept, None).await;
    let json: Value = serde_json::from_slice(&json).unwrap();
    for accept in [
        PROTOBUF.to_string(),
        format!("{PROTOBUF}, application/json"),
        format!("application/json;q=0.5, {PROTOBUF}"),
    ] {
        let (code, headers, bytes) =
            exchange(&client, "GET", &path, &[("Accept", &accept)], None).await;
        assert_eq!(code, 200, "{accept}");
        assert_eq!(content_type(&headers), PROTOBUF, "{accept}");
        let (api_version, kind, raw) = envelope(&bytes);
        assert_eq!((api_version.as_str(), kind.as_str()), ("v1", "ConfigMap"));
        assert!(in_order(&raw));
        let meta = one(&raw, 1);
        assert!(in_order(&meta));
        assert_eq!(text(&meta, 1), "pb-answer");
        // generateName and selfLink: empty, written all the same.
        assert_eq!(text(&meta, 2), "");
        assert_eq!(text(&meta, 3), ns);
        assert_eq!(text(&meta, 5), json["metadata"]["uid"]);
        assert_eq!(text(&meta, 6), json["metadata"]["resourceVersion"]);
        let created = chrono::DateTime::parse_from_rfc3339(
            json["metadata"]["creationTimestamp"].as_str().unwrap(),
        )
        .unwrap();
        let time = fields(&one(&meta, 8));
        assert_eq!(
            time,
            [
                (1, Field::Varint(created.timestamp() as u64)),
                (2, Field::Varint(0))
            ]
        );
        let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(entries(&meta, 11), pairs(&[("a", "1"), ("b", "2")]));
        assert_eq!(entries(&raw, 2), pairs(&[("k", "v"), ("z", "last")]));
        // `immutable` is a pointer: not written when unset.
        assert!(all(&raw, 4).is_empty() && fields(&raw).iter().all(|(n, _)| *n != 4));
    }
    // JSON first: JSON.
    let accept = format!("application/json, {PROTOBUF};q=0.9");
    let (_, headers, _) = exchange(&client, "GET", &path, &[("Accept", &accept)], None).await;
    assert_eq!(content_type(&headers), "application/json");
}

/// A raw value (a DeviceClass's opaque `parameters`, a `runtime.RawExtension`) is written in
/// protobuf with the bytes kube-apiserver keeps: as its client sent them after a create (white
/// space and member order included; JSON compacts them), compacted after a merge patch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raw_value_in_protobuf_keeps_the_bytes_its_client_sent() {
    let env = env().await;
    let client = client(&env).await;
    let name = format!("{}-pb-raw", env.namespace());
    let collection = "/apis/resource.k8s.io/v1/deviceclasses";
    let parameters = "{ \"z\" : 1.0,\n  \"a\": [1e3, \"\\u003c\"] }";
    let body = format!(
        r#"{{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {{"name": "{name}"}},
            "spec": {{"config": [{{"opaque": {{"driver": "d.example.com", "parameters": {parameters}}}}}]}}}}"#
    );
    let json = [
        ("Accept", "application/json"),
        ("Content-Type", "application/json"),
    ];
    let (code, _, _) = exchange_text(&client, "POST", collection, &json, &body).await;
    assert_eq!(code, 201);
    let path = format!("{collection}/{name}");
    // DeviceClass.spec (2) .config[0] (2) .opaque (1, inlined in 1) .parameters (2) .raw (1).
    let raw_parameters = |bytes: &[u8]| {
        let (_, kind, message) = envelope(bytes);
        assert_eq!(kind, "DeviceClass");
        let config = one(&one(&message, 2), 2);
        let opaque = one(&one(&config, 1), 1);
        String::from_utf8(one(&one(&opaque, 2), 1)).unwrap()
    };
    let (_, _, bytes) = exchange(&client, "GET", &path, &[("Accept", PROTOBUF)], None).await;
    assert_eq!(raw_parameters(&bytes), parameters);
    let (_, _, answer) = exchange(&client, "GET", &path, &json, None).await;
    let answer = String::from_utf8(answer.to_vec()).unwrap();
    assert!(
        answer.contains(r#""parameters":{"z":1.0,"a":[1e3,"\u003c"]}"#),
        "{answer}"
    );
    let merge = [
        ("Accept", PROTOBUF),
        ("Content-Type", "application/merge-patch+json"),
    ];
    let labels = json!({"metadata": {"labels": {"a": "b"}}});
    let (code, _, bytes) = exchange(&client, "PATCH", &path, &merge, Some(&labels)).await;
    assert_eq!(code, 200);
    assert_eq!(raw_parameters(&bytes), r#"{"z":1.0,"a":[1e3,"\u003c"]}"#);
    let (code, _, _) = exchange(&client, "DELETE", &path, &json, None).await;
    assert_eq!(code, 200);
}

/// Errors are `Status` objects in protobuf; a Table cannot be written in protobuf, so a request
/// asking only for that is refused (in JSON) before it is carried out; a custom resource has no
/// protobuf form: JSON when JSON is accepted too, else 406 (in protobuf, the error's form).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_in_protobuf_and_what_is_refused() {
    let env = env().await;
    let client = client(&env).await;
    let ns = env.namespace().to_string();
    let collection = format!("/api/v1/namespaces/{ns}/configmaps");
    let accept = [("Accept", PROTOBUF)];
    let (code, headers, bytes) = exchange(
        &client,
        "GET",
        &format!("{collection}/pb-missing"),
        &accept,
        None,
    )
    .await;
    assert_eq!(code, 404);
    assert_eq!(content_type(&headers), PROTOBUF);
    assert_eq!(bytes.as_ref(), not_found("pb-missing").as_slice());

    let table = format!("{PROTOBUF};as=Table;g=meta.k8s.io;v=v1");
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "pb-table"}});
    let headers = [
        ("Accept", table.as_str()),
        ("Content-Type", "application/json"),
    ];
    let (code, answer_headers, bytes) =
        exchange(&client, "POST", &collection, &headers, Some(&body)).await;
    assert_eq!(code, 406);
    assert_eq!(content_type(&answer_headers), "application/json");
    let status: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        status["message"],
        "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
    );
    let (code, _, _) = exchange(
        &client,
        "GET",
        &format!("{collection}/pb-table"),
        &accept,
        None,
    )
    .await;
    assert_eq!(code, 404, "a refused create is not carried out");

    let widgets = format!("/apis/conformance.kubeforge.dev/v1/namespaces/{ns}/widgets");
    let (code, headers, bytes) = exchange(&client, "GET", &widgets, &accept, None).await;
    assert_eq!(code, 406);
    assert_eq!(content_type(&headers), PROTOBUF);
    let (_, kind, raw) = envelope(&bytes);
    assert_eq!(kind, "Status");
    assert_eq!(text(&raw, 4), "NotAcceptable");
    let both = format!("{PROTOBUF}, application/json");
    let (code, headers, bytes) =
        exchange(&client, "GET", &widgets, &[("Accept", &both)], None).await;
    assert_eq!(code, 200);
    assert_eq!(content_type(&headers), "application/json");
    let list: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(list["kind"], "WidgetList");
}

/// A list is its ListMeta and items; a watch in protobuf is a stream of big-endian
/// length-prefixed `WatchEvent`s, each object a RawExtension holding its envelope.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_and_watches_in_protobuf() {
    let env = env().await;
    let client = client(&env).await;
    let ns = env.namespace().to_string();
    let collection = format!("/api/v1/namespaces/{ns}/configmaps");
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "pb-listed"}});
    let json_headers = [
        ("Accept", "application/json"),
        ("Content-Type", "application/json"),
    ];
    let (code, _, _) = exchange(&client, "POST", &collection, &json_headers, Some(&body)).await;
    assert_eq!(code, 201);
    let selected = format!("{collection}?fieldSelector=metadata.name%3Dpb-listed");
    let (code, headers, bytes) =
        exchange(&client, "GET", &selected, &[("Accept", PROTOBUF)], None).await;
    assert_eq!(code, 200);
    assert_eq!(content_type(&headers), PROTOBUF);
    let (_, kind, raw) = envelope(&bytes);
    assert_eq!(kind, "ConfigMapList");
    let list_meta = one(&raw, 1);
    assert!(
        !text(&list_meta, 2).is_empty(),
        "the list's resourceVersion"
    );
    let items = all(&raw, 2);
    assert_eq!(items.len(), 1);
    assert_eq!(text(&one(&items[0], 1), 1), "pb-listed");

    let watch = format!("{selected}&watch=true&timeoutSeconds=1");
    let stream = format!("{PROTOBUF};stream=watch");
    let (code, headers, bytes) =
        exchange(&client, "GET", &watch, &[("Accept", &stream)], None).await;
    assert_eq!(code, 200);
    assert_eq!(content_type(&headers), stream);
    let len = u32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize;
    assert_eq!(bytes.len(), 4 + len, "one event: {bytes:02x?}");
    let event = &bytes[4..];
    assert_eq!(text(event, 1), "ADDED");
    let object = one(&one(event, 2), 1);
    let (api_version, kind, raw) = envelope(&object);
    assert_eq!((api_version.as_str(), kind.as_str()), ("v1", "ConfigMap"));
    assert_eq!(text(&one(&raw, 1), 1), "pb-listed");
}

/// Discovery documents are written in protobuf too: `/api/v1` as an `APIResourceList` with no
/// apiVersion (as its JSON has none), `/apis/apps/v1` with `v1`, each resource's verbs a message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_documents_in_protobuf() {
    let env = env().await;
    let client = client(&env).await;
    for (path, api_version, group_version) in
        [("/api/v1", "", "v1"), ("/apis/apps/v1", "v1", "apps/v1")]
    {
        let (code, headers, bytes) =
            exchange(&client, "GET", path, &[("Accept", PROTOBUF)], None).await;
        assert_eq!(code, 200, "{path}");
        assert_eq!(content_type(&headers), PROTOBUF, "{path}");
        let (version, kind, raw) = envelope(&bytes);
        assert_eq!(
            (version.as_str(), kind.as_str()),
            (api_version, "APIResourceList")
        );
        assert_eq!(text(&raw, 1), group_version);
        let resources = all(&raw, 2);
        assert!(resources.iter().all(|r| in_order(r)));
        // Each resource's verbs: a message of strings (`bindings` only `create`, lists `get`
        // too).
        let verbs: Vec<Vec<String>> = resources
            .iter()
            .map(|r| {
                all(&one(r, 4), 1)
                    .into_iter()
                    .map(|v| String::from_utf8(v).unwrap())
                    .collect()
            })
            .collect();
        assert!(verbs.iter().all(|v| !v.is_empty()), "{path}: {verbs:?}");
        assert!(
            verbs.iter().any(|v| v.iter().any(|v| v == "watch")),
            "{path}"
        );
    }
}

/// Aggregated discovery asked for in protobuf first (client-go configured for protobuf asks so)
/// is an `APIGroupDiscoveryList` in the envelope: each group its ObjectMeta and versions, each
/// version its resources (name, `responseKind` as group, version and kind) and freshness.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregated_discovery_in_protobuf() {
    let env = env().await;
    let client = client(&env).await;
    let form = ";g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    let accept = format!("{PROTOBUF}{form},application/json{form},application/json");
    let (code, headers, bytes) =
        exchange(&client, "GET", "/apis", &[("Accept", &accept)], None).await;
    assert_eq!(code, 200);
    assert_eq!(content_type(&headers), format!("{PROTOBUF}{form}"));
    let (version, kind, raw) = envelope(&bytes);
    assert_eq!(
        (version.as_str(), kind.as_str()),
        ("apidiscovery.k8s.io/v2", "APIGroupDiscoveryList")
    );
    let groups = all(&raw, 2);
    let names: Vec<String> = groups.iter().map(|g| text(&one(g, 1), 1)).collect();
    assert_eq!(
        names.first().map(String::as_str),
        Some("apiregistration.k8s.io")
    );
    let apps = &groups[names.iter().position(|n| n == "apps").expect("apps")];
    let v1 = one(apps, 2);
    assert_eq!(
        (text(&v1, 1), text(&v1, 3)),
        ("v1".to_string(), "Current".to_string())
    );
    let deployments = all(&v1, 2)
        .into_iter()
        .find(|r| text(r, 1) == "deployments")
        .expect("deployments");
    let response_kind = one(&deployments, 2);
    assert_eq!(
        (
            text(&response_kind, 1),
            text(&response_kind, 2),
            text(&response_kind, 3)
        ),
        (String::new(), String::new(), "Deployment".to_string())
    );
    assert_eq!(text(&deployments, 3), "Namespaced");
    // The JSON form is asked for first: JSON.
    let json_first = format!("application/json{form}, {PROTOBUF}{form}");
    let (code, headers, _) =
        exchange(&client, "GET", "/apis", &[("Accept", &json_first)], None).await;
    assert_eq!(
        (code, content_type(&headers)),
        (200, format!("application/json{form}").as_str())
    );
}
