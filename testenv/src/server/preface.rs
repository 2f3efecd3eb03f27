//! An HTTP/2 connection preface on a connection speaking HTTP/1.1 (a client with prior
//! knowledge of HTTP/2 over TLS without ALPN `h2`). Go's HTTP/1 server reads its first line,
//! `PRI * HTTP/2.0`, as a request (one without headers, whose body runs to the end of the
//! connection), hands it to kube-apiserver's handlers and closes the connection after the
//! answer; hyper would close it without a word. The answer is written here as Go writes it.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};

use super::body::ResponseBody;
use super::filters;
use crate::endpoints::Api;
use crate::faults::FaultState;

/// The head of the preface read as an HTTP/1 request: its request line and the empty line
/// that ends its (no) headers.
const PRI_HEAD: &[u8] = b"PRI * HTTP/2.0\r\n\r\n";

/// What a connection starts with.
pub enum Start {
    /// The HTTP/2 preface.
    Preface,
    /// Anything else: the bytes read to tell (to be read again).
    Other(Vec<u8>),
}

/// Reads from `io` as much as tells whether it starts with the preface: a first byte that is
/// not `P` is enough for any other request.
pub async fn sniff<T: AsyncRead + Unpin>(io: &mut T) -> Start {
    let mut read = Vec::new();
    let mut buf = [0u8; 64];
    while read.len() < PRI_HEAD.len() && PRI_HEAD.starts_with(&read) {
        match io.read(&mut buf).await {
            Ok(n) if n > 0 => read.extend_from_slice(&buf[..n]),
            _ => break,
        }
    }
    if read.starts_with(PRI_HEAD) {
        Start::Preface
    } else {
        Start::Other(read)
    }
}

/// Answers the preface's `PRI *` request as kube-apiserver does, then closes the connection
/// (TLS `close_notify` first). The request is anonymous: kube-apiserver asks a client sending
/// an HTTP/2 request (`ProtoMajor` 2) as `system:anonymous` to close the connection after it
/// (`UnauthenticatedHTTP2DOSMitigation`), so the handler's headers hold `Connection: close`.
pub async fn answer<T: AsyncWrite + Unpin>(mut io: T, api: &Arc<Api>, faults: &Arc<FaultState>) {
    let (mut parts, ()) = http::Request::new(()).into_parts();
    parts.method = http::Method::from_bytes(b"PRI").expect("a method");
    parts.uri = http::Uri::from_static("*");
    // HTTP/2.0, as the request line says: the answer is framed as over HTTP/2 (sorted
    // headers, then its length and date), put into HTTP/1.1's order below.
    parts.version = http::Version::HTTP_2;
    let response = filters::serve(api, faults, parts, Ok(Bytes::new())).await;
    let _ = io.write_all(&http1_answer(response)).await;
    let _ = io.shutdown().await;
}

/// `response` as Go's HTTP/1 server writes an answer it closes the connection after: the
/// status line, the handler's headers sorted by their canonical names, `Date`,
/// `Content-Length`, then the body.
fn http1_answer(response: http::Response<ResponseBody>) -> Vec<u8> {
    let (head, body) = response.into_parts();
    let body = match body {
        ResponseBody::Full(data) | ResponseBody::Unsized(data) => data.unwrap_or_default(),
        ResponseBody::Stream(_) => Bytes::new(),
    };
    let mut date = None;
    let mut headers: Vec<(String, &[u8])> = vec![("Connection".to_string(), b"close")];
    for (name, value) in &head.headers {
        match *name {
            http::header::DATE => date = Some(value.as_bytes()),
            http::header::CONTENT_LENGTH => {}
            _ => headers.push((canonical(name.as_str()), value.as_bytes())),
        }
    }
    headers.sort_by(|a, b| a.0.cmp(&b.0));
    let status = head.status;
    let mut out = format!(
        "HTTP/1.1 {} {}\r\n",
        status.as_str(),
        status.canonical_reason().unwrap_or_default()
    )
    .into_bytes();
    let mut line = |name: &str, value: &[u8]| {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    };
    for (name, value) in &headers {
        line(name, value);
    }
    if let Some(date) = date {
        line("Date", date);
    }
    line("Content-Length", body.len().to_string().as_bytes());
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(&body);
    out
}

/// A header name as Go canonicalizes it: each word (between dashes) capitalized.
fn canonical(name: &str) -> String {
    name.split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + &chars.as_str().to_ascii_lowercase()
            })
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// A connection whose first reads give back bytes already read from it.
pub struct Rewind<T> {
    read: Bytes,
    io: T,
}

impl<T> Rewind<T> {
    pub fn new(read: Vec<u8>, io: T) -> Self {
        Rewind {
            read: Bytes::from(read),
            io,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Rewind<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if this.read.is_empty() {
            return Pin::new(&mut this.io).poll_read(cx, buf);
        }
        let n = this.read.len().min(buf.remaining());
        buf.put_slice(&this.read.split_to(n));
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Rewind<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_preface_is_told_from_other_requests_and_those_are_read_again() {
        let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";
        let (mut client, mut server) = tokio::io::duplex(1024);
        // In pieces.
        client.write_all(&preface[..5]).await.unwrap();
        let sniffing = tokio::spawn(async move { (sniff(&mut server).await, server) });
        tokio::task::yield_now().await;
        client.write_all(&preface[5..]).await.unwrap();
        let (start, _) = sniffing.await.unwrap();
        assert!(matches!(start, Start::Preface));
        // A request: as soon as its first byte differs, and every byte read comes back.
        let (mut client, mut server) = tokio::io::duplex(1024);
        client.write_all(b"PUT /x HTTP/1.1\r\n\r\n").await.unwrap();
        let Start::Other(read) = sniff(&mut server).await else {
            panic!("a PUT is no preface");
        };
        drop(client);
        let mut again = Vec::new();
        Rewind::new(read, server)
            .read_to_end(&mut again)
            .await
            .unwrap();
        assert_eq!(again, b"PUT /x HTTP/1.1\r\n\r\n");
    }

    #[test]
    fn the_answer_is_headed_as_go_heads_it() {
        let response = http::Response::builder()
            .status(403)
            .header("x-content-type-options", "nosniff")
            .header("audit-id", "a")
            .header("cache-control", "no-cache, private")
            .header("content-type", "application/json")
            .header("content-length", "2")
            .header("date", "Mon, 30 Nov 2026 02:00:07 GMT")
            .body(ResponseBody::Full(Some(Bytes::from_static(b"{}"))))
            .unwrap();
        assert_eq!(
            String::from_utf8(http1_answer(response)).unwrap(),
            "HTTP/1.1 403 Forbidden\r\nAudit-Id: a\r\nCache-Control: no-cache, private\r\n\
             Connection: close\r\nContent-Type: application/json\r\n\
             X-Content-Type-Options: nosniff\r\nDate: Mon, 30 Nov 2026 02:00:07 GMT\r\n\
             Content-Length: 2\r\n\r\n{}"
        );
        assert_eq!(
            canonical("x-kubernetes-pf-flowschema-uid"),
            "X-Kubernetes-Pf-Flowschema-Uid"
        );
    }
}
