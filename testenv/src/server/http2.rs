//! HTTP/2 connections, served with the `h2` crate as kube-apiserver's Go server serves them:
//! its SETTINGS, one task per stream (a watch is one stream beside the others), request bodies
//! read whole, answers sent as the peer's flow control grants room for them, a stream the
//! client resets ending its answer (and its watch), and the connection let go after 90 s
//! without streams.

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use bytes::Bytes;
use h2::server::SendResponse;
use h2::{Reason, RecvStream, SendStream};
use hyper::body::Body;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::task::JoinSet;

use super::body::ResponseBody;
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
/// streams: then, as Go's server does, a GOAWAY (`NO_ERROR`) and the end.
pub async fn serve<T>(io: T, api: Arc<Api>, faults: Arc<FaultState>)
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let io = GoSettingsOrder::new(io);
    let Ok(mut connection) = builder().handshake::<_, Bytes>(io).await else {
        return;
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
                    break;
                }
                None => break,
            },
            Some(_) = streams.join_next(), if !streams.is_empty() => {
                if streams.is_empty() {
                    idle.as_mut().reset(tokio::time::Instant::now() + IDLE_TIMEOUT);
                }
            }
            () = &mut idle, if streams.is_empty() => {
                connection.abrupt_shutdown(Reason::NO_ERROR);
                let _ = poll_fn(|cx| connection.poll_closed(cx)).await;
                return;
            }
        }
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
                if !send_data(send, data).await {
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

/// Sends `data` as the stream's window grants room for it: false when the stream is gone.
async fn send_data(send: &mut SendStream<Bytes>, mut data: Bytes) -> bool {
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
        if send.send_data(piece, false).is_err() {
            return false;
        }
    }
    true
}
