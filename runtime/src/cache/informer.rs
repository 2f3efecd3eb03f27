//! One informer per kind: a kube-runtime watcher feeding a reflector store, with every change
//! fanned out to the subscribed controllers (bounded, with backpressure: see [`super::subscription`])
//! and field indexes kept current.
//!
//! On top of kube-runtime's reflector it adds what controller-runtime's informers give Go
//! controllers: each change carries the old and the new object, and after a re-list (the watch
//! expired, or the API server came back) subscribers get the difference from what was cached
//! before, not every object again.
//!
//! In a sharded manager, the informer of a kind only sharded controllers reconcile (and nothing
//! else watches) caches only this replica's share: it lists and watches with the active ranges'
//! `shardSelector` where the API server honours it, drops other replicas' objects itself in any
//! case, and restarts (one re-list of its share) whenever the active ranges change. Objects that
//! leave the share leave the cache silently: subscribers get no deletion for them.

use futures::StreamExt;
use kube::{
    Api,
    runtime::{
        WatchStreamExt,
        reflector::{ObjectRef, Store, store::Writer},
        utils::Backoff,
        watcher::{self, DefaultBackoff},
    },
};
use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex, RwLock,
        atomic::{AtomicU64, Ordering},
    },
};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::{
    CacheOptions, Change, Kind,
    index::Indexes,
    recovery::Recovery,
    subscription::{Subscribers, Subscription},
};
use crate::shard::{ShardGate, ShardKey, filter, range::RangeSet};

/// Where an informer is in its start-up.
#[derive(Clone, Debug)]
pub enum SyncState {
    /// Not started, or the initial list has not completed.
    Pending {
        /// The last watch error, if any (the source of a sync timeout).
        last_error: Option<Arc<watcher::Error>>,
    },
    /// The initial list completed; the store holds the full state.
    Synced,
    /// The kind is not served by the API server (HTTP 404 on list): the list's error.
    NotServed(Arc<watcher::Error>),
}

impl SyncState {
    /// Whether the initial list completed.
    pub fn is_synced(&self) -> bool {
        matches!(self, SyncState::Synced)
    }
}

/// The shared cache of one kind.
pub struct Informer<K: Kind> {
    api: Api<K>,
    options: CacheOptions,
    store: Store<K>,
    writer: Mutex<Option<Writer<K>>>,
    subscribers: Subscribers<K>,
    indexes: RwLock<Indexes<K>>,
    state: watch::Sender<SyncState>,
    recovery: Arc<Recovery>,
    /// The manager's shard gate, if it shards.
    shards: Option<ShardGate>,
    /// Who uses this informer: decides whether it caches only this replica's share.
    usage: Mutex<Usage>,
    /// The share cached now (sharded informers), to leave objects outside it out.
    share: Mutex<Option<(ShardKey, Arc<RangeSet>)>>,
    /// Watch events received (initial list items included), before any shard filtering.
    received: AtomicU64,
}

/// Who uses an informer, as far as sharding goes.
#[derive(Clone, Copy, Debug, Default)]
struct Usage {
    /// A sharded controller reconciles this kind.
    sharded: bool,
    /// Something needs every object of the kind (an `owns`/`watches` source, a state-of-world
    /// controller).
    whole: bool,
}

impl<K: Kind> Informer<K> {
    /// Creates an informer (not yet watching) for `K` with the given scope; each subscriber
    /// gets a buffer of `buffer` changes, and `recovery` paces retries after watch errors.
    pub(crate) fn new(
        client: kube::Client,
        options: CacheOptions,
        buffer: usize,
        recovery: Arc<Recovery>,
        shards: Option<ShardGate>,
    ) -> Self {
        let api = K::api(client, options.namespace.as_deref());
        let writer = Writer::new(());
        Self {
            api,
            store: writer.as_reader(),
            writer: Mutex::new(Some(writer)),
            options,
            subscribers: Subscribers::new(buffer),
            indexes: RwLock::new(Indexes::default()),
            state: watch::Sender::new(SyncState::Pending { last_error: None }),
            recovery,
            shards,
            usage: Mutex::new(Usage::default()),
            share: Mutex::new(None),
            received: AtomicU64::new(0),
        }
    }

    /// Marks the kind as reconciled by a sharded controller: unless something needs every
    /// object ([`Self::mark_whole`]), the informer caches only this replica's share. Takes
    /// effect when the informer starts.
    pub(crate) fn mark_sharded(&self) {
        self.usage.lock().expect("usage lock").sharded = true;
    }

    /// Marks the kind as needed whole (owned or watched objects are mapped to their owner
    /// before the shard check; state-of-world controllers see everything).
    pub(crate) fn mark_whole(&self) {
        self.usage.lock().expect("usage lock").whole = true;
    }

    /// The gate this informer shards by, when it caches only this replica's share.
    pub fn sharded_by(&self) -> Option<&ShardGate> {
        let usage = *self.usage.lock().expect("usage lock");
        self.shards
            .as_ref()
            .filter(|_| usage.sharded && !usage.whole)
    }

    /// Watch events received so far (initial list items included), before shard filtering:
    /// what the API server sent this informer.
    pub fn received(&self) -> u64 {
        self.received.load(Ordering::Relaxed)
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
    /// subscriber sees the full state, like an informer event handler added after start. A
    /// change that happens while subscribing may arrive twice (in the replay and as a change),
    /// never not at all.
    pub fn subscribe(&self) -> Subscription<K> {
        self.subscribers.subscribe(|| {
            if self.state.borrow().is_synced() {
                self.store.state()
            } else {
                Vec::new()
            }
        })
    }

    /// The most changes waiting for any one subscriber right now; never more than the cache's
    /// [`subscriber_buffer`](super::CacheConfig::subscriber_buffer).
    pub fn queued(&self) -> usize {
        self.subscribers.queued()
    }

    /// How many subscriptions are open.
    pub fn subscribers(&self) -> usize {
        self.subscribers.len()
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
    ///
    /// Watch errors are retried after kube-runtime's default backoff (jittered, 0.8 s doubling
    /// to 30 s); while the API server cannot be reached at all, [`Recovery`] cuts the wait
    /// short as soon as the server answers again.
    pub(crate) async fn run(self: Arc<Self>, cancel: CancellationToken) {
        let Some(mut writer) = self.writer.lock().expect("writer lock").take() else {
            return;
        };
        let mut relist: Option<HashMap<ObjectRef<K>, Arc<K>>> = None;
        match self.sharded_by().cloned() {
            None => {
                tokio::select! {
                    () = cancel.cancelled() => {}
                    _ = self.watch(&mut writer, self.api.clone(), None, &mut relist, None) => {}
                }
            }
            Some(gate) => {
                tokio::select! {
                    () = cancel.cancelled() => {}
                    () = self.run_sharded(&mut writer, gate, &mut relist) => {}
                }
            }
        }
    }

    /// A sharded informer: watches the gate's active ranges, restarting whenever they change.
    async fn run_sharded(
        &self,
        writer: &mut Writer<K>,
        gate: ShardGate,
        relist: &mut Option<HashMap<ObjectRef<K>, Arc<K>>>,
    ) {
        let switched = gate.register_informer();
        let mut published = gate.watch();
        let key = gate.key();
        let families = gate.families().cloned();
        loop {
            let current = published.borrow_and_update().clone();
            let ranges = current.ranges.clone();
            *self.share.lock().expect("share lock") = Some((key, ranges.clone()));
            if ranges.is_empty() {
                // Nothing to watch: the cache empties (and counts as synced).
                self.process(writer, watcher::Event::Init, relist).await;
                self.process(writer, watcher::Event::InitDone, relist).await;
                self.count_owned(&gate);
                switched.store(current.generation, Ordering::SeqCst);
                gate.informer_switched();
                if published.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
                continue;
            }
            let api = filter::share_api(
                &self.api,
                self.options.namespace.as_deref(),
                key,
                &ranges,
                families.as_ref(),
            )
            .await;
            // The previous watch ended when `watch` returned for the change.
            switched.store(current.generation, Ordering::SeqCst);
            gate.informer_switched();
            let share = Some((key, ranges));
            if !self
                .watch(writer, api, share, relist, Some(&mut published))
                .await
            {
                return;
            }
        }
    }

    /// Watches through `api` until the stream ends (`false`) or, between two events, `restart`
    /// reports a change (`true`), keeping only objects in `share` if given. A change is never
    /// dropped half-delivered.
    async fn watch(
        &self,
        writer: &mut Writer<K>,
        api: Api<K>,
        share: Option<(ShardKey, Arc<RangeSet>)>,
        relist: &mut Option<HashMap<ObjectRef<K>, Arc<K>>>,
        mut restart: Option<&mut watch::Receiver<crate::shard::Published>>,
    ) -> bool {
        let mut config = watcher::Config::default();
        if let Some(labels) = &self.options.label_selector {
            config = config.labels(labels);
        }
        if let Some(fields) = &self.options.field_selector {
            config = config.fields(fields);
        }
        let strip = self.options.strip_managed_fields;
        let stream = watcher::watcher(api, config).modify(move |obj: &mut K| prepare(obj, strip));
        let mut stream = std::pin::pin!(stream);
        let mut backoff = DefaultBackoff::default();
        // A restart waits until the list in progress completed: several changes in a row then
        // cost one more list, instead of each restarting a list that never gets to finish.
        let mut listing = true;
        loop {
            let changed = async {
                match restart.as_mut() {
                    Some(rx) => {
                        if rx.changed().await.is_err() {
                            std::future::pending::<()>().await;
                        }
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            let event = tokio::select! {
                () = changed, if !listing => return true,
                event = stream.next() => event,
            };
            let Some(event) = event else { return false };
            match event {
                Ok(event) => {
                    backoff.reset();
                    match &event {
                        watcher::Event::Init => listing = true,
                        watcher::Event::InitDone => listing = false,
                        _ => {}
                    }
                    if let watcher::Event::Apply(o)
                    | watcher::Event::InitApply(o)
                    | watcher::Event::Delete(o) = &event
                    {
                        self.received.fetch_add(1, Ordering::Relaxed);
                        if let Some((key, ranges)) = &share
                            && !ranges.contains(key.hash(o))
                        {
                            continue;
                        }
                    }
                    self.process(writer, event, relist).await;
                    if let Some(gate) = &self.shards
                        && share.is_some()
                    {
                        self.count_owned(gate);
                    }
                }
                Err(err) => {
                    // A failing list does not hold a restart back (it may be what fixes it).
                    listing = false;
                    let unreachable = super::recovery::server_unreachable(&err);
                    self.record_error(err);
                    let Some(delay) = backoff.next() else {
                        return false;
                    };
                    self.recovery.wait(delay, unreachable).await;
                }
            }
        }
    }

    /// Updates `kubeforge_shard_owned_objects` for this kind.
    fn count_owned(&self, gate: &ShardGate) {
        if let Some(f) = gate.families() {
            f.owned_objects
                .get_or_create(&[("kind", K::gvk())])
                .set(self.store.len() as i64);
        }
    }

    /// Applies one watch event, then delivers its changes to every subscriber (waiting for
    /// subscribers whose buffer is full).
    async fn process(
        &self,
        writer: &mut Writer<K>,
        event: watcher::Event<K>,
        relist: &mut Option<HashMap<ObjectRef<K>, Arc<K>>>,
    ) {
        let changes = self.apply(writer, event, relist);
        if changes.is_empty() {
            return;
        }
        // Taken after `apply` updated the store and the sync state: a subscriber joining in
        // between gets these changes, its replay, or both.
        let targets = self.subscribers.current();
        self.subscribers.deliver(&targets, changes).await;
    }

    fn record_error(&self, err: watcher::Error) {
        tracing::warn!(kind = %K::gvk(), error = %err, "watch error");
        if self.state.borrow().is_synced() {
            return;
        }
        let not_found = matches!(
            &err,
            watcher::Error::InitialListFailed(kube::Error::Api(status)) if status.code == 404
        );
        self.state.send_replace(if not_found {
            SyncState::NotServed(Arc::new(err))
        } else {
            SyncState::Pending {
                last_error: Some(Arc::new(err)),
            }
        });
    }

    /// Applies one watch event to the store and the indexes; returns the changes subscribers
    /// get for it (none during a list; the difference from before once the list completes).
    fn apply(
        &self,
        writer: &mut Writer<K>,
        event: watcher::Event<K>,
        relist: &mut Option<HashMap<ObjectRef<K>, Arc<K>>>,
    ) -> Vec<Change<K>> {
        match &event {
            watcher::Event::Apply(obj) => {
                let key = super::object_ref(obj);
                let old = self.store.get(&key);
                writer.apply_watcher_event(&event);
                let Some(new) = self.store.get(&key) else {
                    return Vec::new();
                };
                self.reindex(old.as_deref(), Some(&new));
                vec![match old {
                    Some(old) => Change::Updated { old, new },
                    None => Change::Added(new),
                }]
            }
            watcher::Event::Delete(obj) => {
                let key = super::object_ref(obj);
                let old = self.store.get(&key);
                writer.apply_watcher_event(&event);
                self.reindex(old.as_deref(), None);
                vec![Change::Deleted(
                    old.unwrap_or_else(|| Arc::new(obj.clone())),
                )]
            }
            watcher::Event::Init => {
                *relist = Some(
                    self.store
                        .state()
                        .into_iter()
                        .map(|o| (super::object_ref(&*o), o))
                        .collect(),
                );
                writer.apply_watcher_event(&event);
                Vec::new()
            }
            watcher::Event::InitApply(_) => {
                writer.apply_watcher_event(&event);
                Vec::new()
            }
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
                    match before.remove(&super::object_ref(&*new)) {
                        None => changes.push(Change::Added(new)),
                        Some(old) if old.meta().resource_version != new.meta().resource_version => {
                            changes.push(Change::Updated { old, new });
                        }
                        Some(_) => {}
                    }
                }
                // Objects that left this replica's share were not deleted: leave them out.
                let share = self.share.lock().expect("share lock").clone();
                changes.extend(
                    before
                        .into_values()
                        .filter(|o| {
                            share
                                .as_ref()
                                .is_none_or(|(key, r)| r.contains(key.hash(&**o)))
                        })
                        .map(Change::Deleted),
                );
                // Before the caller takes the list of subscribers: one subscribing from now on
                // is replayed the complete store.
                self.state.send_replace(SyncState::Synced);
                changes
            }
        }
    }

    fn reindex(&self, old: Option<&K>, new: Option<&K>) {
        let mut indexes = self.indexes.write().expect("index lock");
        if !indexes.is_empty() {
            indexes.update(old, new);
        }
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

    fn drain(sub: &mut Subscription<ConfigMap>) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(c) = sub.try_next() {
            out.push(describe(&c));
        }
        out.sort();
        out
    }

    fn informer(buffer: usize) -> Informer<ConfigMap> {
        let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
        let client = kube::Client::try_from(config).unwrap();
        let recovery = Recovery::new(client.clone(), std::time::Duration::ZERO);
        Informer::<ConfigMap>::new(client, CacheOptions::default(), buffer, recovery, None)
    }

    #[tokio::test]
    async fn initial_list_events_and_relist_diff_reach_subscribers_and_indexes() {
        let informer = informer(64);
        informer.add_index(
            "data",
            Arc::new(|o: &ConfigMap| o.data.iter().flat_map(|d| d.values().cloned()).collect()),
        );
        let mut writer = informer.writer.lock().unwrap().take().unwrap();
        let mut relist = None;
        let mut rx = informer.subscribe();
        macro_rules! feed {
            ($e:expr) => {
                informer.process(&mut writer, $e, &mut relist).await
            };
        }

        feed!(watcher::Event::Init);
        feed!(watcher::Event::InitApply(cm("a", "1", "x")));
        feed!(watcher::Event::InitApply(cm("b", "1", "x")));
        assert!(matches!(
            *informer.sync_state().borrow(),
            SyncState::Pending { last_error: None }
        ));
        assert!(
            drain(&mut rx).is_empty(),
            "nothing before the list completes"
        );
        feed!(watcher::Event::InitDone);
        assert!(informer.sync_state().borrow().is_synced());
        assert_eq!(drain(&mut rx), ["added a 1", "added b 1"]);
        assert_eq!(informer.by_index("data", "x").unwrap().len(), 2);

        feed!(watcher::Event::Apply(cm("a", "2", "y")));
        assert_eq!(drain(&mut rx), ["updated a 1->2"]);
        assert_eq!(informer.by_index("data", "x").unwrap().len(), 1);
        assert_eq!(informer.by_index("data", "y").unwrap().len(), 1);

        // A re-list (after a 410 Gone, say): unchanged objects are not re-sent.
        feed!(watcher::Event::Init);
        feed!(watcher::Event::InitApply(cm("a", "2", "y")));
        feed!(watcher::Event::InitApply(cm("c", "5", "y")));
        feed!(watcher::Event::InitDone);
        assert_eq!(drain(&mut rx), ["added c 5", "deleted b 1"]);
        assert_eq!(informer.by_index("data", "y").unwrap().len(), 2);
        assert!(informer.by_index("data", "x").unwrap().is_empty());

        feed!(watcher::Event::Delete(cm("c", "6", "y")));
        assert_eq!(drain(&mut rx), ["deleted c 5"]);

        // A late subscriber first gets the current state.
        let mut late = informer.subscribe();
        assert_eq!(late.take_replay().len(), 1);
        drop(late);
        let mut late = informer.subscribe();
        assert_eq!(drain(&mut late), ["added a 2"]);
        assert!(informer.by_index("nope", "x").is_none());
        // Dropped subscriptions no longer count, and are forgotten at the next delivery.
        assert_eq!(informer.subscribers(), 2);
        drop(late);
        assert_eq!(informer.subscribers(), 1);
        drop(rx);
        feed!(watcher::Event::Apply(cm("a", "3", "y")));
        assert_eq!(informer.subscribers(), 0);
    }

    #[tokio::test]
    async fn a_subscriber_that_stops_reading_holds_the_informer_at_its_buffer_and_loses_nothing() {
        const BUFFER: usize = 8;
        const EVENTS: usize = 2_000;
        let informer = Arc::new(informer(BUFFER));
        let mut writer = informer.writer.lock().unwrap().take().unwrap();
        let mut blocked = informer.subscribe();
        let processed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let feeder = {
            let (informer, processed) = (informer.clone(), processed.clone());
            tokio::spawn(async move {
                let mut relist = None;
                informer
                    .process(&mut writer, watcher::Event::Init, &mut relist)
                    .await;
                informer
                    .process(&mut writer, watcher::Event::InitDone, &mut relist)
                    .await;
                for i in 1..=EVENTS {
                    let event = watcher::Event::Apply(cm("a", &i.to_string(), "x"));
                    informer.process(&mut writer, event, &mut relist).await;
                    processed.store(i, std::sync::atomic::Ordering::SeqCst);
                }
            })
        };
        // The subscriber reads nothing: the informer stops once its buffer is full.
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let stalled_at = processed.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(stalled_at, BUFFER, "the informer waits for the full buffer");
        assert_eq!(informer.queued(), BUFFER);
        assert!(!feeder.is_finished());

        // Once it reads again, every change arrives, in order, the queue never above the buffer.
        let mut versions = Vec::new();
        while versions.len() < EVENTS {
            assert!(informer.queued() <= BUFFER);
            let change = futures::StreamExt::next(&mut blocked).await.unwrap();
            versions.push(change.object().metadata.resource_version.clone().unwrap());
        }
        feeder.await.unwrap();
        let expected: Vec<String> = (1..=EVENTS).map(|i| i.to_string()).collect();
        assert_eq!(versions, expected);
        assert_eq!(informer.queued(), 0);
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
