//! The object store: every object as JSON, a cluster-wide monotonic resourceVersion, and a
//! bounded event history that watches replay from and that lists rebuild past snapshots from.
//!
//! The store knows nothing about HTTP or validation; it only keeps objects and events
//! consistent. Callers hold the server's single lock around a whole operation, so every
//! request is linearisable.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::broadcast;

use super::history::{self, Event, EventType, History, ObjectKey};

/// All objects of one storage key, ordered by namespace and name (list order).
pub type Bucket = BTreeMap<ObjectKey, Arc<Value>>;

/// Why a past state cannot be produced.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StoreError {
    /// The requested resourceVersion is older than the retained history.
    #[error("too old resource version: {requested} ({oldest})")]
    TooOld {
        /// What the client asked for.
        requested: u64,
        /// The oldest resourceVersion still served.
        oldest: u64,
    },
    /// The requested resourceVersion is newer than the store.
    #[error("too large resource version: {requested}, current: {current}")]
    TooLarge {
        /// What the client asked for.
        requested: u64,
        /// The current resourceVersion.
        current: u64,
    },
}

/// What a watch starts from: the retained events to replay and the live receiver.
pub type WatchStart = (Vec<Arc<Event>>, broadcast::Receiver<Arc<Event>>);

/// Decides, for a change of `object` under a storage key, whether its watch event is lost
/// (fault injection): the store still changes, but no watcher sees the event.
pub type EventFilter = Arc<dyn Fn(&str, &Value) -> bool + Send + Sync>;

/// Objects, resourceVersion counter and event history.
pub struct Store {
    rv: u64,
    buckets: HashMap<String, Bucket>,
    history: History,
    events: broadcast::Sender<Arc<Event>>,
    /// Injected event loss: see [`Store::set_event_filter`].
    drop_filter: Option<EventFilter>,
    /// resourceVersions of retained events that no watch may deliver.
    dropped: BTreeSet<u64>,
}

impl Store {
    /// An empty store keeping at most `history_limit` events for watches.
    pub fn new(history_limit: usize) -> Self {
        let (events, _) = broadcast::channel(4096);
        Store {
            rv: 0,
            buckets: HashMap::new(),
            history: History::new(history_limit),
            events,
            drop_filter: None,
            dropped: BTreeSet::new(),
        }
    }

    /// Installs the filter deciding which events are lost for watchers. Lost events stay in
    /// the history (lists at past resourceVersions stay right) but are never broadcast nor
    /// replayed to a watch.
    pub fn set_event_filter(&mut self, filter: EventFilter) {
        self.drop_filter = Some(filter);
    }

    /// The current (latest) resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.rv
    }

    /// Forgets the history up to now: watches from older versions get 410 Gone, as after an
    /// etcd compaction. Used once the bootstrap objects exist, and by fault injection.
    pub fn compact(&mut self) {
        self.history.compact_to(self.rv);
    }

    /// One object.
    pub fn get(&self, key: &str, ns: &str, name: &str) -> Option<Arc<Value>> {
        self.buckets
            .get(key)?
            .get(&(ns.to_string(), name.to_string()))
            .cloned()
    }

    /// All objects of a storage key (every namespace).
    pub fn bucket(&self, key: &str) -> Option<&Bucket> {
        self.buckets.get(key)
    }

    /// Whether any object of any kind lives in namespace `ns`.
    pub fn namespace_has_content(&self, ns: &str) -> bool {
        self.buckets
            .values()
            .any(|b| b.keys().any(|(n, _)| n == ns))
    }

    /// Every (storage key, namespace, name) in namespace `ns`.
    pub fn keys_in_namespace(&self, ns: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (key, bucket) in &self.buckets {
            for (n, name) in bucket.keys() {
                if n == ns {
                    out.push((key.clone(), name.clone()));
                }
            }
        }
        out
    }

    /// Stores a new or changed object: assigns the next resourceVersion (written into
    /// `metadata.resourceVersion`), records and broadcasts the event, returns the stored object.
    pub fn put(&mut self, key: &str, ns: &str, name: &str, mut object: Value) -> Arc<Value> {
        self.rv += 1;
        object["metadata"]["resourceVersion"] = Value::String(self.rv.to_string());
        let object = Arc::new(object);
        let prev = self
            .buckets
            .entry(key.to_string())
            .or_default()
            .insert((ns.to_string(), name.to_string()), object.clone());
        let kind = if prev.is_some() {
            EventType::Modified
        } else {
            EventType::Added
        };
        self.record(key, kind, object.clone(), prev);
        object
    }

    /// Removes an object; `last_state` is what the DELETED event carries (it gets the
    /// deletion's resourceVersion). Returns the final object, or None if it did not exist.
    pub fn remove(
        &mut self,
        key: &str,
        ns: &str,
        name: &str,
        last_state: Option<Value>,
    ) -> Option<Arc<Value>> {
        let bucket = self.buckets.get_mut(key)?;
        let prev = bucket.remove(&(ns.to_string(), name.to_string()))?;
        self.rv += 1;
        let mut last = last_state.unwrap_or_else(|| (*prev).clone());
        last["metadata"]["resourceVersion"] = Value::String(self.rv.to_string());
        let last = Arc::new(last);
        self.record(key, EventType::Deleted, last.clone(), Some(prev));
        Some(last)
    }

    /// Drops a whole storage key (a CRD deleted), emitting DELETED for each object.
    pub fn remove_bucket(&mut self, key: &str) {
        let Some(bucket) = self.buckets.get(key) else {
            return;
        };
        let keys: Vec<ObjectKey> = bucket.keys().cloned().collect();
        for (ns, name) in keys {
            self.remove(key, &ns, &name, None);
        }
        self.buckets.remove(key);
    }

    fn record(&mut self, key: &str, kind: EventType, object: Arc<Value>, prev: Option<Arc<Value>>) {
        let event = Arc::new(Event {
            rv: self.rv,
            key: key.to_string(),
            kind,
            object,
            prev,
        });
        let lost = self
            .drop_filter
            .as_ref()
            .is_some_and(|drop| drop(&event.key, &event.object));
        self.history.push(event.clone());
        if !self.dropped.is_empty() {
            self.dropped = self.dropped.split_off(&(self.history.compacted() + 1));
        }
        if lost {
            self.dropped.insert(event.rv);
            return;
        }
        // No receivers is fine: nobody is watching.
        let _ = self.events.send(event);
    }

    /// The objects of `key` as they were at resourceVersion `rv`, rebuilt from the history.
    pub fn snapshot_at(&self, key: &str, rv: u64) -> Result<Bucket, StoreError> {
        if rv > self.rv {
            return Err(StoreError::TooLarge {
                requested: rv,
                current: self.rv,
            });
        }
        let mut bucket = self.buckets.get(key).cloned().unwrap_or_default();
        if rv == self.rv {
            return Ok(bucket);
        }
        let newer = self
            .history
            .since(rv)
            .map_err(|oldest| StoreError::TooOld {
                requested: rv,
                oldest,
            })?;
        for event in newer.iter().rev().filter(|e| e.key == key) {
            let k = history::object_key(&event.object);
            match &event.prev {
                Some(prev) => {
                    bucket.insert(k, prev.clone());
                }
                None => {
                    bucket.remove(&k);
                }
            }
        }
        Ok(bucket)
    }

    /// Starts a watch after resourceVersion `rv`: the retained events newer than `rv` (all
    /// keys; callers filter) and a receiver for everything after them. Atomic with writes
    /// because the caller holds the server lock.
    pub fn watch_from(&self, rv: u64) -> Result<WatchStart, StoreError> {
        if rv > self.rv {
            return Err(StoreError::TooLarge {
                requested: rv,
                current: self.rv,
            });
        }
        let mut past = self
            .history
            .since(rv)
            .map_err(|oldest| StoreError::TooOld {
                requested: rv,
                oldest,
            })?;
        if !self.dropped.is_empty() {
            past.retain(|e| !self.dropped.contains(&e.rv));
        }
        Ok((past, self.events.subscribe()))
    }

    /// A receiver for every event after the current resourceVersion.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.events.subscribe()
    }
}
