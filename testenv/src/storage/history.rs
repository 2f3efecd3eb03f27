//! The bounded event history behind watches and past-resourceVersion lists.

use std::collections::VecDeque;
use std::sync::Arc;

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
}

/// The (namespace, name) of a stored object.
pub fn object_key(object: &Value) -> ObjectKey {
    let meta = &object["metadata"];
    (
        meta["namespace"].as_str().unwrap_or_default().to_string(),
        meta["name"].as_str().unwrap_or_default().to_string(),
    )
}

/// The last `limit` events, plus the resourceVersion before which history is gone.
pub struct History {
    events: VecDeque<Arc<Event>>,
    limit: usize,
    /// Events with rv <= compacted are no longer available.
    compacted: u64,
}

impl History {
    /// An empty history keeping at most `limit` events.
    pub fn new(limit: usize) -> Self {
        History {
            events: VecDeque::new(),
            limit: limit.max(1),
            compacted: 0,
        }
    }

    /// Appends an event, dropping the oldest beyond the limit.
    pub fn push(&mut self, event: Arc<Event>) {
        self.events.push_back(event);
        while self.events.len() > self.limit {
            if let Some(old) = self.events.pop_front() {
                self.compacted = old.rv;
            }
        }
    }

    /// The resourceVersion at and below which events are gone.
    pub fn compacted(&self) -> u64 {
        self.compacted
    }

    /// Forgets every event up to `rv`.
    pub fn compact_to(&mut self, rv: u64) {
        while self.events.front().is_some_and(|e| e.rv <= rv) {
            self.events.pop_front();
        }
        self.compacted = self.compacted.max(rv);
    }

    /// Every event newer than `rv`, or Err(oldest servable rv) when some were dropped.
    pub fn since(&self, rv: u64) -> Result<Vec<Arc<Event>>, u64> {
        if rv < self.compacted {
            return Err(self.compacted);
        }
        let start = self.events.partition_point(|e| e.rv <= rv);
        Ok(self.events.range(start..).cloned().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(rv: u64) -> Arc<Event> {
        Arc::new(Event {
            rv,
            key: "k".into(),
            kind: EventType::Added,
            object: Arc::new(Value::Null),
            prev: None,
        })
    }

    #[test]
    fn bounded_history_expires_old_versions() {
        let mut h = History::new(2);
        for rv in 1..=4 {
            h.push(ev(rv));
        }
        assert_eq!(h.since(1).unwrap_err(), 2);
        assert_eq!(
            h.since(2).unwrap().iter().map(|e| e.rv).collect::<Vec<_>>(),
            vec![3, 4]
        );
        assert!(h.since(4).unwrap().is_empty());
        h.compact_to(4);
        assert_eq!(h.since(3).unwrap_err(), 4);
    }
}
