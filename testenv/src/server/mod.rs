//! The HTTPS listener: TLS with the generated certificate, HTTP/1.1 via hyper, one task per
//! connection, everything stopped when the [`Server`] is dropped.

mod body;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use crate::Error;
use crate::rest::{self, Api, Query, Req};
use crate::tls;
pub use body::ResponseBody;

/// A running API server; dropping it stops the listener and every open connection.
pub struct Server {
    addr: SocketAddr,
    ca_pem: String,
    task: tokio::task::JoinHandle<()>,
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
        let acceptor = TlsAcceptor::from(certs.server_config.clone());
        let task = tokio::spawn(accept_loop(listener, acceptor, api));
        Ok(Server {
            addr,
            ca_pem: certs.ca_pem.clone(),
            task,
        })
    }

    /// `https://127.0.0.1:<port>`
    pub fn url(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// PEM of the CA clients must trust.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn accept_loop(listener: TcpListener, acceptor: TlsAcceptor, api: Arc<Api>) {
    // Connections live in this set: aborting the loop drops the set, which aborts them all.
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((tcp, _)) = accepted else { continue };
                let _ = tcp.set_nodelay(true);
                let acceptor = acceptor.clone();
                let api = api.clone();
                connections.spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else { return };
                    let service = service_fn(move |req| {
                        let api = api.clone();
                        async move { Ok::<_, Infallible>(serve(api, req).await) }
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

async fn serve(api: Arc<Api>, req: http::Request<Incoming>) -> http::Response<ResponseBody> {
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
        user_agent: header(http::header::USER_AGENT),
        body,
    };
    tracing::debug!(method = %request.method, path = %request.path, "request");
    body::into_response(rest::handle(&api, request).await)
}
