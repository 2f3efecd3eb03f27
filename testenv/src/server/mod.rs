//! The HTTPS listener: TLS with the generated certificate, HTTP/1.1 via hyper, one task per
//! connection, everything stopped when the [`Server`] is dropped.
//!
//! Injected faults are applied here, before a request reaches [`rest::handle`]: latency,
//! failures, tracking of watch streams (so they can be closed), and restarts.

mod body;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};
use tokio_rustls::TlsAcceptor;

use crate::Error;
use crate::faults::{FaultState, Faults, RequestInfo};
use crate::rest::{self, Api, Query, Reply, Req};
use crate::tls;
pub use body::ResponseBody;

/// A running API server; dropping it stops the listener and every open connection.
pub struct Server {
    shared: Arc<Shared>,
}

/// What the accept loop, the fault handles and the server share.
pub(crate) struct Shared {
    addr: SocketAddr,
    ca_pem: String,
    acceptor: TlsAcceptor,
    api: Arc<Api>,
    faults: Arc<FaultState>,
    /// The accept loop; aborting it drops the listener and every connection.
    task: Mutex<Option<JoinHandle<()>>>,
    /// Set once the server is dropped: a restart in progress must not start serving again.
    stopped: AtomicBool,
    /// One restart at a time.
    restarting: tokio::sync::Mutex<()>,
}

impl Server {
    /// Binds 127.0.0.1:`port` (0 = random) and starts serving `api` over HTTPS.
    pub async fn start(api: Arc<Api>, port: u16) -> Result<Server, Error> {
        let certs = tls::certs()?;
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|source| Error::Bind { port, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| Error::Bind { port, source })?;
        let faults = Arc::new(FaultState::default());
        let filter = faults.clone();
        api.lock()
            .store
            .set_event_filter(Arc::new(move |key, object| filter.drop_event(key, object)));
        let shared = Arc::new(Shared {
            addr,
            ca_pem: certs.ca_pem.clone(),
            acceptor: TlsAcceptor::from(certs.server_config.clone()),
            api,
            faults,
            task: Mutex::new(None),
            stopped: AtomicBool::new(false),
            restarting: tokio::sync::Mutex::new(()),
        });
        shared.serve(listener);
        Ok(Server { shared })
    }

    /// `https://127.0.0.1:<port>`
    pub fn url(&self) -> String {
        format!("https://{}", self.shared.addr)
    }

    /// PEM of the CA clients must trust.
    pub fn ca_pem(&self) -> &str {
        &self.shared.ca_pem
    }

    /// A handle to inject faults into this server.
    pub fn faults(&self) -> Faults {
        Faults::new(self.shared.faults.clone(), Arc::downgrade(&self.shared))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        if let Some(task) = self.shared.task().take() {
            task.abort();
        }
    }
}

impl Shared {
    fn task(&self) -> std::sync::MutexGuard<'_, Option<JoinHandle<()>>> {
        self.task.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts the accept loop on `listener` (unless the server was dropped meanwhile).
    fn serve(self: &Arc<Self>, listener: TcpListener) {
        let mut task = self.task();
        if self.stopped.load(Ordering::SeqCst) {
            return;
        }
        let this = Arc::downgrade(self);
        *task = Some(tokio::spawn(accept_loop(
            listener,
            self.acceptor.clone(),
            this,
        )));
    }

    /// Forgets the watch history up to the current resourceVersion.
    pub(crate) fn compact(&self) {
        self.api.lock().store.compact();
    }

    /// Drops the listener and every connection, then listens again on the same address.
    pub(crate) async fn restart(self: &Arc<Self>) -> Result<(), Error> {
        let _one = self.restarting.lock().await;
        let old = self.task().take();
        let Some(old) = old else {
            return Ok(()); // dropped: nothing to restart
        };
        old.abort();
        // The loop (with the listener and the connection set) is gone once the handle resolves.
        let _ = old.await;
        tokio::task::yield_now().await;
        let port = self.addr.port();
        let mut attempt = 0;
        let listener = loop {
            match TcpListener::bind(self.addr).await {
                Ok(listener) => break listener,
                Err(source) if attempt >= 100 => return Err(Error::Bind { port, source }),
                Err(_) => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        };
        tracing::debug!(addr = %self.addr, "test API server restarted");
        self.serve(listener);
        Ok(())
    }
}

async fn accept_loop(
    listener: TcpListener,
    acceptor: TlsAcceptor,
    shared: std::sync::Weak<Shared>,
) {
    // Connections live in this set: aborting the loop drops the set, which aborts them all.
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((tcp, _)) = accepted else { continue };
                let Some(shared) = shared.upgrade() else { return };
                let _ = tcp.set_nodelay(true);
                let acceptor = acceptor.clone();
                connections.spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else { return };
                    let service = service_fn(move |req| {
                        let shared = shared.clone();
                        async move { Ok::<_, Infallible>(serve(shared, req).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn serve(shared: Arc<Shared>, req: http::Request<Incoming>) -> http::Response<ResponseBody> {
    let (parts, body) = req.into_parts();
    let body = match body.collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            return body::error_response(crate::status::ApiError::bad_request(format!(
                "could not read the request body: {e}"
            )));
        }
    };
    let header = |name: http::header::HeaderName| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let request = Req {
        method: parts.method.clone(),
        path: parts.uri.path().to_string(),
        query: Query::parse(parts.uri.query()),
        accept: header(http::header::ACCEPT),
        content_type: header(http::header::CONTENT_TYPE),
        body,
    };
    tracing::debug!(method = %request.method, path = %request.path, "request");
    let info = RequestInfo::parse(
        &request.method,
        &request.path,
        request.query.flag("watch"),
        request.query.get("fieldSelector"),
    );
    let decision = shared.faults.on_request(&info);
    if !decision.delay.is_zero() {
        tokio::time::sleep(decision.delay).await;
    }
    if let Some(failure) = decision.failure {
        tracing::debug!(verb = %info.verb, resource = %info.resource, code = failure.code(), "injected failure");
        return body::error_response(failure.to_error(&info));
    }
    match rest::handle(&shared.api, request).await {
        Reply::Watch(stream) => body::into_response(Reply::Watch(shared.faults.track(stream))),
        reply => body::into_response(reply),
    }
}
