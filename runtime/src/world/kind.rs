//! The per-kind plumbing of a state-of-world controller, type-erased so one controller holds
//! any number of kinds: subscribing to the shared cache and re-listing from the API server.

use futures::{FutureExt, StreamExt, future::BoxFuture, stream::BoxStream};
use kube::api::ListParams;
use std::{any::TypeId, marker::PhantomData, sync::Arc};

use super::object::{AnyObject, KindMap, ObjectKey};
use crate::cache::{Cache, CacheOptions, Change, Kind};

/// One watch event, kind-erased: `new` is none for a deletion.
pub(crate) struct Incoming {
    pub(crate) kind: TypeId,
    pub(crate) key: ObjectKey,
    pub(crate) new: Option<AnyObject>,
}

/// Page size of healing re-lists (the API server's default chunk size in kubectl and client-go
/// reflectors).
const PAGE: u32 = 500;

/// What a state-of-world controller needs of one kind.
pub(crate) trait WatchedKind: Send + Sync {
    fn type_id(&self) -> TypeId;
    fn gvk(&self) -> Arc<str>;
    /// Creates the kind's informer in the shared cache (so the manager waits for its sync).
    fn register(&self, cache: &Cache);
    /// Subscribes to the informer: returns the objects it holds now (its replay) and the
    /// stream of every later change.
    fn subscribe(&self, cache: &Cache) -> (Vec<Incoming>, BoxStream<'static, Incoming>);
    /// Lists every object of the kind from the API server, with the cache's scope and selectors.
    fn relist(&self, cache: &Cache) -> BoxFuture<'static, Result<KindMap, kube::Error>>;
}

/// A cache change as a kind-erased watch event.
fn incoming<K: Kind>(change: Change<K>) -> Incoming {
    let (obj, new) = match change {
        Change::Added(o) | Change::Updated { new: o, .. } => (o.clone(), Some(o)),
        Change::Deleted(o) => (o, None),
    };
    Incoming {
        kind: TypeId::of::<K>(),
        key: ObjectKey::of(obj.meta()),
        new: new.map(|o| o as AnyObject),
    }
}

/// The [`WatchedKind`] of `K`.
pub(crate) struct Typed<K>(PhantomData<fn() -> K>);

/// The erased plumbing of kind `K`.
pub(crate) fn of<K: Kind>() -> Arc<dyn WatchedKind> {
    Arc::new(Typed::<K>(PhantomData))
}

impl<K: Kind> WatchedKind for Typed<K> {
    fn type_id(&self) -> TypeId {
        TypeId::of::<K>()
    }

    fn gvk(&self) -> Arc<str> {
        K::gvk().into()
    }

    fn register(&self, cache: &Cache) {
        // A world sees every object of its kinds, sharded manager or not.
        cache.informer::<K>().mark_whole();
    }

    fn subscribe(&self, cache: &Cache) -> (Vec<Incoming>, BoxStream<'static, Incoming>) {
        let mut subscription = cache.informer::<K>().subscribe();
        // A synced informer replays its objects first: take them now, so the first call sees
        // the whole world whatever the debounce.
        let mut initial: Vec<Incoming> = subscription
            .take_replay()
            .into_iter()
            .map(|obj| incoming(Change::Added(obj)))
            .collect();
        // The cache replays in hash order: report the initial world by namespace and name.
        initial.sort_by(|a, b| a.key.cmp(&b.key));
        (initial, subscription.map(incoming::<K>).boxed())
    }

    fn relist(&self, cache: &Cache) -> BoxFuture<'static, Result<KindMap, kube::Error>> {
        let options: CacheOptions = cache.config().for_kind::<K>().clone();
        let api = K::api(cache.client(), options.namespace.as_deref());
        async move {
            let mut params = ListParams::default().limit(PAGE);
            if let Some(labels) = &options.label_selector {
                params = params.labels(labels);
            }
            if let Some(fields) = &options.field_selector {
                params = params.fields(fields);
            }
            let mut objects = KindMap::new();
            loop {
                let page = api.list(&params).await?;
                for mut obj in page.items {
                    if options.strip_managed_fields {
                        obj.meta_mut().managed_fields = None;
                    }
                    let key = ObjectKey::of(obj.meta());
                    objects.insert(key, Arc::new(obj) as AnyObject);
                }
                match page.metadata.continue_ {
                    Some(token) if !token.is_empty() => params = params.continue_token(&token),
                    _ => return Ok(objects),
                }
            }
        }
        .boxed()
    }
}
