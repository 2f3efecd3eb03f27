//! One client connection to a webhook, over the protocol ALPN chose: kube-apiserver's webhook
//! client (Go's transport) offers `h2` and then `http/1.1`, so a webhook serving HTTP/2 is
//! called over HTTP/2 (the `h2` crate's client, not hyper's `http2` feature), several calls
//! sharing one connection, and any other over HTTP/1.1 (hyper).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// The ALPN names the client offers, in Go's order.
pub fn alpn_protocols() -> Vec<Vec<u8>> {
    vec![b"h2".to_vec(), b"http/1.1".to_vec()]
}

/// The stream receive window Go's HTTP/2 transport announces (`transportDefaultStreamFlow`).
const STREAM_WINDOW: u32 = 4 << 20;

/// How far Go's transport opens the connection's receive window, beyond the protocol's
/// initial 65,535 bytes, with its first WINDOW_UPDATE (`transportDefaultConnFlow`).
const CONNECTION_WINDOW_GROWTH: u32 = 1 << 30;

/// The client side of an HTTP/2 connection as Go's transport (client-go's, kube-apiserver's
/// webhook client) opens it: its SETTINGS are push disabled, stream windows of
/// [`STREAM_WINDOW`], frames of at most 16 KiB and header lists of at most 10 MiB (net/http's
/// default `MaxResponseHeaderBytes`), in that order (the `h2` crate writes these entries in
/// the same order), then a WINDOW_UPDATE growing the connection's window by
/// [`CONNECTION_WINDOW_GROWTH`].
fn http2_builder() -> h2::client::Builder {
    let mut builder = h2::client::Builder::new();
    builder
        .enable_push(false)
        .initial_window_size(STREAM_WINDOW)
        .max_frame_size(16 << 10)
        .max_header_list_size(10 << 20)
        .initial_connection_window_size(65_535 + CONNECTION_WINDOW_GROWTH);
    builder
}

/// A connection whose reads wait until its first flush: Go's transport writes its preface,
/// SETTINGS and WINDOW_UPDATE at once, before it reads anything, where the `h2` crate would
/// acknowledge SETTINGS the server sent meanwhile before writing its WINDOW_UPDATE (its
/// first flush comes once nothing is left to read).
struct WritesFirst<T> {
    io: T,
    /// Whether the first flush was asked for.
    flushed: bool,
    /// The task whose read waits for it.
    reader: Option<std::task::Waker>,
}

impl<T: AsyncRead + Unpin> AsyncRead for WritesFirst<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if !this.flushed {
            this.reader = Some(cx.waker().clone());
            return Poll::Pending;
        }
        Pin::new(&mut this.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WritesFirst<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        this.flushed = true;
        if let Some(reader) = this.reader.take() {
            reader.wake();
        }
        Pin::new(&mut this.io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        this.flushed = true;
        Pin::new(&mut this.io).poll_shutdown(cx)
    }
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
            let io = WritesFirst {
                io: tls,
                flushed: false,
                reader: None,
            };
            let (sender, connection) = http2_builder()
                .handshake(io)
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

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// The first frames a client connection opened as [`Connection::start`] opens it writes
    /// after the preface, the server's SETTINGS already waiting for it: (type, stream,
    /// payload) each.
    async fn first_frames() -> Vec<(u8, u32, Vec<u8>)> {
        let (client, mut server) = tokio::io::duplex(1 << 16);
        server
            .write_all(&[0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100])
            .await
            .unwrap();
        let client = WritesFirst {
            io: client,
            flushed: false,
            reader: None,
        };
        let task = tokio::spawn(async move {
            let (sender, connection) = http2_builder().handshake::<_, Bytes>(client).await?;
            let _sender = sender;
            connection.await
        });
        let mut bytes = vec![0u8; 24];
        server.read_exact(&mut bytes).await.unwrap();
        assert_eq!(bytes, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        let mut frames = Vec::new();
        while frames.len() < 3 {
            let mut header = [0u8; 9];
            server.read_exact(&mut header).await.unwrap();
            let len = u32::from_be_bytes([0, header[0], header[1], header[2]]) as usize;
            let mut payload = vec![0u8; len];
            server.read_exact(&mut payload).await.unwrap();
            let stream = u32::from_be_bytes([header[5], header[6], header[7], header[8]]);
            frames.push((header[3], stream, payload));
        }
        task.abort();
        frames
    }

    #[tokio::test]
    async fn the_client_opens_http2_as_go_s_transport_does() {
        let frames = first_frames().await;
        let (kind, stream, settings) = &frames[0];
        assert_eq!((*kind, *stream), (4, 0), "{frames:?}");
        let settings: Vec<(u16, u32)> = settings
            .chunks(6)
            .map(|s| {
                let id = u16::from_be_bytes([s[0], s[1]]);
                (id, u32::from_be_bytes([s[2], s[3], s[4], s[5]]))
            })
            .collect();
        // What kube-apiserver's webhook client writes, in its order.
        assert_eq!(
            settings,
            [(2, 0), (4, 4_194_304), (5, 16_384), (6, 10_485_760)]
        );
        // Then, before the server's SETTINGS are acknowledged, the connection's window grows
        // by 1 GiB.
        assert_eq!(frames[1], (8, 0, 0x4000_0000u32.to_be_bytes().to_vec()));
        assert_eq!(frames[2], (4, 0, Vec::new()), "{frames:?}");
    }
}
