//! Field indexers: look cached objects up by any extracted key (owner UID, `spec.nodeName`, ...).

use kube::runtime::reflector::ObjectRef;
use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
};

use super::Kind;

/// Extracts the index keys of an object (zero, one or many).
pub type IndexFn<K> = Arc<dyn Fn(&K) -> Vec<String> + Send + Sync>;

/// One named index: key -> objects that produced that key.
struct Index<K: Kind> {
    extract: IndexFn<K>,
    entries: HashMap<String, HashSet<ObjectRef<K>>>,
}

/// All indexes of one kind's cache, kept up to date by the informer.
pub(crate) struct Indexes<K: Kind> {
    by_name: HashMap<String, Index<K>>,
}

impl<K: Kind> Default for Indexes<K> {
    fn default() -> Self {
        Self {
            by_name: HashMap::new(),
        }
    }
}

impl<K: Kind> Indexes<K> {
    /// Adds an index and fills it from the objects already cached.
    pub(crate) fn add<'a>(
        &mut self,
        name: &str,
        extract: IndexFn<K>,
        existing: impl Iterator<Item = &'a Arc<K>>,
    ) {
        let mut index = Index {
            extract,
            entries: HashMap::new(),
        };
        for obj in existing {
            insert(&mut index, obj);
        }
        self.by_name.insert(name.to_string(), index);
    }

    /// Whether any index is registered (lets the informer skip work when none is).
    pub(crate) fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// Updates every index for an object that changed from `old` to `new` (either may be absent).
    pub(crate) fn update(&mut self, old: Option<&K>, new: Option<&K>) {
        for index in self.by_name.values_mut() {
            if let Some(old) = old {
                remove(index, old);
            }
            if let Some(new) = new {
                insert(index, new);
            }
        }
    }

    /// Rebuilds every index from a full set of objects (after a re-list).
    pub(crate) fn rebuild<'a>(&mut self, objects: impl Iterator<Item = &'a Arc<K>> + Clone) {
        for index in self.by_name.values_mut() {
            index.entries.clear();
            for obj in objects.clone() {
                insert(index, obj);
            }
        }
    }

    /// References of the objects whose extracted keys include `key`; `None` if no such index.
    pub(crate) fn lookup(&self, name: &str, key: &str) -> Option<Vec<ObjectRef<K>>> {
        let index = self.by_name.get(name)?;
        Some(
            index
                .entries
                .get(key)
                .map(|refs| refs.iter().cloned().collect())
                .unwrap_or_default(),
        )
    }
}

fn insert<K: Kind>(index: &mut Index<K>, obj: &K) {
    let reference = super::object_ref(obj);
    for key in (index.extract)(obj) {
        index
            .entries
            .entry(key)
            .or_default()
            .insert(reference.clone());
    }
}

fn remove<K: Kind>(index: &mut Index<K>, obj: &K) {
    let reference = super::object_ref(obj);
    for key in (index.extract)(obj) {
        if let Some(refs) = index.entries.get_mut(&key) {
            refs.remove(&reference);
            if refs.is_empty() {
                index.entries.remove(&key);
            }
        }
    }
}
