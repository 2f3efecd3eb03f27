//! A tiny HTTPS server for webhook tests: serves JSON POSTs from an async handler closure,
//! with a certificate from its own fresh CA (so tests can pass the right, or a wrong,
//! caBundle).

#![allow(dead_code)]

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

type Handler =
    dyn Fn(String, Value) -> std::pin::Pin<Box<dyn Future<Output = Value> + Send>> + Send + Sync;

/// Environment variable naming an address of this machine a real cluster can reach:
/// webhook servers then listen on every interface and their URLs use that host.
pub const HOST_VAR: &str = "KUBEFORGE_TEST_WEBHOOK_HOST";

/// The host webhook URLs use: `KUBEFORGE_TEST_WEBHOOK_HOST`, or 127.0.0.1.
pub fn webhook_host() -> String {
    std::env::var(HOST_VAR)
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "127.0.0.1".to_string())
}

/// A running HTTPS webhook on 127.0.0.1; dropping it stops the server.
pub struct WebhookServer {
    addr: SocketAddr,
    host: String,
    accepted: Arc<std::sync::atomic::AtomicUsize>,
    versions: Arc<std::sync::Mutex<Vec<http::Version>>>,
    opening: Arc<std::sync::Mutex<Vec<u8>>>,
    ca_pem: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for WebhookServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A CA and a server certificate for `names` (plus `localhost` and `127.0.0.1`).
fn certificates(names: &[&str], alpn: &[&[u8]]) -> (String, Arc<rustls::ServerConfig>) {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "webhook-test-ca");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let mut sans: Vec<String> = names.iter().map(std::string::ToString::to_string).collect();
    sans.extend(["localhost".to_string(), "127.0.0.1".to_string()]);
    let host = webhook_host();
    if !sans.contains(&host) {
        sans.push(host);
    }
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(sans)
        .unwrap()
        .signed_by(&key, &issuer)
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(cert.der().to_vec())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .unwrap();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    (ca_cert.pem(), Arc::new(config))
}

impl WebhookServer {
    /// Starts serving on 127.0.0.1 (every interface with `KUBEFORGE_TEST_WEBHOOK_HOST`),
    /// random port. `handler` gets the request path and the
    /// JSON body and returns the JSON answer (HTTP 200). The certificate names `names`
    /// (for example `hook.default.svc`) besides `localhost` and `127.0.0.1`.
    pub async fn start<F, Fut>(names: &[&str], handler: F) -> WebhookServer
    where
        F: Fn(String, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Value> + Send + 'static,
    {
        Self::serve(names, handler, false).await
    }

    /// [`WebhookServer::start`] offering HTTP/2 too (ALPN `h2`, then `http/1.1`), served with
    /// the `h2` crate.
    pub async fn start_http2<F, Fut>(names: &[&str], handler: F) -> WebhookServer
    where
        F: Fn(String, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Value> + Send + 'static,
    {
        Self::serve(names, handler, true).await
    }

    async fn serve<F, Fut>(names: &[&str], handler: F, http2: bool) -> WebhookServer
    where
        F: Fn(String, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Value> + Send + 'static,
    {
        let handler: Arc<Handler> = Arc::new(move |path, body| Box::pin(handler(path, body)));
        let alpn: &[&[u8]] = if http2 {
            &[b"h2", b"http/1.1"]
        } else {
            &[b"http/1.1"]
        };
        let (ca_pem, config) = certificates(names, alpn);
        let bind = if std::env::var(HOST_VAR).is_ok_and(|h| !h.is_empty()) {
            "0.0.0.0:0"
        } else {
            "127.0.0.1:0"
        };
        let listener = TcpListener::bind(bind).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let acceptor = TlsAcceptor::from(config);
        let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = accepted.clone();
        let versions = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = versions.clone();
        let opening = Arc::new(std::sync::Mutex::new(Vec::new()));
        let first_bytes = opening.clone();
        let task = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let first = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0;
                // Answers go out at once (no Nagle delay waiting for the client's ACK).
                let _ = tcp.set_nodelay(true);
                let acceptor = acceptor.clone();
                let handler = handler.clone();
                let seen = seen.clone();
                let first_bytes = first.then(|| first_bytes.clone());
                connections.spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    if tls.get_ref().1.alpn_protocol() == Some(b"h2") {
                        let tls = Recorder {
                            io: tls,
                            first_bytes,
                        };
                        serve_h2(tls, handler, seen).await;
                        return;
                    }
                    let service = service_fn(move |req: http::Request<hyper::body::Incoming>| {
                        let handler = handler.clone();
                        seen.lock().unwrap().push(req.version());
                        async move {
                            let path = req.uri().path().to_string();
                            let bytes = req.into_body().collect().await.unwrap().to_bytes();
                            let body: Value = serde_json::from_slice(&bytes).unwrap_or_default();
                            let answer = handler(path, body).await;
                            let out = serde_json::to_vec(&answer).unwrap();
                            Ok::<_, Infallible>(
                                http::Response::builder()
                                    .header("content-type", "application/json")
                                    .body(Full::new(Bytes::from(out)))
                                    .unwrap(),
                            )
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        WebhookServer {
            addr,
            host: webhook_host(),
            accepted,
            versions,
            opening,
            ca_pem,
            task,
        }
    }

    /// The first bytes (up to 512) a client sent on the first HTTP/2 connection, as read
    /// from TLS: the connection preface and the client's first frames.
    pub fn http2_opening(&self) -> Vec<u8> {
        self.opening.lock().unwrap().clone()
    }

    /// The HTTP version of every request received so far, in order.
    pub fn versions(&self) -> Vec<http::Version> {
        self.versions.lock().unwrap().clone()
    }

    /// How many TCP connections the server accepted so far.
    pub fn connections(&self) -> usize {
        self.accepted.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The loopback address of the server (for `TestEnv::route_service`).
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.addr.port()))
    }

    /// `https://<host>:<port><path>` (host 127.0.0.1 unless `KUBEFORGE_TEST_WEBHOOK_HOST`).
    pub fn url(&self, path: &str) -> String {
        format!("https://{}:{}{path}", self.host, self.addr.port())
    }

    /// A `clientConfig` with this server's URL and CA.
    pub fn client_config(&self, path: &str) -> Value {
        serde_json::json!({"url": self.url(path), "caBundle": self.ca_bundle()})
    }

    /// PEM of the CA that signed the server certificate.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// The CA as a `caBundle` value (base64 of the PEM).
    pub fn ca_bundle(&self) -> Value {
        serde_json::to_value(k8s_openapi::ByteString(self.ca_pem.as_bytes().to_vec())).unwrap()
    }
}

/// A connection that keeps a copy of the first bytes read from it (when it is the server's
/// first connection).
struct Recorder<T> {
    io: T,
    first_bytes: Option<Arc<std::sync::Mutex<Vec<u8>>>>,
}

impl<T: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Recorder<T> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let read = std::pin::Pin::new(&mut this.io).poll_read(cx, buf);
        if let Some(first_bytes) = &this.first_bytes {
            let mut kept = first_bytes.lock().unwrap();
            let room = 512usize.saturating_sub(kept.len());
            let new = &buf.filled()[before..];
            kept.extend_from_slice(&new[..new.len().min(room)]);
        }
        read
    }
}

impl<T: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Recorder<T> {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// Serves one HTTP/2 connection: each stream's JSON body to `handler`, its answer back.
async fn serve_h2(
    tls: Recorder<tokio_rustls::server::TlsStream<tokio::net::TcpStream>>,
    handler: Arc<Handler>,
    seen: Arc<std::sync::Mutex<Vec<http::Version>>>,
) {
    let Ok(mut connection) = h2::server::handshake(tls).await else {
        return;
    };
    while let Some(Ok((request, mut respond))) = connection.accept().await {
        seen.lock().unwrap().push(request.version());
        let handler = handler.clone();
        tokio::spawn(async move {
            let path = request.uri().path().to_string();
            let mut body = request.into_body();
            let mut bytes = Vec::new();
            while let Some(Ok(chunk)) = body.data().await {
                let _ = body.flow_control().release_capacity(chunk.len());
                bytes.extend_from_slice(&chunk);
            }
            let answer = handler(path, serde_json::from_slice(&bytes).unwrap_or_default()).await;
            let out = serde_json::to_vec(&answer).unwrap();
            let response = http::Response::builder()
                .header("content-type", "application/json")
                .body(())
                .unwrap();
            if let Ok(mut send) = respond.send_response(response, false) {
                let _ = send.send_data(Bytes::from(out), true);
            }
        });
    }
}

/// An AdmissionReview response allowing the request of `review`.
pub fn allow(review: &Value) -> Value {
    respond(review, serde_json::json!({"allowed": true}))
}

/// An AdmissionReview response with the given `response` fields (uid is filled in).
pub fn respond(review: &Value, mut response: Value) -> Value {
    response["uid"] = review["request"]["uid"].clone();
    serde_json::json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "response": response,
    })
}

/// An AdmissionReview response allowing the request with a JSONPatch.
pub fn patch(review: &Value, ops: Value) -> Value {
    let encoded =
        serde_json::to_value(k8s_openapi::ByteString(serde_json::to_vec(&ops).unwrap())).unwrap();
    respond(
        review,
        serde_json::json!({"allowed": true, "patchType": "JSONPatch", "patch": encoded}),
    )
}

/// An AdmissionReview response denying the request.
pub fn deny(review: &Value, code: u16, message: &str) -> Value {
    respond(
        review,
        serde_json::json!({"allowed": false, "status": {"code": code, "message": message}}),
    )
}
