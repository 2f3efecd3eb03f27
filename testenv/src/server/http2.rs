//! HTTP/2 connections, served with the `h2` crate as kube-apiserver's Go server serves them:
//! its SETTINGS, one task per stream (a watch is one stream beside the others), request bodies
//! read whole, answers sent as the peer's flow control grants room for them, a stream the
//! client resets ending its answer (and its watch), and the connection let go after 90 s
//! without streams, closed a second after its GOAWAY unless the client closes it first.

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use h2::server::SendResponse;
use h2::{Reason, RecvStream, SendStream};
use hyper::body::Body;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::task::JoinSet;

use super::body::{ResponseBody, WRITE_BUFFER_H2};
use super::filters;
use super::settings_order::GoSettingsOrder;
use crate::endpoints::Api;
use crate::faults::FaultState;

/// Streams a client may have open at once: the default of kube-apiserver's
/// `--http2-max-streams-per-connection`.
const STREAMS: u32 = 100;

/// The largest frame the server reads and each stream's receive window: kube-apiserver's
/// 256 KiB (the 99th percentile of request bodies).
const STREAM_WINDOW: u32 = 256 * 1024;

/// How long a connection without streams is kept: kube-apiserver's `IdleTimeout`.
const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// How long Go's server keeps a connection after its GOAWAY, for the client to read it before
/// the close (`goAwayTimeout`).
const GOAWAY_LINGER: Duration = Duration::from_secs(1);

/// kube-apiserver's HTTP/2 server settings, as its SETTINGS frame (written in Go's order,
/// [`GoSettingsOrder`]) and first WINDOW_UPDATE show them: [`STREAMS`] concurrent streams, frames and stream windows of [`STREAM_WINDOW`], a
/// connection window of one stream window per stream, Go's header list limit (1 MiB and 320
/// bytes) and its 4 KiB header table.
fn builder() -> h2::server::Builder {
    let mut builder = h2::server::Builder::new();
    builder
        .max_concurrent_streams(STREAMS)
        .max_frame_size(STREAM_WINDOW)
        .initial_window_size(STREAM_WINDOW)
        .initial_connection_window_size(STREAM_WINDOW * STREAMS)
        .max_header_list_size((1 << 20) + 320)
        .header_table_size(4096);
    builder
}

/// Serves one HTTP/2 connection (ALPN chose `h2`) until the client closes it, the server
/// stops (the task is aborted, and its streams with it) or it stays [`IDLE_TIMEOUT`] without
/// streams: then, as Go's server does, a GOAWAY (`NO_ERROR`). Once the connection has ended
/// after its handshake, it is kept up to [`GOAWAY_LINGER`] for the client to close it
/// first, then closed (TLS `close_notify`, then the TCP connection).
pub async fn serve<T>(io: T, api: Arc<Api>, faults: Arc<FaultState>)
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let held = Arc::new(Mutex::new(io));
    let shook_hands = serve_held(Held(held.clone()), api, faults).await;
    // The `h2` connection is gone, and its end of the shared connection with it.
    let Ok(io) = Arc::try_unwrap(held) else {
        return;
    };
    if shook_hands {
        linger(io.into_inner().unwrap_or_else(PoisonError::into_inner)).await;
    }
}

/// [`serve`] over the connection `io` holds: false when the handshake failed.
async fn serve_held<T>(io: Held<T>, api: Arc<Api>, faults: Arc<FaultState>) -> bool
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let io = GoSettingsOrder::new(io);
    let Ok(mut connection) = builder().handshake::<_, Bytes>(io).await else {
        return false;
    };
    let mut streams = JoinSet::new();
    let idle = tokio::time::sleep(IDLE_TIMEOUT);
    tokio::pin!(idle);
    loop {
        tokio::select! {
            accepted = connection.accept() => match accepted {
                Some(Ok((request, respond))) => {
                    streams.spawn(stream(request, respond, api.clone(), faults.clone()));
                }
                Some(Err(e)) => {
                    tracing::debug!(error = %e, "HTTP/2 connection ended");
                    return true;
                }
                None => return true,
            },
            Some(_) = streams.join_next(), if !streams.is_empty() => {
                if streams.is_empty() {
                    idle.as_mut().reset(tokio::time::Instant::now() + IDLE_TIMEOUT);
                }
            }
            () = &mut idle, if streams.is_empty() => {
                connection.abrupt_shutdown(Reason::NO_ERROR);
                let _ = poll_fn(|cx| connection.poll_closed(cx)).await;
                return true;
            }
        }
    }
}

/// After the end of a connection (its GOAWAY written, or the client gone), what Go's server
/// does before it closes it: wait up to [`GOAWAY_LINGER`] (`goAwayTimeout`) for the client to
/// close first, reading (and dropping) what it still sends, then close.
async fn linger<T: AsyncRead + AsyncWrite + Unpin>(mut io: T) {
    let mut buf = [0u8; 4096];
    let drained = async { while matches!(io.read(&mut buf).await, Ok(n) if n > 0) {} };
    let _ = tokio::time::timeout(GOAWAY_LINGER, drained).await;
    let _ = io.shutdown().await;
}

/// A connection shared with the `h2` crate, taken back once it is done with it: its shutdown
/// only flushes, the close is [`linger`]'s.
struct Held<T>(Arc<Mutex<T>>);

impl<T> Held<T> {
    fn io(&self) -> std::sync::MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Held<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut *self.io()).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Held<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut *self.io()).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut *self.io()).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut *self.io()).poll_flush(cx)
    }
}

/// Answers one stream: reads the request's body, runs it through the filters, and sends the
/// answer (a `HEAD` gets the headers alone).
async fn stream(
    request: http::Request<RecvStream>,
    mut respond: SendResponse<Bytes>,
    api: Arc<Api>,
    faults: Arc<FaultState>,
) {
    let (parts, body) = request.into_parts();
    let head = parts.method == http::Method::HEAD;
    let body = crate::support::h2_body::read_whole(body).await;
    let (parts, body) = filters::serve(&api, &faults, parts, body)
        .await
        .into_parts();
    let empty = head || matches!(body, ResponseBody::Full(None) | ResponseBody::Unsized(None));
    let Ok(mut send) = respond.send_response(http::Response::from_parts(parts, ()), empty) else {
        return;
    };
    if !empty {
        send_body(&mut send, body).await;
    }
}

/// What comes next for an answer's stream.
enum Next {
    /// More of the body.
    Data(Bytes),
    /// The body is complete.
    End,
    /// The client reset the stream, or the connection is gone.
    Gone,
}

/// Sends `body` on `send` piece by piece (a watch's events as they come), each as the peer's
/// window allows, and ends the stream after it; stops when the client resets the stream.
async fn send_body(send: &mut SendStream<Bytes>, mut body: ResponseBody) {
    loop {
        let next = poll_fn(|cx| {
            if send.poll_reset(cx).is_ready() {
                return Poll::Ready(Next::Gone);
            }
            match Pin::new(&mut body).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => Poll::Ready(Next::Data(data)),
                    Err(_) => Poll::Ready(Next::Data(Bytes::new())), // no trailers are sent
                },
                Poll::Ready(None) => Poll::Ready(Next::End),
                Poll::Pending => Poll::Pending,
            }
        })
        .await;
        match next {
            Next::Data(data) => {
                // An answer that fit Go's write buffer whole goes out with the end of the
                // stream on its last DATA frame; a longer one (written through the buffer)
                // and a watch's events are followed by an empty DATA frame ending it.
                let end = body.is_end_stream() && data.len() <= WRITE_BUFFER_H2;
                if !send_data(send, data, end).await {
                    return;
                }
                if end {
                    return;
                }
            }
            Next::End => {
                let _ = send.send_data(Bytes::new(), true);
                return;
            }
            Next::Gone => return,
        }
    }
}

/// Sends `data` as the stream's window grants room for it, ending the stream with its last
/// piece if `end`: false when the stream is gone.
async fn send_data(send: &mut SendStream<Bytes>, mut data: Bytes, end: bool) -> bool {
    if data.is_empty() && end {
        return send.send_data(data, true).is_ok();
    }
    while !data.is_empty() {
        send.reserve_capacity(data.len());
        let mut granted = send.capacity();
        while granted == 0 {
            granted = match poll_fn(|cx| send.poll_capacity(cx)).await {
                Some(Ok(granted)) => granted,
                Some(Err(_)) | None => return false,
            };
        }
        let piece = data.split_to(granted.min(data.len()));
        if send.send_data(piece, end && data.is_empty()).is_err() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How long [`linger`] keeps a connection whose client does `client` after the end.
    async fn lingered(client: impl FnOnce(tokio::io::DuplexStream)) -> Duration {
        let (server, peer) = tokio::io::duplex(1024);
        let started = std::time::Instant::now();
        let lingering = tokio::spawn(linger(server));
        client(peer);
        lingering.await.unwrap();
        started.elapsed()
    }

    #[tokio::test]
    async fn the_connection_is_closed_a_second_after_its_end_unless_the_client_closes_first() {
        // A client that stays, and even writes: a second.
        let mut kept = None;
        let waited = lingered(|mut peer| {
            kept = Some(tokio::spawn(async move {
                let _ = peer.write_all(b"late frames").await;
                let mut rest = Vec::new();
                // The close reaches the client.
                peer.read_to_end(&mut rest).await.map(|_| rest)
            }));
        })
        .await;
        assert!(
            waited >= GOAWAY_LINGER && waited < GOAWAY_LINGER * 3 / 2,
            "{waited:?}"
        );
        let read = kept.unwrap().await.unwrap().unwrap();
        assert!(read.is_empty(), "{read:?}");
        // A client that closes at once: no wait.
        let waited = lingered(drop).await;
        assert!(waited < GOAWAY_LINGER / 4, "{waited:?}");
    }
}
