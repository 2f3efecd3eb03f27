//! Back to work within about a second of an API server outage, without hammering a server that
//! is still down.
//!
//! kube-runtime's default watcher backoff (jittered, 0.8 s doubling to 30 s) paces watch
//! retries. After an outage of a few seconds the next retry may come many seconds after the
//! server is back: a 6 s outage left controllers idle for 10 to 17 s. So while watches fail
//! because the server cannot be reached at all (no HTTP answer), one cheap probe per client
//! (`GET /readyz`) runs every probe interval, and the moment it succeeds every waiting watch
//! retries at once. The backoff stays the limit of every wait. Failures the server answered
//! (403, 404, 410, 429, 5xx) wait the full backoff: the server is up and said what it wants.

use kube::runtime::watcher;
use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::Duration,
};
use tokio::sync::watch;

/// Whether a watch error means the API server could not be reached (no HTTP response: the
/// connection was refused, reset or timed out), rather than an answer from it.
pub(crate) fn server_unreachable(err: &watcher::Error) -> bool {
    let client_error = match err {
        watcher::Error::InitialListFailed(e)
        | watcher::Error::WatchStartFailed(e)
        | watcher::Error::WatchFailed(e) => e,
        watcher::Error::WatchError(_) | watcher::Error::NoResourceVersion => return false,
    };
    matches!(
        client_error,
        kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_)
    )
}

/// The readiness probe of one client, shared by every informer of a cache.
pub(crate) struct Recovery {
    client: kube::Client,
    /// Time between probes; zero turns probing off (plain backoff).
    interval: Duration,
    /// Bumped every time a probe finds the server ready.
    ready: watch::Sender<u64>,
    /// Watches waiting for the server; the probe runs while there are any.
    waiting: AtomicUsize,
    probing: AtomicBool,
}

impl Recovery {
    /// A probe through `client` every `interval` while watches wait for the server.
    pub(crate) fn new(client: kube::Client, interval: Duration) -> Arc<Self> {
        Arc::new(Self {
            client,
            interval,
            ready: watch::Sender::new(0),
            waiting: AtomicUsize::new(0),
            probing: AtomicBool::new(false),
        })
    }

    /// Waits `delay` (the backoff) after a watch error. When the server was `unreachable`,
    /// returns as soon as a probe made after this call finds it ready, if that comes first.
    pub(crate) async fn wait(self: &Arc<Self>, delay: Duration, unreachable: bool) {
        if !unreachable || self.interval.is_zero() {
            tokio::time::sleep(delay).await;
            return;
        }
        let mut ready = self.ready.subscribe();
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = Waiting(self);
        self.start_probing();
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            _ = ready.changed() => {
                tracing::info!("the API server answers again: resuming watches");
            }
        }
    }

    fn start_probing(self: &Arc<Self>) {
        if !self.probing.swap(true, Ordering::SeqCst) {
            tokio::spawn(self.clone().probe_while_waiting());
        }
    }

    async fn probe_while_waiting(self: Arc<Self>) {
        loop {
            tokio::time::sleep(self.interval).await;
            if self.waiting.load(Ordering::SeqCst) == 0 {
                self.probing.store(false, Ordering::SeqCst);
                // A watch may have started waiting after the check and seen the probe still
                // running: keep probing for it unless another probe already took over.
                if self.waiting.load(Ordering::SeqCst) == 0
                    || self.probing.swap(true, Ordering::SeqCst)
                {
                    return;
                }
            }
            if self.probe().await {
                self.ready.send_modify(|generation| *generation += 1);
            }
        }
    }

    /// One `GET /readyz`: whether the server answered 2xx within the interval (at least 1 s).
    async fn probe(&self) -> bool {
        let request = http::Request::get("/readyz")
            .body(Vec::new())
            .expect("a static request is valid");
        let answer = tokio::time::timeout(
            self.interval.max(Duration::from_secs(1)),
            self.client.request_text(request),
        )
        .await;
        matches!(answer, Ok(Ok(_)))
    }
}

/// Counts a waiting watch for as long as it waits (also when the wait is cancelled).
struct Waiting<'a>(&'a Recovery);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_errors_without_an_answer_count_as_unreachable() {
        let refused = kube::Error::Service("connection refused".into());
        assert!(server_unreachable(&watcher::Error::WatchStartFailed(
            refused
        )));
        let reset = kube::Error::ReadEvents(std::io::Error::other("reset"));
        assert!(server_unreachable(&watcher::Error::WatchFailed(reset)));
        let forbidden = kube::Error::Api(Box::new(kube::core::Status::failure("no", "Forbidden")));
        assert!(!server_unreachable(&watcher::Error::InitialListFailed(
            forbidden
        )));
        assert!(!server_unreachable(&watcher::Error::NoResourceVersion));
    }

    /// A stand-in API server on plain HTTP: counts connections; while down it closes them at
    /// once, once ready it answers 200 (and closes, so every probe is one connection).
    async fn stand_in() -> (kube::Client, Arc<AtomicUsize>, Arc<AtomicBool>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (connections, ready) = (
            Arc::new(AtomicUsize::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let (count, up) = (connections.clone(), ready.clone());
        tokio::spawn(async move {
            loop {
                let (mut stream, _) = listener.accept().await.unwrap();
                count.fetch_add(1, Ordering::SeqCst);
                if !up.load(Ordering::SeqCst) {
                    continue; // dropped: the connection is closed unanswered
                }
                tokio::spawn(async move {
                    let mut request = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => request.extend_from_slice(&buf[..n]),
                        }
                    }
                    let _ = stream
                        .write_all(
                            b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
                        )
                        .await;
                });
            }
        });
        let config = kube::Config::new(format!("http://{addr}").parse().unwrap());
        (kube::Client::try_from(config).unwrap(), connections, ready)
    }

    #[tokio::test]
    async fn one_probe_per_interval_however_many_watches_wait_and_all_resume_when_it_answers() {
        let (client, connections, ready) = stand_in().await;
        let recovery = Recovery::new(client, Duration::from_millis(100));
        let waits: Vec<_> = (0..20)
            .map(|_| {
                let recovery = recovery.clone();
                tokio::spawn(async move {
                    recovery.wait(Duration::from_secs(30), true).await;
                    tokio::time::Instant::now()
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let probes = connections.load(Ordering::SeqCst);
        // One probe at a time for twenty waiting watches (at most one per interval, fewer when
        // a probe waits on a dropped connection up to its timeout), not twenty per interval.
        assert!((1..=12).contains(&probes), "{probes} probes");
        assert!(
            waits.iter().all(|w| !w.is_finished()),
            "the server is still down"
        );

        ready.store(true, Ordering::SeqCst);
        let answered = tokio::time::Instant::now();
        for wait in waits {
            let resumed = wait.await.unwrap() - answered;
            // Within the probe timeout (1 s) plus one interval of the server's return.
            assert!(resumed < Duration::from_millis(1200), "{resumed:?}");
        }
        // Nobody waits any more: the probe stops.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let settled = connections.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(connections.load(Ordering::SeqCst), settled);
    }

    #[tokio::test]
    async fn an_error_the_server_answered_waits_the_whole_backoff() {
        let (client, connections, ready) = stand_in().await;
        ready.store(true, Ordering::SeqCst);
        let recovery = Recovery::new(client, Duration::from_millis(50));
        let started = tokio::time::Instant::now();
        recovery.wait(Duration::from_millis(600), false).await;
        assert!(started.elapsed() >= Duration::from_millis(600));
        assert_eq!(
            connections.load(Ordering::SeqCst),
            0,
            "no probe for an answered error"
        );
    }
}
