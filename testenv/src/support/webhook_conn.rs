//! One client connection to a webhook, over the protocol ALPN chose: kube-apiserver's webhook
//! client (Go's transport) offers `h2` and then `http/1.1`, so a webhook serving HTTP/2 is
//! called over HTTP/2 (the `h2` crate's client, not hyper's `http2` feature), several calls
//! sharing one connection, and any other over HTTP/1.1 (hyper).

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
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
    Http2(h2::client::SendRequest<Bytes>),
}

/// The body of a webhook's answer, still to be read.
pub enum Answer {
    Http1(hyper::body::Incoming),
    Http2(h2::RecvStream),
}

impl Answer {
    /// The whole body.
    pub async fn read(self) -> Result<Bytes, String> {
        match self {
            Answer::Http1(body) => body
                .collect()
                .await
                .map(http_body_util::Collected::to_bytes)
                .map_err(|e| e.to_string()),
            Answer::Http2(body) => super::h2_body::read_whole(body).await,
        }
    }
}

impl Connection {
    /// Starts HTTP/2 or HTTP/1.1 on an established TLS connection, as its ALPN says.
    pub async fn start(tls: TlsStream<TcpStream>) -> Result<Connection, String> {
        let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
        let (sender, driver) = if h2 {
            let (sender, connection) = h2::client::handshake(tls)
                .await
                .map_err(|e| e.to_string())?;
            let driver = tokio::spawn(async move {
                let _ = connection.await;
            });
            (Sender::Http2(sender), driver)
        } else {
            let (sender, connection) = http1::handshake(TokioIo::new(tls))
                .await
                .map_err(|e| e.to_string())?;
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

    /// Whether the connection is gone (closed by the peer, or its driver ended).
    pub fn is_closed(&self) -> bool {
        match &self.sender {
            Sender::Http1(s) => s.is_closed(),
            Sender::Http2(_) => self._driver.0.is_finished(),
        }
    }

    /// Sends `request` (its path and query as the target, `Host` naming the authority) once
    /// the connection is ready for it: the answer's status and its body, still to be read.
    /// Over HTTP/2 the target becomes `https://<host><path>`, the `:scheme` and `:authority`
    /// of the stream.
    pub async fn send(
        &mut self,
        mut request: http::Request<Bytes>,
    ) -> Result<(http::StatusCode, Answer), String> {
        match &mut self.sender {
            Sender::Http1(s) => {
                s.ready().await.map_err(|e| e.to_string())?;
                let response = s
                    .send_request(request.map(Full::new))
                    .await
                    .map_err(|e| e.to_string())?;
                let status = response.status();
                Ok((status, Answer::Http1(response.into_body())))
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
                let (head, body) = request.into_parts();
                let mut ready = s.clone().ready().await.map_err(|e| e.to_string())?;
                let (response, mut stream) = ready
                    .send_request(http::Request::from_parts(head, ()), body.is_empty())
                    .map_err(|e| e.to_string())?;
                if !body.is_empty() {
                    send_all(&mut stream, body).await?;
                }
                let response = response.await.map_err(|e| e.to_string())?;
                let status = response.status();
                Ok((status, Answer::Http2(response.into_body())))
            }
        }
    }
}

/// Sends `data` as the stream's window allows, then ends the stream.
async fn send_all(stream: &mut h2::SendStream<Bytes>, mut data: Bytes) -> Result<(), String> {
    while !data.is_empty() {
        stream.reserve_capacity(data.len());
        let mut granted = stream.capacity();
        while granted == 0 {
            granted = match std::future::poll_fn(|cx| stream.poll_capacity(cx)).await {
                Some(Ok(granted)) => granted,
                Some(Err(e)) => return Err(e.to_string()),
                None => return Err("the stream was reset".to_string()),
            };
        }
        let piece = data.split_to(granted.min(data.len()));
        let end = data.is_empty();
        stream.send_data(piece, end).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Aborts a spawned task when dropped.
pub struct AbortOnDrop<T>(pub tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
