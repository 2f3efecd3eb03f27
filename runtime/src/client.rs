//! [`CachedClient`]: reads from the manager's shared cache, writes to the API server.
//!
//! Reads of a kind start (and wait for) that kind's informer on first use, exactly like
//! controller-runtime's default client. Use [`CachedClient::uncached`] for a live read.

use kube::{Api, runtime::reflector::ObjectRef};
use std::sync::Arc;

use crate::{
    Error,
    cache::{Cache, Kind, SyncState},
};

/// A client whose reads are served from the shared cache.
#[derive(Clone)]
pub struct CachedClient {
    cache: Cache,
}

impl CachedClient {
    /// A client over `cache`.
    pub fn new(cache: Cache) -> Self {
        Self { cache }
    }

    /// The cached object `name` (in `namespace` for namespaced kinds), or `None`.
    pub async fn get<K: Kind>(
        &self,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Option<Arc<K>>, Error> {
        let store = self.synced::<K>().await?;
        let mut key = ObjectRef::<K>::new(name);
        if let Some(ns) = namespace.filter(|_| K::namespaced()) {
            key = key.within(ns);
        }
        Ok(store.get(&key))
    }

    /// Every cached `K`, restricted to `namespace` when given.
    pub async fn list<K: Kind>(&self, namespace: Option<&str>) -> Result<Vec<Arc<K>>, Error> {
        let store = self.synced::<K>().await?;
        Ok(match namespace {
            Some(ns) => store.state_filter(|o| o.meta().namespace.as_deref() == Some(ns)),
            None => store.state(),
        })
    }

    /// Cached objects whose field index `index` (see [`Cache::index`]) produced `key`.
    pub async fn list_by_index<K: Kind>(
        &self,
        index: &str,
        key: &str,
    ) -> Result<Vec<Arc<K>>, Error> {
        self.synced::<K>().await?;
        self.cache
            .informer::<K>()
            .by_index(index, key)
            .ok_or_else(|| Error::NoSuchIndex {
                index: index.to_string(),
                kind: K::gvk(),
            })
    }

    /// An `Api` for writes (and uncached reads) of `K`, in `namespace` for namespaced kinds.
    pub fn api<K: Kind>(&self, namespace: Option<&str>) -> Api<K> {
        K::api(self.cache.client(), namespace)
    }

    /// The underlying kube client, for uncached reads.
    pub fn uncached(&self) -> kube::Client {
        self.cache.client()
    }

    async fn synced<K: Kind>(&self) -> Result<kube::runtime::reflector::Store<K>, Error> {
        let informer = self.cache.informer::<K>();
        let mut state = informer.sync_state();
        let timeout = self.cache.config().sync_timeout;
        let waited = tokio::time::timeout(timeout, async {
            let _ = state
                .wait_for(|s| !matches!(s, SyncState::Pending { .. }))
                .await;
        })
        .await;
        let current = state.borrow().clone();
        match (waited, current) {
            (_, SyncState::Synced) => Ok(informer.store()),
            (_, SyncState::NotServed(source)) => Err(Error::KindNotServed {
                kind: K::gvk(),
                source,
            }),
            (_, SyncState::Pending { last_error }) => Err(Error::CacheSyncTimeout {
                kind: K::gvk(),
                timeout,
                last_error,
            }),
        }
    }
}
