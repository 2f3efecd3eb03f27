//! The store's event history as etcd keeps it, behind lists at a past resourceVersion
//! (`resourceVersionMatch=Exact`, continue tokens): every resource's events, forgotten up to
//! a compaction point. kube-apiserver compacts etcd every 5 minutes, to the revision it saw
//! at the previous round, so between 5 and 10 minutes of history stay readable; here each
//! resource's history is also bounded by event count, so that a test writing many objects
//! does not keep every version of them (writes to one resource never shorten another's). Watches do not read it: they replay each resource's own
//! watch cache (`super::cache`).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

/// (namespace, name); namespace is empty for cluster-scoped objects.
pub type ObjectKey = (String, String);

/// Watch event types, as in `{"type": "ADDED", ...}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// An object was created.
    Added,
    /// An object changed.
    Modified,
    /// An object was removed.
    Deleted,
}

/// One change to the store.
#[derive(Debug)]
pub struct Event {
    /// The resourceVersion the change produced.
    pub rv: u64,
    /// Storage key of the object's kind.
    pub key: String,
    /// What happened.
    pub kind: EventType,
    /// The object after the change (for deletions, its last state).
    pub object: Arc<Value>,
    /// The object before the change, None for creations.
    pub prev: Option<Arc<Value>>,
    /// Lost for watchers (fault injection): never broadcast nor replayed.
    pub lost: bool,
}

#[cfg(test)]
impl Event {
    /// A creation of nothing under key `k` at `rv`, for the storage layer's tests.
    pub(crate) fn added_at(rv: u64) -> Arc<Event> {
        Arc::new(Event {
            rv,
            key: "k".into(),
            kind: EventType::Added,
            object: Arc::new(Value::Null),
            prev: None,
            lost: false,
        })
    }
}

/// The (namespace, name) of a stored object.
pub fn object_key(object: &Value) -> ObjectKey {
    let meta = &object["metadata"];
    (
        meta["namespace"].as_str().unwrap_or_default().to_string(),
        meta["name"].as_str().unwrap_or_default().to_string(),
    )
}

/// How often kube-apiserver compacts etcd (`--etcd-compaction-interval`, default 5 minutes).
pub const COMPACTION_INTERVAL: Duration = Duration::from_secs(300);

/// kube-apiserver's compaction rounds: each round compacts to the resourceVersion the
/// previous round saw.
struct Compactor {
    interval: Duration,
    next: Instant,
    /// The resourceVersion the previous round saw.
    seen: Option<u64>,
}

impl Compactor {
    /// The resourceVersion to compact to when a round is due at `now`.
    fn due(&mut self, now: Instant, current: u64) -> Option<u64> {
        if now < self.next {
            return None;
        }
        let mut to = None;
        // Rounds missed while nothing was written ran on the same state.
        while now >= self.next {
            to = self.seen;
            self.seen = Some(current);
            self.next += self.interval;
        }
        to
    }
}

/// The retained events of one resource.
#[derive(Default)]
struct Log {
    events: VecDeque<Arc<Event>>,
    /// This resource's events with rv <= forgotten were dropped by the count bound.
    forgotten: u64,
}

/// Each resource's last `limit` events since the last compaction, and the resourceVersion
/// before which history is gone.
pub struct History {
    logs: HashMap<String, Log>,
    limit: usize,
    /// Events with rv <= compacted are no longer available.
    compacted: u64,
    compactor: Compactor,
}

impl History {
    /// An empty history keeping at most `limit` events per resource, compacted every 5
    /// minutes.
    pub fn new(limit: usize) -> Self {
        Self::with_interval(limit, COMPACTION_INTERVAL)
    }

    /// As [`History::new`], compacted every `interval`.
    pub fn with_interval(limit: usize, interval: Duration) -> Self {
        History {
            logs: HashMap::new(),
            limit: limit.max(1),
            compacted: 0,
            compactor: Compactor {
                interval,
                next: Instant::now() + interval,
                seen: None,
            },
        }
    }

    /// Appends an event recorded at `at`, running a compaction round when one is due (it
    /// sees the resourceVersion before this event) and dropping the resource's oldest
    /// event beyond the limit.
    pub fn push(&mut self, at: Instant, event: Arc<Event>) {
        if let Some(rv) = self.compactor.due(at, event.rv - 1) {
            self.compact_to(rv);
        }
        let log = match self.logs.get_mut(&event.key) {
            Some(log) => log,
            None => self.logs.entry(event.key.clone()).or_default(),
        };
        log.events.push_back(event);
        while log.events.len() > self.limit {
            if let Some(old) = log.events.pop_front() {
                log.forgotten = old.rv;
            }
        }
    }

    /// Forgets every event up to `rv`.
    pub fn compact_to(&mut self, rv: u64) {
        self.compacted = self.compacted.max(rv);
        let compacted = self.compacted;
        self.logs.retain(|_, log| {
            while log.events.front().is_some_and(|e| e.rv <= compacted) {
                log.events.pop_front();
            }
            !log.events.is_empty() || log.forgotten > compacted
        });
    }

    /// Every event of `key` newer than `rv`, or Err(the resourceVersion up to which they
    /// are gone) when some were dropped.
    pub fn since(&self, key: &str, rv: u64) -> Result<Vec<Arc<Event>>, u64> {
        let log = self.logs.get(key);
        let gone = self.compacted.max(log.map_or(0, |log| log.forgotten));
        if rv < gone {
            return Err(gone);
        }
        let Some(log) = log else {
            return Ok(Vec::new());
        };
        let start = log.events.partition_point(|e| e.rv <= rv);
        Ok(log.events.range(start..).cloned().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(rv: u64) -> Arc<Event> {
        Event::added_at(rv)
    }

    #[test]
    fn bounded_history_expires_old_versions() {
        let mut h = History::new(2);
        for rv in 1..=4 {
            h.push(Instant::now(), ev(rv));
        }
        assert_eq!(h.since("k", 1).unwrap_err(), 2);
        assert_eq!(
            h.since("k", 2)
                .unwrap()
                .iter()
                .map(|e| e.rv)
                .collect::<Vec<_>>(),
            vec![3, 4]
        );
        assert!(h.since("k", 4).unwrap().is_empty());
        h.compact_to(4);
        assert_eq!(h.since("k", 3).unwrap_err(), 4);
    }

    #[test]
    fn compaction_rounds_keep_the_previous_round() {
        let start = Instant::now();
        let mut h = History::with_interval(1000, Duration::from_secs(300));
        let at = |secs| start + Duration::from_secs(secs);
        for rv in 1..=10 {
            h.push(at(rv), ev(rv));
        }
        // First round (5 min): nothing compacted yet, it remembers rv 10.
        h.push(at(301), ev(11));
        assert_eq!(h.compacted, 0);
        assert_eq!(h.since("k", 0).unwrap().len(), 11);
        // Second round (10 min): compacts to what the first saw.
        h.push(at(601), ev(12));
        assert_eq!(h.compacted, 10);
        assert_eq!(h.since("k", 9).unwrap_err(), 10);
        assert_eq!(
            h.since("k", 10)
                .unwrap()
                .iter()
                .map(|e| e.rv)
                .collect::<Vec<_>>(),
            vec![11, 12]
        );
    }

    #[test]
    fn each_resource_keeps_its_own_events() {
        let mut h = History::new(3);
        let other = |rv| {
            Arc::new(Event {
                rv,
                key: "other".into(),
                kind: EventType::Added,
                object: Arc::new(Value::Null),
                prev: None,
                lost: false,
            })
        };
        h.push(Instant::now(), ev(1));
        for rv in 2..=10 {
            h.push(Instant::now(), other(rv));
        }
        assert_eq!(h.since("k", 0).unwrap().len(), 1);
        assert_eq!(h.since("other", 6).unwrap_err(), 7);
        assert_eq!(h.since("other", 7).unwrap().len(), 3);
        assert!(h.since("none", 1).unwrap().is_empty());
        h.compact_to(8);
        assert_eq!(h.since("k", 7).unwrap_err(), 8);
        assert_eq!(h.since("other", 8).unwrap().len(), 2);
    }
}
