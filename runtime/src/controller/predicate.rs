//! Predicates: which changes of a watched object should trigger a reconcile.
//!
//! Semantics follow controller-runtime: creations and deletions always pass, an update passes
//! when the compared property differs between the old and the new object.

use kube::Resource;
use std::sync::Arc;

use crate::cache::Change;

/// A filter on changes; any `Fn(&Change<K>) -> bool` is one.
pub type Predicate<K> = Arc<dyn Fn(&Change<K>) -> bool + Send + Sync>;

fn on_update<K: Resource, T: PartialEq>(change: &Change<K>, property: impl Fn(&K) -> T) -> bool {
    match change {
        Change::Updated { old, new } => property(old) != property(new),
        Change::Added(_) | Change::Deleted(_) => true,
    }
}

/// Passes updates that change `metadata.generation` (spec changes; status-only updates are
/// filtered out).
pub fn generation_changed<K: Resource>(change: &Change<K>) -> bool {
    on_update(change, |o| o.meta().generation)
}

/// Passes updates that change the labels.
pub fn labels_changed<K: Resource>(change: &Change<K>) -> bool {
    on_update(change, |o| o.meta().labels.clone())
}

/// Passes updates that change the annotations.
pub fn annotations_changed<K: Resource>(change: &Change<K>) -> bool {
    on_update(change, |o| o.meta().annotations.clone())
}

/// Passes updates that change `metadata.resourceVersion` (drops periodic re-list duplicates).
pub fn resource_version_changed<K: Resource>(change: &Change<K>) -> bool {
    on_update(change, |o| o.meta().resource_version.clone())
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
}
