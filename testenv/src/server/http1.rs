//! HTTP/1.1 connections, served with hyper under the deadlines kube-apiserver's Go server
//! (`net/http`) keeps: `ReadHeaderTimeout` (32 s) for a request's head, counted from the
//! start of the connection for the first request and from the first bytes of each later one,
//! and `IdleTimeout` (90 s) between an answer and the first bytes of the next request. When a
//! deadline passes the connection is closed without an answer (TLS `close_notify`, then the
//! TCP connection), as Go closes it. A request's body and its answer (a watch) have no
//! deadline. A connection starting with HTTP/2's preface gets Go's answer to it ([`preface`]).

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, SizeHint};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::sync::Notify;
use tokio::time::Instant;

use super::body::ResponseBody;
use super::filters;
use super::preface::{self, Rewind, Start};
use crate::endpoints::Api;
use crate::faults::FaultState;

/// How long a request's head may take to arrive: kube-apiserver's `ReadHeaderTimeout`.
const READ_HEADER_TIMEOUT: Duration = Duration::from_secs(32);

/// How long a connection may wait for the next request after an answer: kube-apiserver's
/// `IdleTimeout`.
const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// How many bytes of the next request end the idle wait: Go's server peeks at 4 before it
/// starts reading the request (and its `ReadHeaderTimeout`).
const IDLE_ENDS_AFTER: usize = 4;

/// Where a connection is between requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// A request's head is being read; the connection is closed at the deadline.
    Head(Instant),
    /// A request is being served (its body read, its answer written).
    Busy,
    /// An answer was written; the next request has sent `read` bytes so far, and the
    /// connection is closed at the deadline unless [`IDLE_ENDS_AFTER`] arrive.
    Idle { deadline: Instant, read: usize },
}

/// The phase of one connection, shared by its reads, its service and its answers' bodies.
struct Clock {
    phase: Mutex<Phase>,
    /// Woken when the deadline changes.
    changed: Notify,
}

impl Clock {
    fn new() -> Clock {
        Clock {
            phase: Mutex::new(Phase::Head(Instant::now() + READ_HEADER_TIMEOUT)),
            changed: Notify::new(),
        }
    }

    fn set(&self, phase: Phase) {
        *self.phase.lock().unwrap_or_else(PoisonError::into_inner) = phase;
        self.changed.notify_one();
    }

    /// A request's head was read whole.
    fn busy(&self) {
        self.set(Phase::Busy);
    }

    /// An answer was written whole.
    fn idle(&self) {
        self.set(Phase::Idle {
            deadline: Instant::now() + IDLE_TIMEOUT,
            read: 0,
        });
    }

    /// `n` bytes were read from the client.
    fn read(&self, n: usize) {
        let mut phase = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
        if let Phase::Idle { read, .. } = &mut *phase {
            *read += n;
            if *read >= IDLE_ENDS_AFTER {
                *phase = Phase::Head(Instant::now() + READ_HEADER_TIMEOUT);
                drop(phase);
                self.changed.notify_one();
            }
        }
    }

    /// When the connection is to be closed, if the phase has a deadline.
    fn deadline(&self) -> Option<Instant> {
        match *self.phase.lock().unwrap_or_else(PoisonError::into_inner) {
            Phase::Head(deadline) | Phase::Idle { deadline, .. } => Some(deadline),
            Phase::Busy => None,
        }
    }
}

/// A connection whose reads are counted on its [`Clock`].
struct Watched<T> {
    io: T,
    clock: Arc<Clock>,
}

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let read = Pin::new(&mut this.io).poll_read(cx, buf);
        let n = buf.filled().len() - before;
        if n > 0 {
            this.clock.read(n);
        }
        read
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Watched<T> {
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

/// An answer's body that sets its connection idle once hyper is done with it (written whole,
/// or given up).
struct Tracked {
    body: ResponseBody,
    clock: Arc<Clock>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.clock.idle();
    }
}

impl Body for Tracked {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// Serves one HTTP/1.1 connection until the client closes it, the server stops (the task is
/// aborted) or a deadline passes.
pub async fn serve<T>(io: T, api: Arc<Api>, faults: Arc<FaultState>)
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let clock = Arc::new(Clock::new());
    let mut io = io;
    let first_head = clock.deadline().unwrap_or_else(Instant::now);
    let read = match tokio::time::timeout_at(first_head, preface::sniff(&mut io)).await {
        Ok(Start::Other(read)) => read,
        Ok(Start::Preface) => return preface::answer(io, &api, &faults).await,
        Err(_) => {
            let _ = io.shutdown().await;
            return;
        }
    };
    let io = Watched {
        io: Rewind::new(read, io),
        clock: clock.clone(),
    };
    let on_request = clock.clone();
    let service = service_fn(move |req: http::Request<hyper::body::Incoming>| {
        let (api, faults, clock) = (api.clone(), faults.clone(), on_request.clone());
        clock.busy();
        async move {
            let (parts, body) = req.into_parts();
            let body = body
                .collect()
                .await
                .map(http_body_util::Collected::to_bytes)
                .map_err(|e| e.to_string());
            let response = filters::serve(&api, &faults, parts, body).await;
            Ok::<_, Infallible>(response.map(|body| Tracked { body, clock }))
        }
    });
    // Go's `net/http` writes header names in their canonical case.
    let mut connection = hyper::server::conn::http1::Builder::new()
        .title_case_headers(true)
        .serve_connection(TokioIo::new(io), service);
    loop {
        let changed = clock.changed.notified();
        let deadline = clock.deadline();
        let expired = async {
            match deadline {
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = &mut connection => return,
            () = changed => {}
            () = expired => {
                if clock.deadline().is_some_and(|d| d <= Instant::now()) {
                    break;
                }
            }
        }
    }
    // Go closes the connection: `close_notify`, then the TCP connection.
    let mut io = connection.into_parts().io.into_inner().io;
    let _ = io.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_request_s_first_bytes_end_the_idle_wait_and_start_the_head_s() {
        let clock = Clock::new();
        let Some(Phase::Head(first)) = Some(*clock.phase.lock().unwrap()) else {
            panic!("a new connection reads a head");
        };
        assert!(first > Instant::now() + READ_HEADER_TIMEOUT - Duration::from_secs(1));
        clock.busy();
        assert_eq!(clock.deadline(), None);
        clock.idle();
        let idle = clock.deadline().unwrap();
        assert!(idle > Instant::now() + IDLE_TIMEOUT - Duration::from_secs(1));
        // Fewer than 4 bytes keep the idle deadline; the fourth starts the head's.
        clock.read(3);
        assert_eq!(clock.deadline(), Some(idle));
        clock.read(1);
        let head = clock.deadline().unwrap();
        assert!(head < idle - Duration::from_secs(50), "{head:?} {idle:?}");
        // Further bytes of the head do not move it.
        clock.read(100);
        assert_eq!(clock.deadline(), Some(head));
    }
}
