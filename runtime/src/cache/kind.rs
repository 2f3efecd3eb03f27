//! [`Kind`]: the bound every cached, reconciled or watched type satisfies.

use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope};
use kube::{Api, Client, Resource};
use serde::{Serialize, de::DeserializeOwned};
use std::fmt::Debug;

/// How to build an [`Api`] for a resource scope; lets generic code honour a namespace restriction
/// for namespaced kinds and ignore it for cluster-scoped ones.
pub trait ScopeApi {
    /// Whether objects of this scope live in namespaces.
    const NAMESPACED: bool;
    /// An `Api` for `K`, restricted to `namespace` when given and the scope allows it.
    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>;
}

impl ScopeApi for NamespaceResourceScope {
    const NAMESPACED: bool = true;
    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>,
    {
        match namespace {
            Some(ns) => Api::namespaced(client, ns),
            None => Api::all(client),
        }
    }
}

impl ScopeApi for ClusterResourceScope {
    const NAMESPACED: bool = false;
    fn api<K>(client: Client, _namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>,
    {
        Api::all(client)
    }
}

/// A statically typed Kubernetes kind the runtime can cache, reconcile and watch.
///
/// Implemented automatically for every k8s-openapi type and every `#[derive(CustomResource)]`
/// type; it only exists to keep the long list of bounds in one place.
pub trait Kind:
    Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + Debug + Send + Sync + 'static
{
    /// Whether objects of this kind live in namespaces.
    fn namespaced() -> bool;
    /// An `Api` for this kind, restricted to `namespace` when given and the kind is namespaced.
    fn api(client: Client, namespace: Option<&str>) -> Api<Self>;
    /// `group/version/Kind` (or `version/Kind` for the core group), for messages and metrics.
    fn gvk() -> String {
        let group = Self::group(&());
        if group.is_empty() {
            format!("{}/{}", Self::version(&()), Self::kind(&()))
        } else {
            format!("{}/{}/{}", group, Self::version(&()), Self::kind(&()))
        }
    }
}

impl<K> Kind for K
where
    K: Resource<DynamicType = ()>
        + Clone
        + DeserializeOwned
        + Serialize
        + Debug
        + Send
        + Sync
        + 'static,
    K::Scope: ScopeApi,
{
    fn namespaced() -> bool {
        <K::Scope as ScopeApi>::NAMESPACED
    }
    fn api(client: Client, namespace: Option<&str>) -> Api<Self> {
        <K::Scope as ScopeApi>::api::<K>(client, namespace)
    }
}

/// The reference of `obj` by name and namespace only.
///
/// `ObjectRef::from_obj` also copies the resourceVersion and uid, which store lookups, the
/// scheduler's de-duplication and the reconcile queue all ignore: four allocations per
/// reference where two do.
pub(crate) fn object_ref<K: Kind>(obj: &K) -> kube::runtime::reflector::ObjectRef<K> {
    let meta = obj.meta();
    let reference =
        kube::runtime::reflector::ObjectRef::new(meta.name.as_deref().unwrap_or_default());
    match meta.namespace.as_deref() {
        Some(namespace) => reference.within(namespace),
        None => reference,
    }
}
