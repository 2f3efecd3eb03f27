//! [`Change`]: one change of a cached object as subscribers receive it, old and new version.

use std::sync::Arc;

/// A change to a cached object, as delivered to subscribers (controllers).
#[derive(Debug)]
pub enum Change<K> {
    /// The object appeared (first list, creation, or replay to a new subscriber).
    Added(Arc<K>),
    /// The object changed; both versions are given so predicates can compare them.
    Updated {
        /// The previously cached version.
        old: Arc<K>,
        /// The new version.
        new: Arc<K>,
    },
    /// The object is gone (last known state).
    Deleted(Arc<K>),
}

impl<K> Clone for Change<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Added(o) => Self::Added(o.clone()),
            Self::Updated { old, new } => Self::Updated {
                old: old.clone(),
                new: new.clone(),
            },
            Self::Deleted(o) => Self::Deleted(o.clone()),
        }
    }
}

impl<K> Change<K> {
    /// The most recent state of the object.
    pub fn object(&self) -> &Arc<K> {
        match self {
            Self::Added(o) | Self::Deleted(o) => o,
            Self::Updated { new, .. } => new,
        }
    }
}
