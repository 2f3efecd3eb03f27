//! The manager's HTTP servers: health probes ([`probes`]) and Prometheus metrics ([`metrics`]),
//! on hyper 1 with HTTP/1.1 (HTTP/2 only when asked for, see [`conn`]), plain or TLS ([`tls`]),
//! the metrics one optionally behind Kubernetes TokenReview + SubjectAccessReview
//! authorization ([`authz`]).

pub mod authz;
pub mod conn;
pub mod metrics;
pub mod probes;
pub mod tls;

use bytes::Bytes;
use futures::future::BoxFuture;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use std::{net::SocketAddr, sync::Arc};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

use crate::Error;
pub use conn::HttpVersions;

/// A request handler: every server here answers small, fully buffered bodies.
pub type Handler =
    Arc<dyn Fn(Request<Incoming>) -> BoxFuture<'static, Response<Full<Bytes>>> + Send + Sync>;

/// Parses a kubebuilder-style bind address: `":8081"` means all interfaces, `"0"` (or empty)
/// means disabled (`None`).
pub fn parse_bind_address(address: &str) -> Result<Option<SocketAddr>, Error> {
    let address = address.trim();
    if address.is_empty() || address == "0" {
        return Ok(None);
    }
    let full = if address.starts_with(':') {
        format!("0.0.0.0{address}")
    } else {
        address.to_string()
    };
    full.parse().map(Some).map_err(|source| Error::BindAddress {
        address: address.to_string(),
        source,
    })
}

/// A plain-text response.
pub fn text(status: StatusCode, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header(http::header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Full::new(body.into()))
        .expect("static response parts are valid")
}

/// A bound server, ready to serve.
pub struct Server {
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    versions: HttpVersions,
}

impl Server {
    /// Binds `address` (`what` names the server in errors). `versions` must match the ALPN
    /// protocols of `tls` (see [`tls::from_dir`]).
    pub async fn bind(
        what: &'static str,
        address: SocketAddr,
        tls: Option<TlsAcceptor>,
        versions: HttpVersions,
    ) -> Result<Self, Error> {
        let listener = TcpListener::bind(address)
            .await
            .map_err(|source| Error::Bind {
                what,
                address: address.to_string(),
                source,
            })?;
        Ok(Self {
            listener,
            tls,
            versions,
        })
    }

    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Serves until `cancel` fires.
    pub async fn serve(self, handler: Handler, cancel: CancellationToken) {
        loop {
            let (stream, _) = tokio::select! {
                () = cancel.cancelled() => return,
                accepted = self.listener.accept() => match accepted {
                    Ok(a) => a,
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        continue;
                    }
                },
            };
            let handler = handler.clone();
            let tls = self.tls.clone();
            let versions = self.versions;
            let cancel = cancel.clone();
            tokio::spawn(async move {
                let service = move |req| {
                    let handler = handler.clone();
                    async move { Ok::<_, std::convert::Infallible>(handler(req).await) }
                };
                let result = match tls {
                    Some(acceptor) => match acceptor.accept(stream).await {
                        Ok(stream) => conn::serve(stream, service, versions, None, &cancel).await,
                        Err(e) => {
                            tracing::debug!(error = %e, "TLS handshake failed");
                            return;
                        }
                    },
                    None => conn::serve(stream, service, versions, None, &cancel).await,
                };
                if let Err(e) = result {
                    tracing::debug!(error = %e, "connection error");
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_addresses_follow_kubebuilder() {
        assert_eq!(parse_bind_address("0").unwrap(), None);
        assert_eq!(parse_bind_address("").unwrap(), None);
        assert_eq!(
            parse_bind_address(":8081").unwrap(),
            Some("0.0.0.0:8081".parse().unwrap())
        );
        assert_eq!(
            parse_bind_address("127.0.0.1:9000").unwrap(),
            Some("127.0.0.1:9000".parse().unwrap())
        );
        assert!(parse_bind_address("nonsense").is_err());
    }
}
