//! The webhook server over real HTTPS on loopback: defaulting patches, validation with reasons
//! and warnings, conversion round trips, malformed and oversized requests, certificate reload,
//! HTTP/1.1-only ALPN and shutdown.

use std::{
    net::SocketAddr,
    path::Path,
    sync::Arc,
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use kube::CustomResource;
use kubeforge::webhook::{
    self, Defaulter, Denied, Validator, Warnings, WebhookError, WebhookOptions, WebhookServer,
};
use rustls_pki_types::{CertificateDer, ServerName, pem::PemObject};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::{net::TcpStream, sync::oneshot, task::JoinHandle};
use tokio_rustls::TlsConnector;

/// The fixture kinds of `v1`.
pub mod v1 {
    use super::*;
    /// The hub (storage) version: image split into repository and tag, and a pause switch.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "hooks.example.com",
        version = "v1",
        kind = "Widget",
        namespaced
    )]
    pub struct WidgetSpec {
        /// Number of replicas (defaulted to 1).
        pub replicas: Option<i32>,
        /// Image repository.
        pub repository: String,
        /// Image tag (defaulted to "latest").
        pub tag: Option<String>,
        /// Whether reconciling is paused (v1beta1 keeps it in an annotation).
        pub paused: Option<bool>,
    }
}

/// The fixture kinds of `v1beta1`.
pub mod v1beta1 {
    use super::*;
    /// The older version: a size and a single image reference.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "hooks.example.com",
        version = "v1beta1",
        kind = "Widget",
        namespaced,
        storage = false
    )]
    pub struct WidgetSpec {
        /// Number of replicas.
        pub size: Option<i32>,
        /// `repository[:tag]`.
        pub image: String,
    }
}

const PAUSED: &str = "hooks.example.com/paused";

impl From<v1beta1::Widget> for v1::Widget {
    fn from(old: v1beta1::Widget) -> Self {
        let (repository, tag) = match old.spec.image.rsplit_once(':') {
            Some((repo, tag)) if !tag.contains('/') => (repo.to_string(), Some(tag.to_string())),
            _ => (old.spec.image.clone(), None),
        };
        let mut metadata = old.metadata;
        let paused = metadata
            .annotations
            .as_mut()
            .and_then(|a| a.remove(PAUSED))
            .map(|v| v == "true");
        if metadata
            .annotations
            .as_ref()
            .is_some_and(std::collections::BTreeMap::is_empty)
        {
            metadata.annotations = None;
        }
        let mut new = v1::Widget::new(
            "",
            v1::WidgetSpec {
                replicas: old.spec.size,
                repository,
                tag,
                paused,
            },
        );
        new.metadata = metadata;
        new
    }
}

impl From<v1::Widget> for v1beta1::Widget {
    fn from(new: v1::Widget) -> Self {
        let image = match &new.spec.tag {
            Some(tag) => format!("{}:{tag}", new.spec.repository),
            None => new.spec.repository.clone(),
        };
        let mut metadata = new.metadata;
        if let Some(paused) = new.spec.paused {
            metadata
                .annotations
                .get_or_insert_with(Default::default)
                .insert(PAUSED.into(), paused.to_string());
        }
        let mut old = v1beta1::Widget::new(
            "",
            v1beta1::WidgetSpec {
                size: new.spec.replicas,
                image,
            },
        );
        old.metadata = metadata;
        old
    }
}

kubeforge::conversion!(v1beta1::Widget => v1::Widget, v1::Widget => v1beta1::Widget);

/// Defaults replicas to 1 and the tag to "latest"; refuses an empty repository.
struct WidgetDefaulter;

impl Defaulter<v1::Widget> for WidgetDefaulter {
    async fn default(&self, widget: &mut v1::Widget) -> Result<(), Denied> {
        assert_ne!(widget.spec.repository, "panic", "a bug in the defaulter");
        if widget.spec.repository.is_empty() {
            return Err(Denied::new("repository must be set").with_code(422));
        }
        widget.spec.replicas.get_or_insert(1);
        widget.spec.tag.get_or_insert_with(|| "latest".into());
        Ok(())
    }
}

/// Caps replicas, forbids scaling down, protects labelled objects from deletion.
struct WidgetValidator;

impl Validator<v1::Widget> for WidgetValidator {
    async fn validate_create(&self, widget: &v1::Widget) -> Result<Warnings, Denied> {
        let replicas = widget.spec.replicas.unwrap_or(1);
        if replicas > 10 {
            return Err(Denied::new(format!("replicas {replicas} exceeds 10"))
                .with_warnings(["consider a second Widget"]));
        }
        if widget.spec.tag.as_deref() == Some("latest") {
            return Ok(vec!["the latest tag is not reproducible".into()]);
        }
        Ok(Vec::new())
    }

    async fn validate_update(
        &self,
        old: &v1::Widget,
        new: &v1::Widget,
    ) -> Result<Warnings, Denied> {
        let (was, now) = (
            old.spec.replicas.unwrap_or(1),
            new.spec.replicas.unwrap_or(1),
        );
        if now < was {
            return Err(Denied::new(format!(
                "cannot scale down from {was} to {now}"
            )));
        }
        Ok(Vec::new())
    }

    async fn validate_delete(&self, widget: &v1::Widget) -> Result<Warnings, Denied> {
        if widget
            .metadata
            .labels
            .as_ref()
            .is_some_and(|l| l.contains_key("protected"))
        {
            return Err(Denied::new(format!(
                "{} is protected",
                widget.metadata.name.as_deref().unwrap_or_default()
            )));
        }
        Ok(Vec::new())
    }
}

// ---------------------------------------------------------------- harness

/// A running server on 127.0.0.1 with its CA; dropping stops it.
struct Running {
    addr: SocketAddr,
    ca_pem: String,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
    _dir: tempfile::TempDir,
}

impl Running {
    async fn stop(mut self) {
        self.stop.take().unwrap().send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(5), &mut self.task)
            .await
            .expect("serve returns after shutdown")
            .unwrap();
    }
}

async fn start_with(options: impl FnOnce(WebhookOptions) -> WebhookOptions) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let ca = webhook::generate_self_signed(dir.path(), &["localhost", "127.0.0.1"]).unwrap();
    let base = WebhookOptions {
        bind_address: "127.0.0.1:0".parse().unwrap(),
        cert_dir: dir.path().to_path_buf(),
        cert_poll_interval: Duration::from_millis(50),
        ..WebhookOptions::default()
    };
    let server = WebhookServer::builder()
        .options(options(base))
        .defaulter::<v1::Widget>(WidgetDefaulter)
        .validator::<v1::Widget>(WidgetValidator)
        .conversion::<v1::Widget>()
        .build()
        .unwrap();
    let bound = server.bind().await.unwrap();
    let addr = bound.local_addr();
    let (stop, stopped) = oneshot::channel();
    let task = tokio::spawn(bound.serve(async {
        let _ = stopped.await;
    }));
    Running {
        addr,
        ca_pem: ca.ca_pem,
        stop: Some(stop),
        task,
        _dir: dir,
    }
}

async fn start() -> Running {
    start_with(|o| o).await
}

fn tls_config(ca_pem: &str, alpn: &[&[u8]]) -> rustls::ClientConfig {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        roots.add(cert.unwrap()).unwrap();
    }
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    config
}

async fn handshake(
    addr: SocketAddr,
    ca_pem: &str,
    alpn: &[&[u8]],
) -> std::io::Result<tokio_rustls::client::TlsStream<TcpStream>> {
    let tcp = TcpStream::connect(addr).await?;
    let connector = TlsConnector::from(Arc::new(tls_config(ca_pem, alpn)));
    tokio::time::timeout(
        Duration::from_secs(5),
        connector.connect(ServerName::try_from("localhost").unwrap(), tcp),
    )
    .await
    .expect("handshake finishes")
}

/// One keep-alive HTTP/1.1 connection to the server.
struct Client(hyper::client::conn::http1::SendRequest<Full<Bytes>>);

impl Client {
    async fn connect(running: &Running) -> Client {
        let tls = handshake(running.addr, &running.ca_pem, &[b"http/1.1"])
            .await
            .unwrap();
        let (send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
            .await
            .unwrap();
        tokio::spawn(conn);
        Client(send)
    }

    async fn post_raw(&mut self, path: &str, content_type: &str, body: Vec<u8>) -> (u16, Value) {
        let request = http::Request::post(path)
            .header("host", "localhost")
            .header("content-type", content_type)
            .body(Full::new(Bytes::from(body)))
            .unwrap();
        let response = tokio::time::timeout(Duration::from_secs(5), self.0.send_request(request))
            .await
            .expect("answered in time")
            .unwrap();
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let value = serde_json::from_slice(&body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&body)));
        (status, value)
    }

    async fn post(&mut self, path: &str, body: &Value) -> (u16, Value) {
        self.post_raw(path, "application/json", serde_json::to_vec(body).unwrap())
            .await
    }
}

const MUTATE: &str = "/mutate-hooks-example-com-v1-widget";
const VALIDATE: &str = "/validate-hooks-example-com-v1-widget";

fn admission(operation: &str, object: Value, old: Value) -> Value {
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "8a1c7a42-1d8e-4c49-a4b2-000000000001",
            "kind": {"group": "hooks.example.com", "version": "v1", "kind": "Widget"},
            "resource": {"group": "hooks.example.com", "version": "v1", "resource": "widgets"},
            "name": "w", "namespace": "default",
            "operation": operation,
            "userInfo": {"username": "tester"},
            "object": object,
            "oldObject": old,
            "dryRun": false
        }
    })
}

fn widget(spec: Value) -> Value {
    json!({
        "apiVersion": "hooks.example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "labels": {"app": "w"}},
        "spec": spec
    })
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|c| *c != b'=').map(value).collect();
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, d)| n | (u32::from(*d) << (18 - 6 * i)));
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

// ---------------------------------------------------------------- admission

#[tokio::test]
async fn defaulting_answers_with_a_patch_that_yields_the_defaulted_object() {
    let running = start().await;
    let mut client = Client::connect(&running).await;
    // "extra" is unknown to the Rust type: the patch must leave it alone.
    let object = widget(json!({"repository": "nginx", "extra": {"keep": true}}));
    let (status, answer) = client
        .post(MUTATE, &admission("CREATE", object.clone(), Value::Null))
        .await;
    assert_eq!(status, 200);
    let response = &answer["response"];
    assert_eq!(answer["kind"], "AdmissionReview");
    assert_eq!(answer["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(response["uid"], "8a1c7a42-1d8e-4c49-a4b2-000000000001");
    assert_eq!(response["allowed"], true);
    assert_eq!(response["patchType"], "JSONPatch");
    let patch: json_patch::Patch =
        serde_json::from_slice(&base64_decode(response["patch"].as_str().unwrap())).unwrap();
    let mut patched = object.clone();
    json_patch::patch(&mut patched, &patch).unwrap();
    assert_eq!(
        patched["spec"],
        json!({"repository": "nginx", "replicas": 1, "tag": "latest", "extra": {"keep": true}})
    );
    assert_eq!(patched["metadata"], object["metadata"]);

    // Already defaulted: allowed without a patch.
    let (_, answer) = client
        .post(MUTATE, &admission("UPDATE", patched.clone(), patched))
        .await;
    assert_eq!(answer["response"]["allowed"], true);
    assert!(answer["response"].get("patch").is_none(), "{answer}");

    // The defaulter can refuse.
    let (_, answer) = client
        .post(
            MUTATE,
            &admission("CREATE", widget(json!({"repository": ""})), Value::Null),
        )
        .await;
    assert_eq!(answer["response"]["allowed"], false);
    assert_eq!(answer["response"]["status"]["code"], 422);
    assert_eq!(answer["response"]["status"]["reason"], "Invalid");
    assert_eq!(
        answer["response"]["status"]["message"],
        "repository must be set"
    );
    running.stop().await;
}

#[tokio::test]
async fn validation_allows_with_warnings_and_denies_with_reason_and_warnings() {
    let running = start().await;
    let mut client = Client::connect(&running).await;
    let (status, answer) = client
        .post(
            VALIDATE,
            &admission(
                "CREATE",
                widget(json!({"repository": "nginx", "tag": "latest"})),
                Value::Null,
            ),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(answer["response"]["allowed"], true);
    assert_eq!(
        answer["response"]["warnings"],
        json!(["the latest tag is not reproducible"])
    );
    assert!(answer["response"].get("patch").is_none());

    let (_, answer) = client
        .post(
            VALIDATE,
            &admission(
                "CREATE",
                widget(json!({"repository": "nginx", "replicas": 11})),
                Value::Null,
            ),
        )
        .await;
    let response = &answer["response"];
    assert_eq!(response["allowed"], false);
    assert_eq!(response["uid"], "8a1c7a42-1d8e-4c49-a4b2-000000000001");
    assert_eq!(response["status"]["code"], 403);
    assert_eq!(response["status"]["reason"], "Forbidden");
    assert_eq!(response["status"]["message"], "replicas 11 exceeds 10");
    assert_eq!(response["warnings"], json!(["consider a second Widget"]));
    running.stop().await;
}

#[tokio::test]
async fn updates_see_old_and_new_and_deletes_see_the_deleted_object() {
    let running = start().await;
    let mut client = Client::connect(&running).await;
    let three = widget(json!({"repository": "nginx", "replicas": 3}));
    let two = widget(json!({"repository": "nginx", "replicas": 2}));
    let (_, answer) = client
        .post(VALIDATE, &admission("UPDATE", two.clone(), three.clone()))
        .await;
    assert_eq!(answer["response"]["allowed"], false);
    assert_eq!(
        answer["response"]["status"]["message"],
        "cannot scale down from 3 to 2"
    );
    let (_, answer) = client
        .post(VALIDATE, &admission("UPDATE", three.clone(), two.clone()))
        .await;
    assert_eq!(answer["response"]["allowed"], true, "{answer}");

    let mut protected = three.clone();
    protected["metadata"]["labels"]["protected"] = json!("yes");
    let (_, answer) = client
        .post(VALIDATE, &admission("DELETE", Value::Null, protected))
        .await;
    assert_eq!(answer["response"]["allowed"], false);
    assert_eq!(answer["response"]["status"]["message"], "w is protected");
    let (_, answer) = client
        .post(VALIDATE, &admission("DELETE", Value::Null, three))
        .await;
    assert_eq!(answer["response"]["allowed"], true);

    // An object that is not a Widget is refused with 400 inside the review.
    let (status, answer) = client
        .post(
            VALIDATE,
            &admission("CREATE", widget(json!({"repository": 5})), Value::Null),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(answer["response"]["allowed"], false);
    assert_eq!(answer["response"]["status"]["code"], 400);
    assert!(
        answer["response"]["status"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot decode object as Widget"),
        "{answer}"
    );
    running.stop().await;
}

// ---------------------------------------------------------------- conversion

fn v1beta1_widget(image: &str, annotations: Value) -> Value {
    json!({
        "apiVersion": "hooks.example.com/v1beta1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "annotations": annotations},
        "spec": {"size": 3, "image": image}
    })
}

fn conversion_review(desired: &str, objects: Vec<Value>) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "c0ffee00-0000-0000-0000-000000000001", "desiredAPIVersion": desired, "objects": objects}
    })
}

#[tokio::test]
async fn conversion_round_trips_through_the_hub_without_losing_fields() {
    let running = start().await;
    let mut client = Client::connect(&running).await;
    let originals = vec![
        v1beta1_widget(
            "registry:5000/nginx:1.27",
            json!({"note": "n", PAUSED: "true"}),
        ),
        v1beta1_widget("nginx", json!({"note": "n"})),
    ];
    let (status, answer) = client
        .post(
            "/convert",
            &conversion_review("hooks.example.com/v1", originals.clone()),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        answer["response"]["uid"],
        "c0ffee00-0000-0000-0000-000000000001"
    );
    assert_eq!(
        answer["response"]["result"]["status"], "Success",
        "{answer}"
    );
    let hub = answer["response"]["convertedObjects"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(
        hub[0]["spec"],
        json!({"replicas": 3, "repository": "registry:5000/nginx", "tag": "1.27", "paused": true})
    );
    assert_eq!(hub[0]["metadata"]["annotations"], json!({"note": "n"}));
    assert_eq!(hub[1]["spec"]["tag"], Value::Null);

    let (_, back) = client
        .post(
            "/convert",
            &conversion_review("hooks.example.com/v1beta1", hub.clone()),
        )
        .await;
    assert_eq!(back["response"]["convertedObjects"], json!(originals));

    // Every version survives the trip to the hub and back, checked by the library helper.
    for original in &originals {
        webhook::check_round_trip(original, "hooks.example.com/v1").unwrap();
    }
    for hub_object in &hub {
        webhook::check_round_trip(hub_object, "hooks.example.com/v1beta1").unwrap();
    }
    running.stop().await;
}

#[test]
fn a_lossy_spoke_is_reported_with_what_changed() {
    // The spoke keeps `paused` in an annotation; a value there that is not a boolean cannot
    // survive the hub, and the check says where the object changed.
    let lossy = v1beta1_widget("nginx", json!({PAUSED: "maybe"}));
    match webhook::check_round_trip(&lossy, "hooks.example.com/v1") {
        Err(webhook::RoundTripError::Lossy { changes, .. }) => {
            assert!(
                changes.to_string().contains("/metadata/annotations"),
                "{changes}"
            );
        }
        other => panic!("expected a lossy round trip, got {other:?}"),
    }
}

// ---------------------------------------------------------------- bad requests

#[tokio::test]
async fn malformed_reviews_get_400_with_a_message() {
    let running = start().await;
    let mut client = Client::connect(&running).await;
    let cases: Vec<(&str, &str, Vec<u8>, &str)> = vec![
        (MUTATE, "application/json", b"{not json".to_vec(), "malformed AdmissionReview"),
        (VALIDATE, "application/json", b"".to_vec(), "empty"),
        (
            VALIDATE,
            "application/json",
            br#"{"apiVersion":"v1","kind":"Pod"}"#.to_vec(),
            "expected kind AdmissionReview",
        ),
        (
            VALIDATE,
            "application/json",
            br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}"#.to_vec(),
            "has no request",
        ),
        (
            VALIDATE,
            "application/json",
            br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"EXPLODE"}}"#.to_vec(),
            "malformed AdmissionReview",
        ),
        (VALIDATE, "text/plain", b"{}".to_vec(), "expected application/json"),
        ("/convert", "application/json", b"[1,2]".to_vec(), "malformed ConversionReview"),
    ];
    for (path, content_type, body, message) in cases {
        let (status, answer) = client.post_raw(path, content_type, body).await;
        assert_eq!(status, 400, "{path} {answer}");
        assert_eq!(answer["response"]["allowed"], false);
        assert_eq!(answer["response"]["status"]["code"], 400);
        let text = answer["response"]["status"]["message"].as_str().unwrap();
        assert!(
            text.contains(message),
            "{text:?} should contain {message:?}"
        );
    }
    let (status, _) = client
        .post_raw(
            "/mutate-nothing-v1-here",
            "application/json",
            b"{}".to_vec(),
        )
        .await;
    assert_eq!(status, 404);
    // The connection is still usable after all of that.
    let (status, _) = client
        .post(
            VALIDATE,
            &admission("DELETE", Value::Null, widget(json!({"repository": "x"}))),
        )
        .await;
    assert_eq!(status, 200);
    running.stop().await;
}

#[tokio::test]
async fn oversized_reviews_get_400_with_a_message() {
    let running = start_with(|o| WebhookOptions {
        max_request_bytes: 16 * 1024,
        ..o
    })
    .await;
    let mut client = Client::connect(&running).await;
    let big = widget(json!({"repository": "x".repeat(20 * 1024)}));
    let (status, answer) = client
        .post(MUTATE, &admission("CREATE", big, Value::Null))
        .await;
    assert_eq!(status, 400);
    assert_eq!(answer["response"]["status"]["code"], 400);
    assert!(
        answer["response"]["status"]["message"]
            .as_str()
            .unwrap()
            .contains("larger than the limit of 16384 bytes")
    );
    assert_eq!(webhook::MAX_REQUEST_BYTES, 7 * 1024 * 1024);

    // Without a content-length (chunked), the limit applies while reading.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tls = handshake(running.addr, &running.ca_pem, &[b"http/1.1"])
        .await
        .unwrap();
    let chunk = vec![b' '; 20 * 1024];
    let mut request = format!(
        "POST {MUTATE} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n",
        chunk.len()
    )
    .into_bytes();
    request.extend_from_slice(&chunk);
    request.extend_from_slice(b"\r\n0\r\n\r\n");
    tls.write_all(&request).await.unwrap();
    let mut answer = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(3), tls.read(&mut answer))
        .await
        .expect("answered")
        .unwrap();
    let text = String::from_utf8_lossy(&answer[..n]);
    assert!(text.starts_with("HTTP/1.1 400"), "{text}");
    running.stop().await;
}

// ---------------------------------------------------------------- TLS

#[tokio::test]
async fn a_replaced_certificate_is_served_on_the_next_handshake() {
    let running = start().await;
    handshake(running.addr, &running.ca_pem, &[b"http/1.1"])
        .await
        .expect("the first certificate is trusted");
    let new_ca = webhook::generate_self_signed(running._dir.path(), &["localhost"])
        .unwrap()
        .ca_pem;
    assert_ne!(new_ca, running.ca_pem);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if handshake(running.addr, &new_ca, &[b"http/1.1"])
            .await
            .is_ok()
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the new certificate was never served"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(
        handshake(running.addr, &running.ca_pem, &[b"http/1.1"])
            .await
            .is_err(),
        "the old certificate is no longer served"
    );
    running.stop().await;
}

#[tokio::test]
async fn http2_is_not_negotiated() {
    let running = start().await;
    assert!(
        handshake(running.addr, &running.ca_pem, &[b"h2"])
            .await
            .is_err(),
        "a client that only speaks h2 is refused"
    );
    let tls = handshake(running.addr, &running.ca_pem, &[b"h2", b"http/1.1"])
        .await
        .unwrap();
    assert_eq!(tls.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
    running.stop().await;
}

// ---------------------------------------------------------------- set-up errors

#[tokio::test]
async fn missing_certificates_and_duplicate_paths_are_errors() {
    let empty = tempfile::tempdir().unwrap();
    let server = WebhookServer::builder()
        .bind_address("127.0.0.1:0".parse().unwrap())
        .cert_dir(empty.path())
        .build()
        .unwrap();
    match server.bind().await {
        Err(WebhookError::Certificate { path, .. }) => {
            assert_eq!(path, empty.path().join("tls.crt"));
        }
        other => panic!("expected a certificate error, got {:?}", other.map(|_| ())),
    }
    let duplicate = WebhookServer::builder()
        .validator::<v1::Widget>(WidgetValidator)
        .validator::<v1::Widget>(WidgetValidator)
        .build();
    assert!(matches!(duplicate, Err(WebhookError::DuplicatePath(p)) if p == VALIDATE));
    let paths = WebhookServer::builder()
        .defaulter::<v1::Widget>(WidgetDefaulter)
        .validator::<v1::Widget>(WidgetValidator)
        .conversion::<v1::Widget>()
        .build()
        .unwrap();
    assert_eq!(paths.paths(), ["/convert", MUTATE, VALIDATE]);
    assert_eq!(webhook::mutate_path("", "v1", "Pod"), "/mutate--v1-pod");
    let _: &Path = empty.path();
}

#[tokio::test]
async fn a_panicking_handler_is_a_500_refusal_and_the_connection_survives() {
    let running = start().await;
    let mut client = Client::connect(&running).await;
    let (status, answer) = client
        .post(
            MUTATE,
            &admission(
                "CREATE",
                widget(json!({"repository": "panic"})),
                Value::Null,
            ),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(answer["response"]["allowed"], false);
    assert_eq!(answer["response"]["status"]["code"], 500);
    assert_eq!(
        answer["response"]["uid"],
        "8a1c7a42-1d8e-4c49-a4b2-000000000001"
    );
    let (_, answer) = client
        .post(
            MUTATE,
            &admission(
                "CREATE",
                widget(json!({"repository": "nginx"})),
                Value::Null,
            ),
        )
        .await;
    assert_eq!(answer["response"]["allowed"], true);
    running.stop().await;
}

#[tokio::test]
async fn silent_clients_are_cut_off_after_the_read_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let running = start_with(|o| WebhookOptions {
        read_timeout: Duration::from_millis(200),
        ..o
    })
    .await;
    // No TLS handshake at all: the server closes the socket.
    let mut silent = TcpStream::connect(running.addr).await.unwrap();
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(3), silent.read(&mut buf))
        .await
        .expect("the server closes a silent connection");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");

    // A request head that never finishes: the connection is closed as well.
    let mut tls = handshake(running.addr, &running.ca_pem, &[b"http/1.1"])
        .await
        .unwrap();
    tls.write_all(b"POST /convert HTTP/1.1\r\nhost: localhost\r\n")
        .await
        .unwrap();
    let read = tokio::time::timeout(Duration::from_secs(3), async {
        let mut all = Vec::new();
        let _ = tls.read_to_end(&mut all).await;
        all
    })
    .await
    .expect("the server gives up on an unfinished request head");
    let text = String::from_utf8_lossy(&read);
    assert!(
        text.is_empty() || text.starts_with("HTTP/1.1 408"),
        "{text}"
    );

    // A body that never arrives: 408 with a message.
    let mut tls = handshake(running.addr, &running.ca_pem, &[b"http/1.1"])
        .await
        .unwrap();
    tls.write_all(
        b"POST /convert HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{",
    )
    .await
    .unwrap();
    let mut answer = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(3), tls.read(&mut answer))
        .await
        .expect("answered")
        .unwrap();
    let text = String::from_utf8_lossy(&answer[..n]);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    running.stop().await;
}
