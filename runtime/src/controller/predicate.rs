//! Predicates: which changes of a watched object should trigger a reconcile.
//!
//! Built on kube-runtime's predicates ([`kube::runtime::predicates`]: a predicate hashes one
//! property of an object, and [`kube::runtime::Predicate`] combines them with `fallback` and
//! `combine`). kube applies them to a stream of objects and remembers each object's last hash;
//! kubeforge's changes carry the old and the new object, so [`changed`] compares the two
//! directly, as controller-runtime's predicates do: creations and deletions always pass, an
//! update passes when the property differs between the old and the new object (a property
//! absent from both is unchanged).
//!
//! ```ignore
//! use kube::runtime::{Predicate as _, predicates};
//! Controller::<Memcached>::new(&manager, "memcached")
//!     .with_predicate(predicate::generation_changed)
//!     .owns_with::<ConfigMap>(vec![predicate::changed(predicates::labels.combine(predicates::annotations))])
//! ```

use kube::{
    Resource,
    runtime::{Predicate as PropertyHash, predicates},
};
use std::sync::Arc;

use crate::cache::Change;

/// A filter on changes; any `Fn(&Change<K>) -> bool` is one.
pub type Predicate<K> = Arc<dyn Fn(&Change<K>) -> bool + Send + Sync>;

/// Whether `change` passes `property`: creations and deletions always do, an update when the
/// property hashes differently in the old and the new object.
fn passes<K, P: PropertyHash<K>>(property: &P, change: &Change<K>) -> bool {
    match change {
        Change::Updated { old, new } => property.hash_property(old) != property.hash_property(new),
        Change::Added(_) | Change::Deleted(_) => true,
    }
}

/// The predicate passing changes of `property`, any kube-runtime predicate (a function
/// `Fn(&K) -> Option<u64>` such as [`predicates::generation`], or a combination of them).
pub fn changed<K, P>(property: P) -> Predicate<K>
where
    K: 'static,
    P: PropertyHash<K> + Send + Sync + 'static,
{
    Arc::new(move |change| passes(&property, change))
}

/// Passes updates that change `metadata.generation` (spec changes; status-only updates are
/// filtered out). For kinds without a generation (ConfigMaps, Secrets) no update passes: use
/// `changed(predicates::generation.fallback(predicates::resource_version))` there.
pub fn generation_changed<K: Resource>(change: &Change<K>) -> bool {
    passes(&predicates::generation, change)
}

/// Passes updates that change the labels.
pub fn labels_changed<K: Resource>(change: &Change<K>) -> bool {
    passes(&predicates::labels, change)
}

/// Passes updates that change the annotations.
pub fn annotations_changed<K: Resource>(change: &Change<K>) -> bool {
    passes(&predicates::annotations, change)
}

/// Passes updates that change the finalizers (another controller added or removed one).
pub fn finalizers_changed<K: Resource>(change: &Change<K>) -> bool {
    passes(&predicates::finalizers, change)
}

/// Passes updates that change `metadata.resourceVersion` (drops periodic re-list duplicates).
pub fn resource_version_changed<K: Resource>(change: &Change<K>) -> bool {
    passes(&predicates::resource_version, change)
}

/// Passes a change when any of the predicates passes it.
pub fn any<K: 'static>(predicates: Vec<Predicate<K>>) -> Predicate<K> {
    Arc::new(move |c| predicates.iter().any(|p| p(c)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;

    fn cm(generation: i64, label: &str) -> Arc<ConfigMap> {
        Arc::new(ConfigMap {
            metadata: ObjectMeta {
                name: Some("a".into()),
                generation: Some(generation),
                labels: Some([("l".to_string(), label.to_string())].into()),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    #[test]
    fn update_predicates_compare_old_and_new() {
        let same_gen = Change::Updated {
            old: cm(1, "a"),
            new: cm(1, "b"),
        };
        assert!(!generation_changed(&same_gen));
        assert!(labels_changed(&same_gen));
        assert!(!annotations_changed(&same_gen));
        let new_gen = Change::Updated {
            old: cm(1, "a"),
            new: cm(2, "a"),
        };
        assert!(generation_changed(&new_gen));
        assert!(!labels_changed(&new_gen));
        assert!(generation_changed(&Change::Added(cm(1, "a"))));
        assert!(labels_changed(&Change::Deleted(cm(1, "a"))));
        let either = any(vec![
            Arc::new(generation_changed::<ConfigMap>),
            Arc::new(annotations_changed::<ConfigMap>),
        ]);
        assert!(!either(&same_gen));
        assert!(either(&new_gen));
    }

    #[test]
    fn finalizers_and_combined_kube_predicates() {
        let mut with_finalizer = (*cm(1, "a")).clone();
        with_finalizer.metadata.finalizers = Some(vec!["example.com/cleanup".into()]);
        let added = Change::Updated {
            old: cm(1, "a"),
            new: Arc::new(with_finalizer),
        };
        assert!(finalizers_changed(&added));
        assert!(!generation_changed(&added));
        let relabelled = Change::Updated {
            old: cm(1, "a"),
            new: cm(1, "b"),
        };
        assert!(!finalizers_changed(&relabelled));

        use kube::runtime::Predicate as _;
        let meta = changed(predicates::labels.combine(predicates::finalizers));
        assert!(meta(&added));
        assert!(meta(&relabelled));
        assert!(!meta(&Change::Updated {
            old: cm(1, "a"),
            new: cm(2, "a"),
        }));
        // ConfigMaps have no generation: the fallback compares resource versions instead.
        let mut old = (*cm(1, "a")).clone();
        let mut new = old.clone();
        (old.metadata.generation, new.metadata.generation) = (None, None);
        old.metadata.resource_version = Some("1".into());
        new.metadata.resource_version = Some("2".into());
        let update = Change::Updated {
            old: Arc::new(old),
            new: Arc::new(new),
        };
        assert!(!generation_changed(&update));
        assert!(changed(
            predicates::generation.fallback(predicates::resource_version)
        )(&update));
    }
}
