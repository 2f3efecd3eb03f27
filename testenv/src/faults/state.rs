//! The fault rules of one server and the bookkeeping that applies them: pending failures,
//! latencies, watch-event drops, open watch streams and the count of faults that fired.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures::Stream;
use serde_json::Value;
use tokio::sync::oneshot;

use super::failure::Failure;
use super::matcher::{Matcher, RequestInfo};
use crate::support::request::WatchStream;

/// What to do with one request.
#[derive(Debug, Default)]
pub(crate) struct Decision {
    /// Sleep this long before answering.
    pub delay: Duration,
    /// Answer with this failure instead of handling the request.
    pub failure: Option<Failure>,
}

#[derive(Default)]
struct Rules {
    /// (which requests, how many more, the answer), first match wins.
    failures: Vec<(Matcher, usize, Failure)>,
    /// Every matching latency is added.
    latencies: Vec<(Matcher, Duration)>,
    /// (which watch events, how many more).
    drops: Vec<(Matcher, usize)>,
}

/// The fault state shared by the server, the store's event filter and every `Faults` handle.
#[derive(Default)]
pub(crate) struct FaultState {
    rules: Mutex<Rules>,
    injected: AtomicU64,
    watches: Mutex<HashMap<u64, oneshot::Sender<()>>>,
    next_watch: AtomicU64,
}

impl FaultState {
    fn rules(&self) -> MutexGuard<'_, Rules> {
        self.rules
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn watches(&self) -> MutexGuard<'_, HashMap<u64, oneshot::Sender<()>>> {
        self.watches
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn fired(&self, n: u64) {
        self.injected.fetch_add(n, Ordering::Relaxed);
    }

    /// How many faults fired so far.
    pub fn injected(&self) -> u64 {
        self.injected.load(Ordering::Relaxed)
    }

    pub fn fail_next(&self, matcher: Matcher, count: usize, failure: Failure) {
        if count > 0 {
            self.rules().failures.push((matcher, count, failure));
        }
    }

    pub fn latency(&self, matcher: Matcher, delay: Duration) {
        if !delay.is_zero() {
            self.rules().latencies.push((matcher, delay));
        }
    }

    pub fn drop_watch_events(&self, matcher: Matcher, count: usize) {
        if count > 0 {
            self.rules().drops.push((matcher, count));
        }
    }

    pub fn clear(&self) {
        *self.rules() = Rules::default();
    }

    /// Whether any request fault (failure or latency) is pending; when none is, the server
    /// skips deriving the request's attributes.
    pub fn armed(&self) -> bool {
        let rules = self.rules();
        !rules.failures.is_empty() || !rules.latencies.is_empty()
    }

    /// The latency and failure for a request, consuming one pending failure if it matches.
    pub fn on_request(&self, info: &RequestInfo) -> Decision {
        let mut rules = self.rules();
        let delay: Duration = rules
            .latencies
            .iter()
            .filter(|(m, _)| m.matches(info))
            .map(|(_, d)| *d)
            .sum();
        let mut failure = None;
        if let Some(i) = rules
            .failures
            .iter()
            .position(|(m, left, _)| *left > 0 && m.matches(info))
        {
            let rule = &mut rules.failures[i];
            rule.1 -= 1;
            failure = Some(rule.2.clone());
            if rule.1 == 0 {
                rules.failures.remove(i);
            }
        }
        drop(rules);
        self.fired(u64::from(!delay.is_zero()) + u64::from(failure.is_some()));
        Decision { delay, failure }
    }

    /// Whether the store event of `object` under storage key `key` (`<group>/<plural>`) is
    /// to be kept from every watcher; consumes one pending drop if so.
    pub fn drop_event(&self, key: &str, object: &Value) -> bool {
        let mut rules = self.rules();
        if rules.drops.is_empty() {
            return false;
        }
        let (group, plural) = key.split_once('/').unwrap_or(("", key));
        let meta = &object["metadata"];
        let info = RequestInfo {
            verb: "watch".into(),
            group: group.to_string(),
            resource: plural.to_string(),
            namespace: meta["namespace"].as_str().unwrap_or_default().to_string(),
            name: meta["name"].as_str().unwrap_or_default().to_string(),
        };
        let Some(i) = rules.drops.iter().position(|(m, _)| m.matches(&info)) else {
            return false;
        };
        rules.drops[i].1 -= 1;
        if rules.drops[i].1 == 0 {
            rules.drops.remove(i);
        }
        drop(rules);
        self.fired(1);
        true
    }

    /// Wraps a watch response so that [`FaultState::close_watches`] can end it.
    pub fn track(self: &Arc<Self>, stream: WatchStream) -> WatchStream {
        let id = self.next_watch.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.watches().insert(id, tx);
        WatchStream(Box::pin(Tracked {
            inner: stream,
            closed: rx,
            id,
            state: Arc::downgrade(self),
        }))
    }

    /// Ends every open watch stream; returns how many there were.
    pub fn close_watches(&self) -> usize {
        let open: Vec<_> = self.watches().drain().map(|(_, tx)| tx).collect();
        let closed = open
            .into_iter()
            .filter(|tx| !tx.is_closed())
            .fold(0, |n, tx| n + usize::from(tx.send(()).is_ok()));
        self.fired(closed as u64);
        closed
    }

    /// How many watch streams are open now.
    pub fn open_watches(&self) -> usize {
        self.watches().values().filter(|tx| !tx.is_closed()).count()
    }
}

/// A watch stream that ends when its close signal fires, and unregisters itself when dropped.
struct Tracked {
    inner: WatchStream,
    closed: oneshot::Receiver<()>,
    id: u64,
    state: Weak<FaultState>,
}

impl Stream for Tracked {
    type Item = Bytes;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let this = self.get_mut();
        if let Poll::Ready(Ok(())) = Pin::new(&mut this.closed).poll(cx) {
            return Poll::Ready(None);
        }
        this.inner.0.as_mut().poll_next(cx)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if let Some(state) = self.state.upgrade() {
            state.watches().remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;
    use serde_json::json;

    fn info(verb: &str, resource: &str) -> RequestInfo {
        RequestInfo {
            verb: verb.into(),
            resource: resource.into(),
            namespace: "default".into(),
            name: "x".into(),
            ..RequestInfo::default()
        }
    }

    #[test]
    fn failures_are_consumed_in_order_and_latencies_add_up() {
        let s = FaultState::default();
        s.fail_next(Matcher::any().verb("list"), 2, Failure::status(503));
        s.fail_next(Matcher::any(), 1, Failure::status(500));
        s.latency(Matcher::any().resource("pods"), Duration::from_millis(5));
        s.latency(Matcher::any(), Duration::from_millis(7));
        let codes: Vec<_> = (0..4)
            .map(|_| s.on_request(&info("list", "pods")))
            .map(|d| (d.delay.as_millis(), d.failure.map(|f| f.code())))
            .collect();
        assert_eq!(
            codes,
            [
                (12, Some(503)),
                (12, Some(503)),
                (12, Some(500)),
                (12, None)
            ]
        );
        assert_eq!(s.injected(), 4 + 3);
        assert!(s.armed());
        s.clear();
        assert!(!s.armed());
        let d = s.on_request(&info("list", "pods"));
        assert!(d.delay.is_zero() && d.failure.is_none());
        assert_eq!(s.injected(), 7);
    }

    #[test]
    fn event_drops_match_group_resource_and_object() {
        let s = FaultState::default();
        s.drop_watch_events(Matcher::any().group("").resource("configmaps").name("a"), 1);
        let a = json!({"metadata": {"namespace": "default", "name": "a"}});
        let b = json!({"metadata": {"namespace": "default", "name": "b"}});
        assert!(!s.drop_event("/configmaps", &b));
        assert!(!s.drop_event("apps/configmaps", &a));
        assert!(s.drop_event("/configmaps", &a));
        assert!(!s.drop_event("/configmaps", &a), "only one was asked for");
        s.drop_watch_events(Matcher::any().verb("list"), 1);
        assert!(!s.drop_event("/configmaps", &a), "events are watch events");
        assert_eq!(s.injected(), 1);
    }

    #[tokio::test]
    async fn closing_ends_open_streams_only() {
        let s = Arc::new(FaultState::default());
        let endless = || WatchStream(Box::pin(futures::stream::pending::<Bytes>()));
        let mut a = s.track(endless());
        let b = s.track(endless());
        drop(b);
        assert_eq!(s.open_watches(), 1);
        assert_eq!(s.close_watches(), 1);
        assert_eq!(a.0.next().await, None);
        assert_eq!(s.close_watches(), 0);
        assert_eq!(s.injected(), 1);
    }
}
