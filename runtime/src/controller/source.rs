//! Watch sources: subscribe to a kind's shared informer, filter with predicates, map each change
//! to the objects to reconcile.

use futures::{StreamExt, stream::BoxStream};
use kube::{ResourceExt, runtime::reflector::ObjectRef};
use std::sync::Arc;

use super::predicate::Predicate;
use crate::{
    cache::{Cache, Change, Kind, object_ref},
    shard::{RangeSet, ShardGate},
};

/// Produces the reconcile requests of one watch, once the controller starts.
pub(crate) type Source<K> = Box<dyn FnOnce(&Cache) -> BoxStream<'static, ObjectRef<K>> + Send>;

/// Maps a watched object to the objects to reconcile.
pub(crate) type Mapper<O, K> = Arc<dyn Fn(&O) -> Vec<ObjectRef<K>> + Send + Sync>;

/// A source over `O`'s informer: changes passing every predicate are mapped with `map`. For an
/// update, both the old and the new object are mapped (so moving an owner reference enqueues
/// both owners).
pub(crate) fn watch<O: Kind, K: Kind>(
    predicates: Vec<Predicate<O>>,
    map: Mapper<O, K>,
) -> Source<K> {
    Box::new(move |cache: &Cache| {
        cache
            .informer::<O>()
            .subscribe()
            .filter(move |change| futures::future::ready(predicates.iter().all(|p| p(change))))
            .flat_map(move |change| {
                let mut refs = map(change.object());
                if let Change::Updated { old, .. } = &change {
                    for r in map(old) {
                        if !refs.contains(&r) {
                            refs.push(r);
                        }
                    }
                }
                futures::stream::iter(refs)
            })
            .boxed()
    })
}

/// The source of the controller's own kind (controller-runtime's `For`): every change
/// passing the predicates enqueues the changed object. An update's old object has the same
/// name, so unlike [`watch`] it is not mapped too.
pub(crate) fn watch_self<K: Kind>(predicates: Vec<Predicate<K>>) -> Source<K> {
    Box::new(move |cache: &Cache| {
        cache
            .informer::<K>()
            .subscribe()
            .filter_map(move |change| {
                let pass = predicates.iter().all(|p| p(&change));
                futures::future::ready(pass.then(|| object_ref(&**change.object())))
            })
            .boxed()
    })
}

/// The cached objects of ranges that become active on this replica (sharded controllers): a
/// re-listing sharded informer brings them as new objects anyway, but an informer caching the
/// whole kind has them already and would not tell.
pub(crate) fn newly_active<K: Kind>(
    gate: ShardGate,
    store: kube::runtime::reflector::Store<K>,
) -> BoxStream<'static, ObjectRef<K>> {
    let mut published = gate.watch();
    let before = published.borrow_and_update().ranges.clone();
    futures::stream::unfold(
        (published, before),
        move |(mut published, before): (_, std::sync::Arc<RangeSet>)| {
            let (store, key) = (store.clone(), gate.key());
            async move {
                published.changed().await.ok()?;
                let now = published.borrow_and_update().ranges.clone();
                let refs: Vec<ObjectRef<K>> = store
                    .state()
                    .iter()
                    .filter(|o| {
                        let h = key.hash(&***o);
                        now.contains(h) && !before.contains(h)
                    })
                    .map(|o| object_ref(&**o))
                    .collect();
                Some((futures::stream::iter(refs), (published, now)))
            }
        },
    )
    .flatten()
    .boxed()
}

/// The controlling owner of `child` if it is a `K` (controller-runtime's
/// `EnqueueRequestForOwner` with `OnlyControllerOwner`).
pub(crate) fn controlling_owner<C: Kind, K: Kind>(child: &C) -> Vec<ObjectRef<K>> {
    child
        .owner_references()
        .iter()
        .filter(|o| {
            o.controller == Some(true)
                && o.kind == K::kind(&())
                && o.api_version == K::api_version(&())
        })
        .map(|o| {
            let r = ObjectRef::<K>::new(&o.name);
            match child.meta().namespace.as_deref() {
                Some(ns) if K::namespaced() => r.within(ns),
                _ => r,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::{apps::v1::Deployment, core::v1::ConfigMap};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
    use kube::api::ObjectMeta;

    fn owned_by(kind: &str, api_version: &str, controller: bool) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some("child".into()),
                namespace: Some("ns".into()),
                owner_references: Some(vec![OwnerReference {
                    api_version: api_version.into(),
                    kind: kind.into(),
                    name: "parent".into(),
                    uid: "u".into(),
                    controller: Some(controller),
                    ..Default::default()
                }]),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn only_the_controlling_owner_of_the_right_kind_is_enqueued() {
        let refs =
            controlling_owner::<ConfigMap, Deployment>(&owned_by("Deployment", "apps/v1", true));
        assert_eq!(refs, vec![ObjectRef::new("parent").within("ns")]);
        assert!(
            controlling_owner::<ConfigMap, Deployment>(&owned_by("Deployment", "apps/v1", false))
                .is_empty()
        );
        assert!(
            controlling_owner::<ConfigMap, Deployment>(&owned_by("StatefulSet", "apps/v1", true))
                .is_empty()
        );
        assert!(
            controlling_owner::<ConfigMap, Deployment>(&owned_by(
                "Deployment",
                "extensions/v1beta1",
                true
            ))
            .is_empty()
        );
    }
}
