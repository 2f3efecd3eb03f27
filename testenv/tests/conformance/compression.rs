//! Response compression (`APIResponseCompression`, on by default in kube-apiserver): API
//! responses larger than 128 KiB are gzipped for a client whose `Accept-Encoding` names
//! `gzip`, watch streams never are; `/openapi/v2` sits behind a gzip handler of its own
//! (1400 bytes, qualities read, always `Vary: Accept-Encoding`); the `/openapi/v3`
//! documents are never compressed. And the framing Go's `net/http` gives a handler's answer:
//! its `Content-Length` when it fits the 2048-byte write buffer (HTTP/1.1), chunked when not.

use std::io::Read;

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{client, eventually, exchange};

/// `method path` with these headers and an optional JSON body: status, headers and the body
/// as sent on the wire.
async fn ask(
    client: &kube::Client,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> (u16, http::HeaderMap, bytes::Bytes) {
    let mut all = headers.to_vec();
    if body.is_some() {
        all.push(("Content-Type", "application/json"));
    }
    exchange(client, method, path, &all, body).await
}

fn gunzip(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(body)
        .read_to_end(&mut out)
        .expect("a gzip body");
    out
}

fn encoding(headers: &http::HeaderMap) -> Option<&str> {
    headers.get("content-encoding").map(|v| v.to_str().unwrap())
}

fn varies(headers: &http::HeaderMap) -> Vec<&str> {
    headers
        .get_all("vary")
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect()
}

fn config_map(name: &str, size: usize) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
        "data": {"k": "x".repeat(size)}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_responses_over_128_kib_are_gzipped_when_the_client_names_gzip() {
    let env = env().await;
    let client = client(&env).await;
    let base = format!("/api/v1/namespaces/{}/configmaps", env.namespace());
    // Created with gzip accepted: the 201 carries the whole object, compressed too.
    let big = config_map("big", 140 * 1024);
    let (code, headers, body) = ask(
        &client,
        "POST",
        &base,
        &[("Accept-Encoding", "gzip")],
        Some(&big),
    )
    .await;
    assert_eq!(code, 201);
    assert_eq!(encoding(&headers), Some("gzip"));
    let created: Value = serde_json::from_slice(&gunzip(&body)).unwrap();
    assert_eq!(created["data"], big["data"]);
    let small = config_map("small", 100 * 1024);
    let (code, headers, _) = ask(
        &client,
        "POST",
        &base,
        &[("Accept-Encoding", "gzip")],
        Some(&small),
    )
    .await;
    assert_eq!((code, encoding(&headers)), (201, None));

    let big_path = format!("{base}/big");
    for accept_encoding in ["gzip", "deflate, gzip", " gzip "] {
        let (code, headers, body) = ask(
            &client,
            "GET",
            &big_path,
            &[("Accept-Encoding", accept_encoding)],
            None,
        )
        .await;
        assert_eq!(code, 200);
        assert_eq!(encoding(&headers), Some("gzip"), "{accept_encoding:?}");
        assert_eq!(varies(&headers), ["Accept-Encoding"], "{accept_encoding:?}");
        assert!(body.len() < 10 * 1024, "{} bytes", body.len());
        let object: Value = serde_json::from_slice(&gunzip(&body)).unwrap();
        assert_eq!(object["data"], big["data"]);
    }
    // The API response writer takes the bare token only (no quality, exact case), and
    // nothing at all without the header.
    for headers in [
        &[("Accept-Encoding", "gzip;q=1")][..],
        &[("Accept-Encoding", "GZIP")],
        &[("Accept-Encoding", "*")],
        &[],
    ] {
        let (code, answer, body) = ask(&client, "GET", &big_path, headers, None).await;
        assert_eq!(code, 200);
        assert_eq!(encoding(&answer), None, "{headers:?}");
        assert!(varies(&answer).is_empty(), "{headers:?}");
        let object: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(object["metadata"]["name"], "big");
    }
    // 128 KiB and less goes out as it is.
    let (code, headers, body) = ask(
        &client,
        "GET",
        &format!("{base}/small"),
        &[("Accept-Encoding", "gzip")],
        None,
    )
    .await;
    assert_eq!((code, encoding(&headers)), (200, None));
    assert!(body.len() > 100 * 1024);
    // A list holding both is over the threshold.
    let (code, headers, body) =
        ask(&client, "GET", &base, &[("Accept-Encoding", "gzip")], None).await;
    assert_eq!((code, encoding(&headers)), (200, Some("gzip")));
    let list: Value = serde_json::from_slice(&gunzip(&body)).unwrap();
    assert_eq!(list["kind"], "ConfigMapList");
    // A watch stream is not compressed, whatever the size of its events.
    let (code, headers, body) = ask(
        &client,
        "GET",
        &format!("{base}?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dbig"),
        &[("Accept-Encoding", "gzip")],
        None,
    )
    .await;
    assert_eq!((code, encoding(&headers)), (200, None));
    let event: Value = serde_json::from_slice(body.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert_eq!(event["type"], "ADDED");
    assert_eq!(event["object"]["metadata"]["name"], "big");
}

/// The announced length, if any, and whether the body came chunked.
fn framing(headers: &http::HeaderMap) -> (Option<usize>, bool) {
    let length = headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse().ok());
    let chunked = headers
        .get(http::header::TRANSFER_ENCODING)
        .is_some_and(|v| v == "chunked");
    (length, chunked)
}

#[tokio::test]
async fn answers_longer_than_the_write_buffer_go_out_chunked() {
    let env = env().await;
    let client = client(&env).await;
    let base = format!("/api/v1/namespaces/{}/configmaps", env.namespace());
    for (name, size) in [("short", 200), ("long", 3000)] {
        let (code, _, _) = ask(&client, "POST", &base, &[], Some(&config_map(name, size))).await;
        assert_eq!(code, 201);
    }
    // The clients of these tests speak HTTP/1.1.
    let (code, headers, body) = ask(&client, "GET", &format!("{base}/short"), &[], None).await;
    assert_eq!(code, 200);
    assert!(body.len() <= 2048, "{} bytes", body.len());
    assert_eq!(framing(&headers), (Some(body.len()), false));
    let (code, headers, body) = ask(&client, "GET", &format!("{base}/long"), &[], None).await;
    assert_eq!(code, 200);
    assert!(body.len() > 2048, "{} bytes", body.len());
    assert_eq!(framing(&headers), (None, true));
    // A Status error is short: its length is announced.
    let (code, headers, body) = ask(&client, "GET", &format!("{base}/absent"), &[], None).await;
    assert_eq!(code, 404);
    assert_eq!(framing(&headers), (Some(body.len()), false));
    // A served document (`http.ServeContent`) always announces its length.
    let (code, headers, body) = ask(&client, "GET", "/openapi/v2", &[], None).await;
    assert_eq!(code, 200);
    assert_eq!(framing(&headers), (Some(body.len()), false));
    // Gzipped by its handler, it loses it.
    let (code, headers, _) = ask(
        &client,
        "GET",
        "/openapi/v2",
        &[("Accept-Encoding", "gzip")],
        None,
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(framing(&headers), (None, true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_v2_is_gzipped_by_its_own_handler() {
    let env = env().await;
    let client = client(&env).await;
    // Other tests install CRDs on a shared control plane: the checks run again until the
    // document stays the same through one round.
    let checked = eventually(60, || gzip_handler_checks(&client)).await;
    assert!(checked.is_some(), "the document kept changing");
}

/// The gzip handler's answers for one version of `/openapi/v2`; `None` when the document
/// changed during the round.
async fn gzip_handler_checks(client: &kube::Client) -> Option<()> {
    let (code, headers, plain) = ask(client, "GET", "/openapi/v2", &[], None).await;
    assert_eq!(code, 200);
    assert_eq!(encoding(&headers), None);
    assert_eq!(varies(&headers), ["Accept-Encoding", "Accept"]);
    let etag = headers["etag"].to_str().unwrap().to_string();
    for accept_encoding in ["gzip", "GZIP", "gzip;q=0.5", "deflate, gzip"] {
        let (code, headers, body) = ask(
            client,
            "GET",
            "/openapi/v2",
            &[("Accept-Encoding", accept_encoding)],
            None,
        )
        .await;
        assert_eq!(code, 200);
        assert_eq!(encoding(&headers), Some("gzip"), "{accept_encoding:?}");
        assert_eq!(varies(&headers), ["Accept-Encoding", "Accept"]);
        if headers["etag"] != etag.as_str() {
            return None;
        }
        assert_eq!(headers["accept-ranges"], "bytes");
        assert!(headers.contains_key("last-modified"));
        let doc: Value = serde_json::from_slice(&gunzip(&body)).unwrap();
        assert_eq!(doc["swagger"], "2.0");
        assert!(body.len() < plain.len() / 4);
    }
    for accept_encoding in ["gzip;q=0", "*", "deflate"] {
        let (code, headers, _) = ask(
            client,
            "GET",
            "/openapi/v2",
            &[("Accept-Encoding", accept_encoding)],
            None,
        )
        .await;
        assert_eq!(
            (code, encoding(&headers)),
            (200, None),
            "{accept_encoding:?}"
        );
        assert_eq!(varies(&headers), ["Accept-Encoding", "Accept"]);
    }
    // The protobuf form too.
    let (code, headers, body) = ask(
        client,
        "GET",
        "/openapi/v2",
        &[
            ("Accept-Encoding", "gzip"),
            (
                "Accept",
                "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
            ),
        ],
        None,
    )
    .await;
    assert_eq!((code, encoding(&headers)), (200, Some("gzip")));
    assert_eq!(gunzip(&body)[..5], *b"\x0a\x032.0");
    // A range of at least 1400 bytes is compressed, a shorter one is not; the range is of
    // the plain document.
    for (range, size, gzipped) in [("bytes=0-1398", 1399, false), ("bytes=0-1399", 1400, true)] {
        let (code, headers, body) = ask(
            client,
            "GET",
            "/openapi/v2",
            &[("Accept-Encoding", "gzip"), ("Range", range)],
            None,
        )
        .await;
        assert_eq!(code, 206);
        if headers.get("etag").is_some_and(|e| e != etag.as_str()) {
            return None;
        }
        assert_eq!(
            headers["content-range"],
            format!("bytes 0-{}/{}", size - 1, plain.len()).as_str()
        );
        assert_eq!(encoding(&headers).is_some(), gzipped, "{range}");
        let bytes = if gzipped {
            gunzip(&body)
        } else {
            body.to_vec()
        };
        assert_eq!(bytes, plain[..size]);
    }
    // Answers without a body, and HEAD, are not compressed; they still vary.
    let (code, headers, body) = ask(
        client,
        "GET",
        "/openapi/v2",
        &[("Accept-Encoding", "gzip"), ("If-None-Match", &etag)],
        None,
    )
    .await;
    if code == 200 {
        return None;
    }
    assert_eq!((code, encoding(&headers)), (304, None));
    assert!(body.is_empty());
    assert_eq!(varies(&headers), ["Accept-Encoding", "Accept"]);
    let (code, headers, _) = ask(
        client,
        "GET",
        "/openapi/v2",
        &[("Accept-Encoding", "gzip"), ("Accept", "text/html")],
        None,
    )
    .await;
    assert_eq!((code, encoding(&headers)), (406, None));
    assert_eq!(varies(&headers), ["Accept-Encoding", "Accept"]);
    let (code, headers, body) = ask(
        client,
        "HEAD",
        "/openapi/v2",
        &[("Accept-Encoding", "gzip")],
        None,
    )
    .await;
    assert_eq!((code, encoding(&headers)), (200, None));
    assert!(body.is_empty());
    if headers.get("etag").is_some_and(|e| e != etag.as_str()) {
        return None;
    }
    assert_eq!(headers["content-length"], plain.len().to_string().as_str());
    Some(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_v3_documents_are_never_gzipped() {
    let env = env().await;
    let client = client(&env).await;
    for path in ["/openapi/v3/apis/apps/v1", "/openapi/v3"] {
        let (code, headers, body) =
            ask(&client, "GET", path, &[("Accept-Encoding", "gzip")], None).await;
        assert_eq!((code, encoding(&headers)), (200, None), "{path}");
        assert!(!varies(&headers).contains(&"Accept-Encoding"), "{path}");
        assert!(serde_json::from_slice::<Value>(&body).is_ok(), "{path}");
    }
}
