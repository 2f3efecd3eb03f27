//! One client connection to a webhook, over the protocol ALPN chose: kube-apiserver's webhook
//! client (Go's transport) offers `h2` and then `http/1.1`, so a webhook serving HTTP/2 is
//! called over HTTP/2, several calls sharing one connection, and any other over HTTP/1.1.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// The ALPN names the client offers, in Go's order.
pub fn alpn_protocols() -> Vec<Vec<u8>> {
    vec![b"h2".to_vec(), b"http/1.1".to_vec()]
}

/// A connection to a webhook and the task driving it (aborted when the last handle goes).
pub struct Connection {
    sender: Sender,
    _driver: Arc<AbortOnDrop<()>>,
}

enum Sender {
    Http1(http1::SendRequest<Full<Bytes>>),
    Http2(http2::SendRequest<Full<Bytes>>),
}

impl Connection {
    /// Starts HTTP/2 or HTTP/1.1 on an established TLS connection, as its ALPN says.
    pub async fn start(tls: TlsStream<TcpStream>) -> Result<Connection, hyper::Error> {
        let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
        let io = TokioIo::new(tls);
        let (sender, driver) = if h2 {
            let (sender, connection) = http2::handshake(TokioExecutor::new(), io).await?;
            let driver = tokio::spawn(async move {
                let _ = connection.await;
            });
            (Sender::Http2(sender), driver)
        } else {
            let (sender, connection) = http1::handshake(io).await?;
            let driver = tokio::spawn(async move {
                let _ = connection.await;
            });
            (Sender::Http1(sender), driver)
        };
        Ok(Connection {
            sender,
            _driver: Arc::new(AbortOnDrop(driver)),
        })
    }

    /// Whether calls share this connection (HTTP/2 streams) rather than take turns on it.
    pub fn is_shared(&self) -> bool {
        matches!(self.sender, Sender::Http2(_))
    }

    /// Another handle to a shared connection.
    pub fn share(&self) -> Option<Connection> {
        match &self.sender {
            Sender::Http2(sender) => Some(Connection {
                sender: Sender::Http2(sender.clone()),
                _driver: self._driver.clone(),
            }),
            Sender::Http1(_) => None,
        }
    }

    /// Whether the peer closed the connection.
    pub fn is_closed(&self) -> bool {
        match &self.sender {
            Sender::Http1(s) => s.is_closed(),
            Sender::Http2(s) => s.is_closed(),
        }
    }

    /// Sends `request` (its path and query as the target, `Host` naming the authority) once
    /// the connection is ready for it. Over HTTP/2 the target becomes `https://<host><path>`,
    /// as the `:scheme` and `:authority` of the stream.
    pub async fn send(
        &mut self,
        mut request: http::Request<Full<Bytes>>,
    ) -> Result<http::Response<Incoming>, hyper::Error> {
        match &mut self.sender {
            Sender::Http1(s) => {
                s.ready().await?;
                s.send_request(request).await
            }
            Sender::Http2(s) => {
                if let Some(host) = request.headers_mut().remove(http::header::HOST)
                    && let Ok(host) = host.to_str()
                {
                    let target = request.uri().path_and_query().map_or("/", |p| p.as_str());
                    if let Ok(uri) = format!("https://{host}{target}").parse() {
                        *request.uri_mut() = uri;
                    }
                }
                s.ready().await?;
                s.send_request(request).await
            }
        }
    }
}

/// Aborts a spawned task when dropped.
pub struct AbortOnDrop<T>(pub tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
