//! The object store: every object as JSON, a cluster-wide monotonic resourceVersion, a
//! watch cache per resource that watches replay from (`super::cache`, as kube-apiserver's
//! cacher) and the etcd-like event history that lists rebuild past snapshots from
//! (`super::history`).
//!
//! The store knows nothing about HTTP or validation; it only keeps objects and events
//! consistent. Callers hold the server's single lock around a whole operation, so every
//! request is linearisable.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use tokio::sync::broadcast;

use super::cache::WatchCache;
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
        /// The resourceVersion the retained history starts after (the oldest one served).
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

/// The storage key of CustomResourceDefinitions.
const CRD_KEY: &str = "apiextensions.k8s.io/customresourcedefinitions";

/// The storage key of the resource a CustomResourceDefinition defines (`group/plural`).
fn custom_resource_key(crd: &Value) -> Option<String> {
    let spec = &crd["spec"];
    let group = spec["group"].as_str()?;
    let plural = spec["names"]["plural"].as_str()?;
    Some(format!("{group}/{plural}"))
}

/// Whether a change of a CustomResourceDefinition makes kube-apiserver build its resource's
/// storage anew: its creation, or a change of its spec or accepted names.
fn storage_changes(kind: EventType, crd: &Value, prev: Option<&Value>) -> bool {
    match (kind, prev) {
        (EventType::Added, _) => true,
        (EventType::Modified, Some(prev)) => {
            prev["spec"] != crd["spec"]
                || prev["status"]["acceptedNames"] != crd["status"]["acceptedNames"]
        }
        _ => false,
    }
}

/// What a watch starts from: the retained events to replay and the live receiver.
pub type WatchStart = (Vec<Arc<Event>>, broadcast::Receiver<Arc<Event>>);

/// Decides, for a change of `object` under a storage key, whether its watch event is lost
/// (fault injection): the store still changes, but no watcher sees the event.
pub type EventFilter = Arc<dyn Fn(&str, &Value) -> bool + Send + Sync>;

/// Objects, resourceVersion counter, watch caches and event history.
pub struct Store {
    rv: u64,
    buckets: HashMap<String, Bucket>,
    history: History,
    /// One watch cache per storage key that had an event since it was (re)initialised.
    caches: HashMap<String, WatchCache>,
    /// Custom resources whose watch cache starts at their next request: kube-apiserver makes
    /// a CRD's storage, and so its cacher, at the first request after the CRD is created or
    /// its spec or accepted names change.
    lazy: HashSet<String>,
    /// The upper bound of each watch cache, in events.
    cache_limit: usize,
    /// The resourceVersion a watch cache created now starts at: where the store started
    /// or was last compacted.
    base: u64,
    events: broadcast::Sender<Arc<Event>>,
    /// Injected event loss: see [`Store::set_event_filter`].
    drop_filter: Option<EventFilter>,
}

impl Store {
    /// An empty store whose watch cache of each resource keeps at most `history_limit`
    /// events (at least the last 75 seconds' up to that bound, as kube-apiserver's cacher),
    /// and whose history for lists at past resourceVersions keeps at most `history_limit`
    /// events of each resource (fewer after a compaction, every 5 minutes).
    pub fn new(history_limit: usize) -> Self {
        let (events, _) = broadcast::channel(4096);
        Store {
            rv: 0,
            buckets: HashMap::new(),
            history: History::new(history_limit),
            caches: HashMap::new(),
            lazy: HashSet::new(),
            cache_limit: history_limit.max(1),
            base: 0,
            events,
            drop_filter: None,
        }
    }

    /// Installs the filter deciding which events are lost for watchers. Lost events stay in
    /// the history (lists at past resourceVersions stay right) but are never broadcast nor
    /// replayed to a watch.
    pub fn set_event_filter(&mut self, filter: EventFilter) {
        self.drop_filter = Some(filter);
    }

    /// A request reached the custom resource stored under `key`: its watch cache starts now
    /// if it was waiting for one (see [`Store::watch_from`]).
    pub fn touch(&mut self, key: &str) {
        if self.lazy.remove(key) {
            let cache = WatchCache::new(self.rv, self.cache_limit);
            self.caches.insert(key.to_string(), cache);
        }
    }

    /// The current (latest) resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.rv
    }

    /// Forgets the history up to now: lists and watches from older versions get 410 Gone,
    /// as after an etcd compaction followed by a re-list of every watch cache. Used once the
    /// bootstrap objects exist, and by fault injection.
    pub fn compact(&mut self) {
        self.history.compact_to(self.rv);
        self.caches.clear();
        self.base = self.rv;
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
        // The resource's cache goes with it; the CRD created anew makes a new one.
        self.caches.remove(key);
    }

    fn record(&mut self, key: &str, kind: EventType, object: Arc<Value>, prev: Option<Arc<Value>>) {
        let lost = self
            .drop_filter
            .as_ref()
            .is_some_and(|drop| drop(key, &object));
        let event = Arc::new(Event {
            rv: self.rv,
            key: key.to_string(),
            kind,
            object,
            prev,
            lost,
        });
        let now = Instant::now();
        self.history.push(now, event.clone());
        let (base, limit) = (self.base, self.cache_limit);
        if key == CRD_KEY
            && let Some(served) = custom_resource_key(&event.object)
            && storage_changes(kind, &event.object, event.prev.as_deref())
        {
            // The resource of a new or changed CRD gets a new cache at its next request.
            self.caches.remove(&served);
            self.lazy.insert(served);
        }
        if self.lazy.remove(key) {
            // Written without a request (a controller of the embedded server): the cache
            // starts just before this write, as the real controller's request would start it.
            let cache = WatchCache::new(self.rv - 1, limit);
            self.caches.insert(key.to_string(), cache);
        }
        match self.caches.get_mut(key) {
            Some(cache) => cache.push(now, event.clone()),
            None => {
                let mut cache = WatchCache::new(base, limit);
                cache.push(now, event.clone());
                self.caches.insert(key.to_string(), cache);
            }
        }
        if lost {
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
            .since(key, rv)
            .map_err(|oldest| StoreError::TooOld {
                requested: rv,
                oldest,
            })?;
        for event in newer.iter().rev() {
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

    /// Starts a watch of `key` after resourceVersion `rv`: the events of `key` newer than
    /// `rv` that its watch cache holds, and a receiver for everything after them (all keys;
    /// callers filter). `rv` older than the cache's window is
    /// [`StoreError::TooOld`] with the window's start, as kube-apiserver's "too old resource
    /// version: rv (start)". Atomic with writes because the caller holds the server lock.
    pub fn watch_from(&self, key: &str, rv: u64) -> Result<WatchStart, StoreError> {
        if rv > self.rv {
            return Err(StoreError::TooLarge {
                requested: rv,
                current: self.rv,
            });
        }
        let mut past = match self.caches.get(key) {
            Some(cache) => cache.since(rv),
            None if self.lazy.contains(key) && rv < self.rv => Err(self.rv),
            None if rv < self.base => Err(self.base),
            None => Ok(Vec::new()),
        }
        .map_err(|oldest| StoreError::TooOld {
            requested: rv,
            oldest,
        })?;
        past.retain(|e| !e.lost);
        Ok((past, self.events.subscribe()))
    }

    /// A receiver for every event after the current resourceVersion.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.events.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn put(store: &mut Store, key: &str, name: &str) -> u64 {
        let object = json!({"metadata": {"namespace": "ns", "name": name}});
        store.put(key, "ns", name, object);
        store.resource_version()
    }

    fn rvs(start: WatchStart) -> Vec<u64> {
        start.0.iter().map(|e| e.rv).collect()
    }

    #[test]
    fn quiet_resource_keeps_its_window_while_another_is_busy() {
        let mut store = Store::new(120);
        let quiet = put(&mut store, "quiet", "a");
        let changed = put(&mut store, "quiet", "a");
        let first_busy = put(&mut store, "busy", "b0");
        for i in 1..500 {
            put(&mut store, "busy", &format!("b{i}"));
        }
        assert_eq!(
            rvs(store.watch_from("quiet", quiet).unwrap()),
            vec![changed]
        );
        // The busy resource keeps its last 120 events.
        let current = store.resource_version();
        let start = current - 120;
        assert_eq!(
            store.watch_from("busy", first_busy).unwrap_err(),
            StoreError::TooOld {
                requested: first_busy,
                oldest: start
            }
        );
        assert_eq!(store.watch_from("busy", start).unwrap().0.len(), 120);
        // A resource with no event yet is served from the store's start.
        assert!(store.watch_from("never", 1).unwrap().0.is_empty());
    }

    #[test]
    fn compaction_and_new_resources_move_the_window_start() {
        let mut store = Store::new(100);
        let early = put(&mut store, "cms", "a");
        store.compact();
        let compacted = store.resource_version();
        assert_eq!(
            store.watch_from("cms", early - 1).unwrap_err(),
            StoreError::TooOld {
                requested: early - 1,
                oldest: compacted
            }
        );
        assert!(store.watch_from("other", compacted).is_ok());
        let crd = json!({"metadata": {"name": "gauges.example.dev"},
            "spec": {"group": "example.dev", "names": {"plural": "gauges"}}});
        store.put(CRD_KEY, "", "gauges.example.dev", crd);
        let created = store.resource_version();
        assert_eq!(
            store
                .watch_from("example.dev/gauges", compacted)
                .unwrap_err(),
            StoreError::TooOld {
                requested: compacted,
                oldest: created
            }
        );
        let gauge = put(&mut store, "example.dev/gauges", "g");
        assert_eq!(
            rvs(store.watch_from("example.dev/gauges", created).unwrap()),
            vec![gauge]
        );
    }

    #[test]
    fn a_custom_resource_cache_starts_at_its_first_request_and_again_when_its_crd_changes() {
        let mut store = Store::new(100);
        let key = "example.dev/gauges";
        let crd = json!({"metadata": {"name": "gauges.example.dev"},
            "spec": {"group": "example.dev", "names": {"plural": "gauges"}}});
        store.put(CRD_KEY, "", "gauges.example.dev", crd.clone());
        let created = store.resource_version();
        let later = put(&mut store, "cms", "a");
        store.touch(key);
        let too_old = |requested, oldest| StoreError::TooOld { requested, oldest };
        assert_eq!(
            store.watch_from(key, created).unwrap_err(),
            too_old(created, later)
        );
        let gauge = put(&mut store, key, "g");
        assert_eq!(rvs(store.watch_from(key, later).unwrap()), vec![gauge]);
        // Metadata alone keeps the storage; a spec change makes it anew at the next request.
        let mut labelled = crd.clone();
        labelled["metadata"]["labels"] = json!({"a": "b"});
        store.put(CRD_KEY, "", "gauges.example.dev", labelled.clone());
        assert!(store.watch_from(key, later).is_ok());
        labelled["spec"]["names"]["singular"] = json!("gauge");
        store.put(CRD_KEY, "", "gauges.example.dev", labelled);
        let changed = store.resource_version();
        assert_eq!(
            store.watch_from(key, gauge).unwrap_err(),
            too_old(gauge, changed)
        );
        store.touch(key);
        assert!(store.watch_from(key, changed).is_ok());
    }

    #[test]
    fn many_writes_keep_only_the_bounded_versions() {
        let mut store = Store::new(10_000);
        let first =
            Arc::downgrade(&store.put("cms", "ns", "a", json!({"metadata": {"name": "a"}})));
        let mut kept = None;
        for i in 0..100_000 {
            let object = json!({"metadata": {"name": "a"}, "data": {"i": i.to_string()}});
            let stored = store.put("cms", "ns", "a", object);
            if i == 95_000 {
                kept = Some(Arc::downgrade(&stored));
            }
        }
        // Old versions are freed; the last 10 000 are still there for watches and lists.
        assert!(first.upgrade().is_none());
        assert!(kept.unwrap().upgrade().is_some());
        let current = store.resource_version();
        assert_eq!(
            store.watch_from("cms", current - 10_000).unwrap().0.len(),
            10_000
        );
        assert!(store.watch_from("cms", current - 10_001).is_err());
    }

    #[test]
    fn lists_read_the_history_not_the_watch_cache() {
        let mut store = Store::new(1000);
        let first = put(&mut store, "busy", "b0");
        for i in 1..300 {
            put(&mut store, "busy", &format!("b{i}"));
        }
        // The watch cache grew past 100 events (all fresh); the history has them all.
        assert!(store.watch_from("busy", first).is_ok());
        assert_eq!(store.snapshot_at("busy", first).unwrap().len(), 1);
        let mut small = Store::new(50);
        let first = put(&mut small, "busy", "b0");
        for i in 1..60 {
            put(&mut small, "busy", &format!("b{i}"));
        }
        assert!(matches!(
            small.snapshot_at("busy", first),
            Err(StoreError::TooOld { .. })
        ));
        // Another resource's snapshots are untouched by the busy one's bound.
        let quiet = put(&mut small, "quiet", "q");
        put(&mut small, "quiet", "r");
        for i in 0..60 {
            put(&mut small, "busy", &format!("c{i}"));
        }
        assert_eq!(small.snapshot_at("quiet", quiet).unwrap().len(), 1);
    }
}
