//! Type-erased objects: the world holds objects of many kinds in one structure and hands them
//! back typed. The per-kind maps of them ([`KindMap`], [`KindState`]) live here too: the state,
//! its snapshots, the topology and the re-lists all read them.

use kube::api::ObjectMeta;
use std::{any::Any, collections::BTreeMap, sync::Arc};

use crate::cache::Kind;

/// An object of any watched kind, shared with the cache (no copy).
pub(crate) trait Object: Send + Sync + 'static {
    /// The object's metadata (labels, owner references, resourceVersion, ...).
    fn meta(&self) -> &ObjectMeta;
    /// The object as `Any`, to downcast it back to its kind.
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
}

impl<K: Kind> Object for K {
    fn meta(&self) -> &ObjectMeta {
        kube::Resource::meta(self)
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

/// A shared, type-erased object.
pub(crate) type AnyObject = Arc<dyn Object>;

/// The typed object behind `obj`, if it is a `K`.
pub(crate) fn downcast<K: Kind>(obj: &AnyObject) -> Option<Arc<K>> {
    obj.clone().into_any().downcast::<K>().ok()
}

/// The objects of one kind, by namespace and name.
pub(crate) type KindMap = BTreeMap<ObjectKey, AnyObject>;

/// One kind's objects plus its name, shared copy-on-write between the state and snapshots.
#[derive(Clone)]
pub(crate) struct KindState {
    pub(crate) gvk: Arc<str>,
    pub(crate) objects: Arc<KindMap>,
}

/// Where an object lives: namespace (none for cluster-scoped kinds) and name. Orders by
/// namespace, then name, so listings are deterministic.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    /// The namespace, `None` for cluster-scoped objects.
    pub namespace: Option<String>,
    /// The name.
    pub name: String,
}

impl ObjectKey {
    /// The key of an object, from its metadata.
    pub fn of(meta: &ObjectMeta) -> Self {
        Self {
            namespace: meta.namespace.clone(),
            name: meta.name.clone().unwrap_or_default(),
        }
    }

    /// A key from a namespace (`None` for cluster-scoped objects) and a name.
    pub fn new(namespace: Option<&str>, name: &str) -> Self {
        Self {
            namespace: namespace.map(str::to_owned),
            name: name.to_owned(),
        }
    }
}

impl std::fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{ns}/{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// Whether `new` is the same version of the object as `old` (same resourceVersion), so applying
/// it changes nothing.
pub(crate) fn same_version(old: &AnyObject, new: &AnyObject) -> bool {
    old.meta().resource_version.is_some()
        && old.meta().resource_version == new.meta().resource_version
}

/// Whether `new` is older than `old`, when both resourceVersions are numbers (what etcd and the
/// embedded server hand out). Opaque versions are never considered older.
pub(crate) fn is_older(old: &AnyObject, new: &AnyObject) -> bool {
    let parse = |o: &AnyObject| {
        o.meta()
            .resource_version
            .as_deref()
            .and_then(|v| v.parse::<u64>().ok())
    };
    matches!((parse(old), parse(new)), (Some(o), Some(n)) if n < o)
}
