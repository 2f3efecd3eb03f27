//! [`WebhookServer`]: the HTTPS server the API server calls. Routes admission reviews to the
//! registered handlers and conversion reviews to the scheme, with a request size limit, read
//! timeouts, and certificates reloaded from disk.

use std::{
    collections::BTreeMap, convert::Infallible, future::Future, net::SocketAddr, path::PathBuf,
    sync::Arc, time::Duration,
};

use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use tokio::{net::TcpListener, task::JoinSet};
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

use crate::server::conn::{self, HttpVersions};

use super::{
    CertWatcher, Defaulter, Validator, WebhookError, WebhookObject,
    declare::{AdmissionDeclaration, AdmissionType, ConversionHub, Declarations},
    paths::CONVERT_PATH,
    review::{self, AdmissionHandler},
};

/// The port controller-runtime's webhook server listens on.
pub const DEFAULT_PORT: u16 = 9443;
/// Where controller-runtime (and the generated `config/` with cert-manager) puts the serving
/// certificate.
pub const DEFAULT_CERT_DIR: &str = "/tmp/k8s-webhook-server/serving-certs";
/// The largest request body accepted: 7 MiB, controller-runtime's limit (the API server
/// itself caps objects at 3 MiB, and a review can carry an object and its old version).
pub const MAX_REQUEST_BYTES: usize = 7 * 1024 * 1024;

/// Tunables of the webhook server; `WebhookOptions::default()` is controller-runtime's setup.
#[derive(Debug, Clone)]
pub struct WebhookOptions {
    /// Where to listen; default `0.0.0.0:9443`.
    pub bind_address: SocketAddr,
    /// The directory holding `tls.crt` and `tls.key`; default [`DEFAULT_CERT_DIR`].
    pub cert_dir: PathBuf,
    /// How often the certificate files are checked for changes; default 10 s.
    pub cert_poll_interval: Duration,
    /// The request body limit; default [`MAX_REQUEST_BYTES`]. Larger requests get 400 with a message (as controller-runtime answers them).
    pub max_request_bytes: usize,
    /// Time allowed for the TLS handshake, the request head, and the body each; default 10 s.
    pub read_timeout: Duration,
    /// How long in-flight requests may finish after shutdown is requested; default 10 s.
    pub drain_timeout: Duration,
    /// Whether to speak HTTP/2 as well as HTTP/1.1 (`--enable-http2`); default off. Needs the
    /// crate's `http2` feature: without it, [`WebhookServer::bind`] fails and says so.
    pub enable_http2: bool,
}

impl Default for WebhookOptions {
    fn default() -> Self {
        WebhookOptions {
            bind_address: SocketAddr::from(([0, 0, 0, 0], DEFAULT_PORT)),
            cert_dir: PathBuf::from(DEFAULT_CERT_DIR),
            cert_poll_interval: Duration::from_secs(10),
            max_request_bytes: MAX_REQUEST_BYTES,
            read_timeout: Duration::from_secs(10),
            drain_timeout: Duration::from_secs(10),
            enable_http2: false,
        }
    }
}

enum Route {
    Admission(AdmissionHandler),
    Convert,
}

/// Registers webhooks and options; [`WebhookServer::builder`] starts one. Besides the
/// handlers it records what was registered ([`WebhookServerBuilder::declarations`]), from which
/// the manifests and the local installation are generated.
pub struct WebhookServerBuilder {
    options: WebhookOptions,
    routes: BTreeMap<String, Route>,
    duplicate: Option<String>,
    declarations: Declarations,
}

impl std::fmt::Debug for WebhookServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookServerBuilder")
            .field("options", &self.options)
            .field("declarations", &self.declarations)
            .finish_non_exhaustive()
    }
}

impl WebhookServerBuilder {
    /// Replaces all options.
    #[must_use]
    pub fn options(mut self, options: WebhookOptions) -> Self {
        self.options = options;
        self
    }

    /// Where to listen (tests use `127.0.0.1:0`).
    #[must_use]
    pub fn bind_address(mut self, address: SocketAddr) -> Self {
        self.options.bind_address = address;
        self
    }

    /// The directory holding `tls.crt` and `tls.key`.
    #[must_use]
    pub fn cert_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.options.cert_dir = dir.into();
        self
    }

    /// How often the certificate files are checked for changes.
    #[must_use]
    pub fn cert_poll_interval(mut self, interval: Duration) -> Self {
        self.options.cert_poll_interval = interval;
        self
    }

    fn route(mut self, path: String, route: Route) -> Self {
        if self.routes.insert(path.clone(), route).is_some() {
            self.duplicate.get_or_insert(path);
        }
        self
    }

    fn admission(
        mut self,
        declaration: AdmissionDeclaration,
        handler: review::AdmissionHandler,
    ) -> Self {
        let path = declaration.path.clone();
        self.declarations.admission.push(declaration);
        self.route(path, Route::Admission(handler))
    }

    /// Serves `defaulter` for kind `K` at `/mutate-<group>-<version>-<kind>`, registered for
    /// CREATE and UPDATE (kubebuilder's `verbs=create;update`).
    #[must_use]
    pub fn defaulter<K: WebhookObject>(self, defaulter: impl Defaulter<K>) -> Self {
        let declaration =
            AdmissionDeclaration::new::<K>(AdmissionType::Mutating, vec!["CREATE", "UPDATE"]);
        self.admission(declaration, review::defaulting(defaulter))
    }

    /// Serves `validator` for kind `K` at `/validate-<group>-<version>-<kind>`, registered for
    /// CREATE and UPDATE; [`validator_with_delete`](Self::validator_with_delete) adds DELETE.
    #[must_use]
    pub fn validator<K: WebhookObject>(self, validator: impl Validator<K>) -> Self {
        let declaration =
            AdmissionDeclaration::new::<K>(AdmissionType::Validating, vec!["CREATE", "UPDATE"]);
        self.admission(declaration, review::validating(validator))
    }

    /// Like [`validator`](Self::validator), also registered for DELETE, so
    /// [`Validator::validate_delete`] is called (kubebuilder's `verbs=create;update;delete`).
    #[must_use]
    pub fn validator_with_delete<K: WebhookObject>(self, validator: impl Validator<K>) -> Self {
        let declaration = AdmissionDeclaration::new::<K>(
            AdmissionType::Validating,
            vec!["CREATE", "UPDATE", "DELETE"],
        );
        self.admission(declaration, review::validating(validator))
    }

    /// Declares that the CRD of `Hub`'s kind converts through this server (its manifests get
    /// `spec.conversion` with strategy `Webhook`) and serves `/convert`. The endpoint converts
    /// every kind through the conversions registered with [`conversion!`](crate::conversion)
    /// ([`crate::scheme::review`]); calling this for several kinds serves it once.
    #[must_use]
    pub fn conversion<Hub: WebhookObject>(mut self) -> Self {
        let hub = ConversionHub::new::<Hub>();
        if self
            .declarations
            .conversions
            .iter()
            .any(|h| h.group == hub.group && h.kind == hub.kind)
        {
            return self;
        }
        let first = self.declarations.conversions.is_empty();
        self.declarations.conversions.push(hub);
        if first {
            self.route(CONVERT_PATH.to_string(), Route::Convert)
        } else {
            self
        }
    }

    /// What was registered: the admission webhooks and the converted kinds.
    pub fn declarations(&self) -> &Declarations {
        &self.declarations
    }

    /// The options set so far.
    pub fn current_options(&self) -> &WebhookOptions {
        &self.options
    }

    /// The server; fails if two webhooks claim the same path.
    pub fn build(self) -> Result<WebhookServer, WebhookError> {
        if let Some(path) = self.duplicate {
            return Err(WebhookError::DuplicatePath(path));
        }
        Ok(WebhookServer {
            options: self.options,
            routes: Arc::new(self.routes),
        })
    }
}

/// The webhook server: HTTPS (rustls, TLS 1.2+), HTTP/1.1 only (ALPN offers `http/1.1`
/// alone, as controller-runtime does by default against the HTTP/2 rapid-reset attacks).
pub struct WebhookServer {
    options: WebhookOptions,
    routes: Arc<BTreeMap<String, Route>>,
}

impl std::fmt::Debug for WebhookServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookServer")
            .field("options", &self.options)
            .field("paths", &self.paths())
            .finish()
    }
}

impl WebhookServer {
    /// A builder with the default options and no webhooks.
    pub fn builder() -> WebhookServerBuilder {
        WebhookServerBuilder {
            options: WebhookOptions::default(),
            routes: BTreeMap::new(),
            duplicate: None,
            declarations: Declarations::default(),
        }
    }

    /// The registered paths, sorted (what the webhook configurations must point at).
    pub fn paths(&self) -> Vec<&str> {
        self.routes.keys().map(String::as_str).collect()
    }

    /// Loads the certificates and binds the address; the result serves with
    /// [`BoundWebhookServer::serve`]. Fails on missing or bad certificates or a taken port.
    pub async fn bind(self) -> Result<BoundWebhookServer, WebhookError> {
        let certs = CertWatcher::load(&self.options.cert_dir)?;
        let mut config = crate::server::tls::config_builder()
            .map_err(|source| WebhookError::Tls {
                dir: self.options.cert_dir.clone(),
                source,
            })?
            .with_cert_resolver(certs.clone());
        let versions = HttpVersions::from_flag(self.options.enable_http2)?;
        config.alpn_protocols = versions.alpn_protocols();
        let address = self.options.bind_address;
        let listener = TcpListener::bind(address)
            .await
            .map_err(|source| WebhookError::Bind { address, source })?;
        Ok(BoundWebhookServer {
            listener,
            versions,
            acceptor: TlsAcceptor::from(Arc::new(config)),
            certs,
            server: self,
        })
    }

    /// Binds and serves until `shutdown` completes, then lets in-flight requests finish
    /// (bounded by the drain timeout).
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send) -> Result<(), WebhookError> {
        self.bind().await?.serve(shutdown).await;
        Ok(())
    }
}

/// A webhook server with its port bound and certificates loaded.
pub struct BoundWebhookServer {
    listener: TcpListener,
    versions: HttpVersions,
    acceptor: TlsAcceptor,
    certs: Arc<CertWatcher>,
    server: WebhookServer,
}

impl BoundWebhookServer {
    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Serves until `shutdown` completes; then stops accepting, asks open connections to close
    /// after their current request, and returns once they did or the drain timeout passed.
    pub async fn serve(self, shutdown: impl Future<Output = ()> + Send) {
        let options = Arc::new(self.server.options);
        let cancel = CancellationToken::new();
        tokio::spawn(
            self.certs
                .clone()
                .watch(options.cert_poll_interval, cancel.clone()),
        );
        let mut connections = JoinSet::new();
        tokio::pin!(shutdown);
        loop {
            let stream = tokio::select! {
                () = &mut shutdown => break,
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        tracing::warn!(error = %e, "webhook server: accept failed");
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                },
            };
            // Reap finished connections so the set does not grow without bound.
            while connections.try_join_next().is_some() {}
            connections.spawn(connection(
                stream,
                self.acceptor.clone(),
                self.versions,
                self.server.routes.clone(),
                options.clone(),
                cancel.clone(),
            ));
        }
        drop(self.listener);
        cancel.cancel();
        let drained = tokio::time::timeout(options.drain_timeout, async {
            while connections.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            tracing::warn!("webhook server: connections still open after the drain timeout");
            connections.abort_all();
        }
    }
}

async fn connection(
    stream: tokio::net::TcpStream,
    acceptor: TlsAcceptor,
    versions: HttpVersions,
    routes: Arc<BTreeMap<String, Route>>,
    options: Arc<WebhookOptions>,
    cancel: CancellationToken,
) {
    let _ = stream.set_nodelay(true);
    let tls = match tokio::time::timeout(options.read_timeout, acceptor.accept(stream)).await {
        Ok(Ok(tls)) => tls,
        Ok(Err(e)) => {
            tracing::debug!(error = %e, "webhook server: TLS handshake failed");
            return;
        }
        Err(_) => {
            tracing::debug!("webhook server: TLS handshake timed out");
            return;
        }
    };
    let service_options = options.clone();
    let service = move |request| {
        let routes = routes.clone();
        let options = service_options.clone();
        async move { Ok::<_, Infallible>(handle(request, &routes, &options).await) }
    };
    let result = conn::serve(tls, service, versions, Some(options.read_timeout), &cancel).await;
    if let Err(e) = result {
        tracing::debug!(error = %e, "webhook server: connection error");
    }
}

fn reply(status: StatusCode, body: Vec<u8>) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body)))
        .expect("static response parts are valid")
}

fn refuse(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    reply(status, review::render_error(status.as_u16(), message))
}

/// Answers one request: routing, method and content type, size limit and body timeout, then
/// the handler. Problems with the request itself are 4xx with an AdmissionReview whose
/// `status.message` says what was wrong.
async fn handle(
    request: Request<Incoming>,
    routes: &BTreeMap<String, Route>,
    options: &WebhookOptions,
) -> Response<Full<Bytes>> {
    let Some(route) = routes.get(request.uri().path()) else {
        return refuse(
            StatusCode::NOT_FOUND,
            &format!("no webhook is served at {}", request.uri().path()),
        );
    };
    if request.method() != http::Method::POST {
        return refuse(StatusCode::METHOD_NOT_ALLOWED, "webhooks accept POST only");
    }
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !content_type.starts_with("application/json") {
        return refuse(
            StatusCode::BAD_REQUEST,
            &format!("content type {content_type:?}, expected application/json"),
        );
    }
    let too_large = format!(
        "the request is larger than the limit of {} bytes",
        options.max_request_bytes
    );
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > options.max_request_bytes as u64) {
        return refuse(StatusCode::BAD_REQUEST, &too_large);
    }
    let body = Limited::new(request.into_body(), options.max_request_bytes).collect();
    let body = match tokio::time::timeout(options.read_timeout, body).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
            return refuse(StatusCode::BAD_REQUEST, &too_large);
        }
        Ok(Err(e)) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                &format!("reading the body failed: {e}"),
            );
        }
        Err(_) => {
            return refuse(
                StatusCode::REQUEST_TIMEOUT,
                "the request body did not arrive in time",
            );
        }
    };
    if body.is_empty() {
        return refuse(StatusCode::BAD_REQUEST, "the request body is empty");
    }
    match route {
        Route::Admission(handler) => match handler(body).await {
            Ok(answer) => reply(StatusCode::OK, answer),
            Err(message) => refuse(StatusCode::BAD_REQUEST, &message),
        },
        Route::Convert => convert(&body),
    }
}

fn convert(body: &[u8]) -> Response<Full<Bytes>> {
    let review: kube::core::conversion::ConversionReview = match serde_json::from_slice(body) {
        Ok(review) => review,
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                &format!("malformed ConversionReview: {e}"),
            );
        }
    };
    if review.request.is_none() {
        return refuse(
            StatusCode::BAD_REQUEST,
            "the ConversionReview has no request",
        );
    }
    let answer = crate::scheme::review(review);
    reply(
        StatusCode::OK,
        serde_json::to_vec(&answer).expect("a ConversionReview serializes"),
    )
}
