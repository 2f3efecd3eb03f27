//! Serving one accepted connection: HTTP/1.1 by default, HTTP/1.1 and HTTP/2 when asked for.
//!
//! HTTP/2 is off unless `--enable-http2` is given, as in kubebuilder: the HTTP/2 stream-reset
//! attacks (CVE-2023-44487, CVE-2023-39325) made "HTTP/1.1 only" the safe default for the
//! metrics and webhook servers. HTTP/2 also needs the crate's `http2` cargo feature, so that
//! operators that never enable it do not compile an HTTP/2 stack.

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::{convert::Infallible, time::Duration};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

/// The error a connection ends with (I/O, protocol or timeout).
pub type ConnectionError = Box<dyn std::error::Error + Send + Sync>;

/// `--enable-http2` was given to an operator built without the crate's `http2` feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "--enable-http2 was given, but this operator was built without HTTP/2 support; \
     fix: enable the `http2` feature of the kubeforge dependency in Cargo.toml \
     (kubeforge = {{ ..., features = [\"http2\"] }}), or drop --enable-http2"
)]
pub struct Http2Unavailable;

/// Which HTTP versions a server speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HttpVersions {
    /// HTTP/1.1 only: the default.
    #[default]
    Http1Only,
    /// HTTP/1.1 and HTTP/2 (negotiated by ALPN over TLS, by the connection preface in plain text).
    #[cfg(feature = "http2")]
    Http1AndHttp2,
}

impl HttpVersions {
    /// The versions for the `--enable-http2` flag. Asking for HTTP/2 from a build without the
    /// `http2` cargo feature is an error that says how to enable it.
    pub fn from_flag(enable_http2: bool) -> Result<Self, Http2Unavailable> {
        if !enable_http2 {
            return Ok(HttpVersions::Http1Only);
        }
        #[cfg(feature = "http2")]
        {
            Ok(HttpVersions::Http1AndHttp2)
        }
        #[cfg(not(feature = "http2"))]
        {
            Err(Http2Unavailable)
        }
    }

    /// The ALPN protocol names a TLS server offers for these versions, most preferred first.
    pub fn alpn_protocols(self) -> Vec<Vec<u8>> {
        match self {
            HttpVersions::Http1Only => vec![b"http/1.1".to_vec()],
            #[cfg(feature = "http2")]
            HttpVersions::Http1AndHttp2 => vec![b"h2".to_vec(), b"http/1.1".to_vec()],
        }
    }
}

/// Serves `io` with `service` until the client closes the connection or `cancel` fires; on
/// cancel, in-flight requests finish and the connection then closes (graceful shutdown).
/// `header_read_timeout` bounds how long an HTTP/1.1 client may take to send a request head.
pub async fn serve<I, S, F>(
    io: I,
    service: S,
    versions: HttpVersions,
    header_read_timeout: Option<Duration>,
    cancel: &CancellationToken,
) -> Result<(), ConnectionError>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: Fn(Request<Incoming>) -> F + Clone + Send + 'static,
    F: Future<Output = Result<Response<Full<Bytes>>, Infallible>> + Send + 'static,
{
    let service = hyper::service::service_fn(service);
    match versions {
        HttpVersions::Http1Only => {
            let mut builder = hyper::server::conn::http1::Builder::new();
            if let Some(timeout) = header_read_timeout {
                builder
                    .timer(TokioTimer::new())
                    .header_read_timeout(timeout);
            }
            let conn = builder.serve_connection(TokioIo::new(io), service);
            tokio::pin!(conn);
            tokio::select! {
                result = conn.as_mut() => result?,
                () = cancel.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    conn.await?;
                }
            }
        }
        #[cfg(feature = "http2")]
        HttpVersions::Http1AndHttp2 => {
            let mut builder =
                hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
            if let Some(timeout) = header_read_timeout {
                builder
                    .http1()
                    .timer(TokioTimer::new())
                    .header_read_timeout(timeout);
            }
            builder.http2().timer(TokioTimer::new());
            let conn = builder.serve_connection(TokioIo::new(io), service);
            tokio::pin!(conn);
            tokio::select! {
                result = conn.as_mut() => result?,
                () = cancel.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    conn.await?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http1_only_unless_asked() {
        let versions = HttpVersions::from_flag(false).unwrap();
        assert_eq!(versions, HttpVersions::Http1Only);
        assert_eq!(versions.alpn_protocols(), vec![b"http/1.1".to_vec()]);
    }

    #[cfg(not(feature = "http2"))]
    #[test]
    fn asking_for_http2_without_the_feature_says_how_to_enable_it() {
        let message = HttpVersions::from_flag(true).unwrap_err().to_string();
        assert!(message.contains("--enable-http2"), "{message}");
        assert!(message.contains("features = [\"http2\"]"), "{message}");
    }

    #[cfg(feature = "http2")]
    #[test]
    fn http2_offers_h2_first() {
        let versions = HttpVersions::from_flag(true).unwrap();
        assert_eq!(
            versions.alpn_protocols(),
            vec![b"h2".to_vec(), b"http/1.1".to_vec()]
        );
    }
}
