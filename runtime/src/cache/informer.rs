//! One informer per kind: a kube-runtime watcher feeding a reflector store, with change
//! notifications fanned out to every subscribed controller and field indexes kept current.

use futures::StreamExt;
use kube::{
    Api,
    runtime::{
        WatchStreamExt,
        reflector::{ObjectRef, Store, store::Writer},
        watcher,
    },
};
use std::{
    collections::HashMap,
    sync::{Arc, Mutex, RwLock},
};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::{CacheOptions, Kind, index::Indexes};

/// A change to a cached object, as delivered to subscribers (controllers).
#[derive(Debug)]
pub enum Change<K> {
    /// The object appeared (first list, creation, or replay to a new subscriber).
    Added(Arc<K>),
    /// The object changed; both versions are given so predicates can compare them.
    Updated {
        /// The previously cached version.
        old: Arc<K>,
        /// The new version.
        new: Arc<K>,
    },
    /// The object is gone (last known state).
    Deleted(Arc<K>),
}

impl<K> Clone for Change<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Added(o) => Self::Added(o.clone()),
            Self::Updated { old, new } => Self::Updated {
                old: old.clone(),
                new: new.clone(),
            },
            Self::Deleted(o) => Self::Deleted(o.clone()),
        }
    }
}

impl<K> Change<K> {
    /// The most recent state of the object.
    pub fn object(&self) -> &Arc<K> {
        match self {
            Self::Added(o) | Self::Deleted(o) => o,
            Self::Updated { new, .. } => new,
        }
    }
}

/// Where an informer is in its start-up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyncState {
    /// Not started, or the initial list has not completed.
    Pending {
        /// The last watch error, if any (for the timeout message).
        last_error: Option<String>,
    },
    /// The initial list completed; the store holds the full state.
    Synced,
    /// The kind is not served by the API server (HTTP 404 on list).
    NotServed(String),
}

/// The shared cache of one kind.
pub struct Informer<K: Kind> {
    api: Api<K>,
    options: CacheOptions,
    store: Store<K>,
    writer: Mutex<Option<Writer<K>>>,
    subscribers: Mutex<Vec<mpsc::UnboundedSender<Change<K>>>>,
    indexes: RwLock<Indexes<K>>,
    state: watch::Sender<SyncState>,
}

impl<K: Kind> Informer<K> {
    /// Creates an informer (not yet watching) for `K` with the given scope.
    pub(crate) fn new(client: kube::Client, options: CacheOptions) -> Self {
        let api = K::api(client, options.namespace.as_deref());
        let writer = Writer::new(());
        Self {
            api,
            store: writer.as_reader(),
            writer: Mutex::new(Some(writer)),
            options,
            subscribers: Mutex::new(Vec::new()),
            indexes: RwLock::new(Indexes::default()),
            state: watch::Sender::new(SyncState::Pending { last_error: None }),
        }
    }

    /// The read side of the cache (cheap to clone).
    pub fn store(&self) -> Store<K> {
        self.store.clone()
    }

    /// The scope this informer watches.
    pub fn options(&self) -> &CacheOptions {
        &self.options
    }

    /// Watches the sync state (pending / synced / not served).
    pub fn sync_state(&self) -> watch::Receiver<SyncState> {
        self.state.subscribe()
    }

    /// Subscribes to changes. Objects already cached are replayed as [`Change::Added`] so a late
    /// subscriber sees the full state, like an informer event handler added after start.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<Change<K>> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut subscribers = self.subscribers.lock().expect("subscribers lock");
        if *self.state.borrow() == SyncState::Synced {
            for obj in self.store.state() {
                let _ = tx.send(Change::Added(obj));
            }
        }
        subscribers.push(tx);
        rx
    }

    /// Registers a field index; existing objects are indexed at once.
    pub fn add_index(&self, name: &str, extract: super::IndexFn<K>) {
        let existing = self.store.state();
        self.indexes
            .write()
            .expect("index lock")
            .add(name, extract, existing.iter());
    }

    /// Cached objects whose index `name` produced `key`; `None` when no such index exists.
    pub fn by_index(&self, name: &str, key: &str) -> Option<Vec<Arc<K>>> {
        let refs = self.indexes.read().expect("index lock").lookup(name, key)?;
        Some(refs.iter().filter_map(|r| self.store.get(r)).collect())
    }

    /// Runs the watch until `cancel` fires. Called once by the cache.
    pub(crate) async fn run(self: Arc<Self>, cancel: CancellationToken) {
        let Some(mut writer) = self.writer.lock().expect("writer lock").take() else {
            return;
        };
        let mut config = watcher::Config::default();
        if let Some(labels) = &self.options.label_selector {
            config = config.labels(labels);
        }
        if let Some(fields) = &self.options.field_selector {
            config = config.fields(fields);
        }
        let strip = self.options.strip_managed_fields;
        let stream = watcher(self.api.clone(), config)
            .modify(move |obj: &mut K| prepare(obj, strip))
            .default_backoff();
        let mut stream = std::pin::pin!(stream);
        let mut relist: Option<HashMap<ObjectRef<K>, Arc<K>>> = None;
        loop {
            let event = tokio::select! {
                () = cancel.cancelled() => return,
                event = stream.next() => event,
            };
            let Some(event) = event else { return };
            match event {
                Ok(event) => self.apply(&mut writer, event, &mut relist),
                Err(err) => self.record_error(err),
            }
        }
    }

    fn record_error(&self, err: watcher::Error) {
        tracing::warn!(kind = %K::gvk(), error = %err, "watch error");
        if *self.state.borrow() == SyncState::Synced {
            return;
        }
        let not_found = matches!(
            &err,
            watcher::Error::InitialListFailed(kube::Error::Api(status)) if status.code == 404
        );
        self.state.send_replace(if not_found {
            SyncState::NotServed(err.to_string())
        } else {
            SyncState::Pending {
                last_error: Some(err.to_string()),
            }
        });
    }

    fn apply(
        &self,
        writer: &mut Writer<K>,
        event: watcher::Event<K>,
        relist: &mut Option<HashMap<ObjectRef<K>, Arc<K>>>,
    ) {
        match &event {
            watcher::Event::Apply(obj) => {
                let key = ObjectRef::from_obj(obj);
                let old = self.store.get(&key);
                writer.apply_watcher_event(&event);
                let Some(new) = self.store.get(&key) else {
                    return;
                };
                self.reindex(old.as_deref(), Some(&new));
                self.dispatch(match old {
                    Some(old) => Change::Updated { old, new },
                    None => Change::Added(new),
                });
            }
            watcher::Event::Delete(obj) => {
                let key = ObjectRef::from_obj(obj);
                let old = self.store.get(&key);
                writer.apply_watcher_event(&event);
                self.reindex(old.as_deref(), None);
                self.dispatch(Change::Deleted(
                    old.unwrap_or_else(|| Arc::new(obj.clone())),
                ));
            }
            watcher::Event::Init => {
                *relist = Some(
                    self.store
                        .state()
                        .into_iter()
                        .map(|o| (ObjectRef::from_obj(&*o), o))
                        .collect(),
                );
                writer.apply_watcher_event(&event);
            }
            watcher::Event::InitApply(_) => writer.apply_watcher_event(&event),
            watcher::Event::InitDone => {
                writer.apply_watcher_event(&event);
                let mut before = relist.take().unwrap_or_default();
                let now = self.store.state();
                {
                    let mut indexes = self.indexes.write().expect("index lock");
                    if !indexes.is_empty() {
                        indexes.rebuild(now.iter());
                    }
                }
                let mut changes = Vec::new();
                for new in now {
                    match before.remove(&ObjectRef::from_obj(&*new)) {
                        None => changes.push(Change::Added(new)),
                        Some(old) if old.meta().resource_version != new.meta().resource_version => {
                            changes.push(Change::Updated { old, new });
                        }
                        Some(_) => {}
                    }
                }
                changes.extend(before.into_values().map(Change::Deleted));
                // Mark synced under the subscribers lock so a concurrent `subscribe` either
                // receives these changes or the replay, never neither.
                let mut subscribers = self.subscribers.lock().expect("subscribers lock");
                for change in changes {
                    subscribers.retain(|tx| tx.send(change.clone()).is_ok());
                }
                self.state.send_replace(SyncState::Synced);
            }
        }
    }

    fn reindex(&self, old: Option<&K>, new: Option<&K>) {
        let mut indexes = self.indexes.write().expect("index lock");
        if !indexes.is_empty() {
            indexes.update(old, new);
        }
    }

    fn dispatch(&self, change: Change<K>) {
        let mut subscribers = self.subscribers.lock().expect("subscribers lock");
        subscribers.retain(|tx| tx.send(change.clone()).is_ok());
    }
}

/// Trims an object before it is cached: `managedFields` are dropped when `strip` is set.
fn prepare<K: Kind>(obj: &mut K, strip: bool) {
    if strip {
        obj.meta_mut().managed_fields = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::{
        api::core::v1::ConfigMap, apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry,
    };

    fn cm(name: &str, version: &str, data: &str) -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        cm.metadata.namespace = Some("ns".into());
        cm.metadata.resource_version = Some(version.into());
        cm.data = Some([("k".to_string(), data.to_string())].into());
        cm
    }

    fn describe(change: &Change<ConfigMap>) -> String {
        let rv = |o: &ConfigMap| o.metadata.resource_version.clone().unwrap_or_default();
        let name = |o: &ConfigMap| o.metadata.name.clone().unwrap_or_default();
        match change {
            Change::Added(o) => format!("added {} {}", name(o), rv(o)),
            Change::Updated { old, new } => {
                format!("updated {} {}->{}", name(new), rv(old), rv(new))
            }
            Change::Deleted(o) => format!("deleted {} {}", name(o), rv(o)),
        }
    }

    fn drain(rx: &mut mpsc::UnboundedReceiver<Change<ConfigMap>>) -> Vec<String> {
        let mut out = Vec::new();
        while let Ok(c) = rx.try_recv() {
            out.push(describe(&c));
        }
        out.sort();
        out
    }

    #[tokio::test]
    async fn initial_list_events_and_relist_diff_reach_subscribers_and_indexes() {
        let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
        let client = kube::Client::try_from(config).unwrap();
        let informer = Informer::<ConfigMap>::new(client, CacheOptions::default());
        informer.add_index(
            "data",
            Arc::new(|o: &ConfigMap| o.data.iter().flat_map(|d| d.values().cloned()).collect()),
        );
        let mut writer = informer.writer.lock().unwrap().take().unwrap();
        let mut relist = None;
        let mut rx = informer.subscribe();
        let mut feed = |e| informer.apply(&mut writer, e, &mut relist);

        feed(watcher::Event::Init);
        feed(watcher::Event::InitApply(cm("a", "1", "x")));
        feed(watcher::Event::InitApply(cm("b", "1", "x")));
        assert_eq!(
            *informer.sync_state().borrow(),
            SyncState::Pending { last_error: None }
        );
        assert!(
            drain(&mut rx).is_empty(),
            "nothing before the list completes"
        );
        feed(watcher::Event::InitDone);
        assert_eq!(*informer.sync_state().borrow(), SyncState::Synced);
        assert_eq!(drain(&mut rx), ["added a 1", "added b 1"]);
        assert_eq!(informer.by_index("data", "x").unwrap().len(), 2);

        feed(watcher::Event::Apply(cm("a", "2", "y")));
        assert_eq!(drain(&mut rx), ["updated a 1->2"]);
        assert_eq!(informer.by_index("data", "x").unwrap().len(), 1);
        assert_eq!(informer.by_index("data", "y").unwrap().len(), 1);

        // A re-list (after a 410 Gone, say): unchanged objects are not re-sent.
        feed(watcher::Event::Init);
        feed(watcher::Event::InitApply(cm("a", "2", "y")));
        feed(watcher::Event::InitApply(cm("c", "5", "y")));
        feed(watcher::Event::InitDone);
        assert_eq!(drain(&mut rx), ["added c 5", "deleted b 1"]);
        assert_eq!(informer.by_index("data", "y").unwrap().len(), 2);
        assert!(informer.by_index("data", "x").unwrap().is_empty());

        feed(watcher::Event::Delete(cm("c", "6", "y")));
        assert_eq!(drain(&mut rx), ["deleted c 5"]);

        // A late subscriber first gets the current state.
        let mut late = informer.subscribe();
        assert_eq!(drain(&mut late), ["added a 2"]);
        assert!(informer.by_index("nope", "x").is_none());
    }

    #[test]
    fn managed_fields_are_stripped_unless_kept() {
        let mut cm = ConfigMap::default();
        cm.metadata.managed_fields = Some(vec![ManagedFieldsEntry {
            manager: Some("kubectl".into()),
            ..Default::default()
        }]);
        let mut kept = cm.clone();
        prepare(&mut cm, true);
        assert!(cm.metadata.managed_fields.is_none());
        prepare(&mut kept, false);
        assert_eq!(kept.metadata.managed_fields.unwrap().len(), 1);
        assert!(CacheOptions::default().strip_managed_fields);
        assert!(
            !CacheOptions::default()
                .keep_managed_fields()
                .strip_managed_fields
        );
    }
}
