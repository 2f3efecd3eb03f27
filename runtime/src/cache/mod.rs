//! The shared cache: one informer (one watch) per kind, however many controllers and clients
//! read it.
//!
//! Informers are created on first use; those created before the cache starts begin watching when
//! it starts, later ones at once (like controller-runtime's lazily started informers).
//!
//! Each informer hands its changes to its subscribers over bounded buffers: a subscriber that
//! falls behind slows the watch down rather than growing memory ([`Subscription`]). After an API
//! server outage, watches resume within about a probe interval of the server's return
//! ([`CacheConfig::recovery_probe_interval`]).

mod change;
mod index;
mod informer;
mod kind;
mod options;
mod recovery;
mod subscription;

pub use change::Change;
pub use index::IndexFn;
pub use informer::{Informer, SyncState};
pub(crate) use kind::object_ref;
pub use kind::{Kind, ScopeApi};
pub use options::{CacheConfig, CacheOptions};
pub use subscription::Subscription;

use std::{
    any::{Any, TypeId},
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::{Error, shard::ShardGate};
use recovery::Recovery;

/// Type-erased view of an informer, so the cache can start and await informers of any kind.
trait AnyInformer: Send + Sync {
    fn kind(&self) -> String;
    fn start(&self, cancel: CancellationToken);
    fn sync_state(&self) -> watch::Receiver<SyncState>;
    fn as_any(&self) -> Arc<dyn Any + Send + Sync>;
}

struct Entry<K: Kind>(Arc<Informer<K>>);

impl<K: Kind> AnyInformer for Entry<K> {
    fn kind(&self) -> String {
        K::gvk()
    }
    fn start(&self, cancel: CancellationToken) {
        tokio::spawn(self.0.clone().run(cancel));
    }
    fn sync_state(&self) -> watch::Receiver<SyncState> {
        self.0.sync_state()
    }
    fn as_any(&self) -> Arc<dyn Any + Send + Sync> {
        self.0.clone()
    }
}

struct Inner {
    client: kube::Client,
    config: CacheConfig,
    informers: Mutex<HashMap<TypeId, Arc<dyn AnyInformer>>>,
    /// The readiness probe every informer's watch waits on after losing the API server.
    recovery: Arc<Recovery>,
    /// Set once started: new informers start immediately with this token.
    running: Mutex<Option<CancellationToken>>,
    /// The manager's shard gate, when it shards: the informers of kinds only sharded
    /// controllers reconcile cache only this replica's share.
    shards: Option<ShardGate>,
}

/// The manager's shared cache (cheap to clone; clones share informers).
#[derive(Clone)]
pub struct Cache {
    inner: Arc<Inner>,
}

impl Cache {
    /// Creates an empty cache reading through `client`.
    pub fn new(client: kube::Client, config: CacheConfig) -> Self {
        Self::with_shards(client, config, None)
    }

    /// Creates an empty cache reading through `client`, for a manager that shards by `shards`
    /// (see [`crate::shard`]).
    pub fn with_shards(
        client: kube::Client,
        config: CacheConfig,
        shards: Option<ShardGate>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                recovery: Recovery::new(client.clone(), config.recovery_probe_interval),
                client,
                config,
                informers: Mutex::new(HashMap::new()),
                running: Mutex::new(None),
                shards,
            }),
        }
    }

    /// The shard gate of a sharded manager's cache.
    pub fn shards(&self) -> Option<&ShardGate> {
        self.inner.shards.as_ref()
    }

    /// The informer of kind `K`, created (and started, if the cache runs) on first use.
    pub fn informer<K: Kind>(&self) -> Arc<Informer<K>> {
        let mut informers = self.inner.informers.lock().expect("informers lock");
        let entry = informers.entry(TypeId::of::<K>()).or_insert_with(|| {
            let options = self.inner.config.for_kind::<K>().clone();
            let informer = Entry(Arc::new(Informer::<K>::new(
                self.inner.client.clone(),
                options,
                self.inner.config.subscriber_buffer,
                self.inner.recovery.clone(),
                self.inner.shards.clone(),
            )));
            if let Some(cancel) = &*self.inner.running.lock().expect("running lock") {
                informer.start(cancel.clone());
            }
            Arc::new(informer)
        });
        entry
            .as_any()
            .downcast::<Informer<K>>()
            .expect("informer registered under its own TypeId")
    }

    /// Registers a field index on kind `K`: `extract` returns the keys an object is found under.
    pub fn index<K: Kind>(
        &self,
        name: &str,
        extract: impl Fn(&K) -> Vec<String> + Send + Sync + 'static,
    ) {
        self.informer::<K>().add_index(name, Arc::new(extract));
    }

    /// Starts every informer created so far (and any created later) until `cancel` fires.
    pub fn start(&self, cancel: CancellationToken) {
        // Same lock order as `informer` (informers, then running): no deadlock between them.
        let informers = self.inner.informers.lock().expect("informers lock");
        let mut running = self.inner.running.lock().expect("running lock");
        if running.is_some() {
            return;
        }
        for informer in informers.values() {
            informer.start(cancel.clone());
        }
        *running = Some(cancel);
    }

    /// Waits until every informer created so far has listed its kind, failing fast when a kind
    /// is not served and with [`Error::CacheSyncTimeout`] after `timeout`.
    pub async fn wait_for_sync(&self, timeout: Duration) -> Result<(), Error> {
        let informers: Vec<_> = self
            .inner
            .informers
            .lock()
            .expect("informers lock")
            .values()
            .cloned()
            .collect();
        let deadline = tokio::time::Instant::now() + timeout;
        for informer in informers {
            let mut state = informer.sync_state();
            let waited = tokio::time::timeout_at(deadline, async {
                let _ = state
                    .wait_for(|s| !matches!(s, SyncState::Pending { .. }))
                    .await;
            })
            .await;
            let current = state.borrow().clone();
            match (waited, current) {
                (_, SyncState::Synced) => {}
                (_, SyncState::NotServed(source)) => {
                    return Err(Error::KindNotServed {
                        kind: informer.kind(),
                        source,
                    });
                }
                (_, SyncState::Pending { last_error }) => {
                    return Err(Error::CacheSyncTimeout {
                        kind: informer.kind(),
                        timeout,
                        last_error,
                    });
                }
            }
        }
        Ok(())
    }

    /// Whether every informer created so far has synced (for `/readyz`).
    pub fn is_synced(&self) -> bool {
        self.inner
            .informers
            .lock()
            .expect("informers lock")
            .values()
            .all(|i| i.sync_state().borrow().is_synced())
    }

    /// The client the cache lists and watches with.
    pub fn client(&self) -> kube::Client {
        self.inner.client.clone()
    }

    /// The cache configuration.
    pub fn config(&self) -> &CacheConfig {
        &self.inner.config
    }
}
