//! [`Changes`]: what changed in the world since the previous reconcile, one net change per
//! object (created, updated or deleted, with the old and the new version).

use std::{any::TypeId, collections::HashMap, sync::Arc};

use super::object::{AnyObject, ObjectKey, downcast};
use crate::cache::{Change, Kind};

/// One object's net change: `old` is the version the previous reconcile saw (none: created),
/// `new` the current one (none: deleted).
#[derive(Clone)]
pub(crate) struct Entry {
    pub(crate) kind: TypeId,
    pub(crate) gvk: Arc<str>,
    pub(crate) key: ObjectKey,
    pub(crate) old: Option<AnyObject>,
    pub(crate) new: Option<AnyObject>,
    /// Found by a periodic re-list rather than a watch event.
    pub(crate) healed: bool,
}

/// How an object changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeType {
    /// The object did not exist at the previous reconcile.
    Created,
    /// The object existed and changed.
    Updated,
    /// The object existed and is gone.
    Deleted,
}

/// A kind-agnostic view of one change (for logging and generic handling).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeSummary {
    /// `group/version/Kind` of the object.
    pub kind: String,
    /// Namespace and name.
    pub key: ObjectKey,
    /// Created, updated or deleted.
    pub change: ChangeType,
    /// Whether the periodic re-list found it (a watch event for it was lost).
    pub healed: bool,
}

/// Accumulates changes between two reconciles, coalescing them per object.
#[derive(Default)]
pub(crate) struct Batch {
    entries: Vec<Option<Entry>>,
    index: HashMap<(TypeId, ObjectKey), usize>,
    live: usize,
}

impl Batch {
    /// Records that object `key` of `kind` went from `old` to `new`. Merged with an earlier
    /// change of the same object in this batch: created then deleted vanishes, created then
    /// updated stays created, updated twice keeps the first old and the last new version.
    pub(crate) fn record(&mut self, entry: Entry) {
        let slot = (entry.kind, entry.key.clone());
        match self.index.get(&slot) {
            Some(&i) => {
                let existing = self.entries[i].as_mut().expect("indexed entries are live");
                existing.new = entry.new;
                existing.healed |= entry.healed;
                if existing.old.is_none() && existing.new.is_none() {
                    self.entries[i] = None;
                    self.index.remove(&slot);
                    self.live -= 1;
                }
            }
            None => {
                if entry.old.is_none() && entry.new.is_none() {
                    return;
                }
                self.index.insert(slot, self.entries.len());
                self.entries.push(Some(entry));
                self.live += 1;
            }
        }
    }

    /// Records every change of `later` (which happened after this batch's) on top of this
    /// batch's, merging per object as [`Batch::record`] does.
    pub(crate) fn absorb(&mut self, later: Batch) {
        for entry in later.entries.into_iter().flatten() {
            self.record(entry);
        }
    }

    /// Number of objects with a pending change.
    pub(crate) fn len(&self) -> usize {
        self.live
    }

    /// The immutable set handed to the reconcile function.
    pub(crate) fn freeze(&self) -> Changes {
        Changes {
            entries: Arc::new(self.entries.iter().flatten().cloned().collect()),
        }
    }
}

/// The changes since the previous reconcile: one net change per object, in the order the
/// objects first changed (the first call's: kind by kind in the order they were added to the
/// builder, each by namespace and name). Cheap to clone.
///
/// ```ignore
/// for change in changes.of::<Policy>() {
///     match change {
///         Change::Added(p) => ..,
///         Change::Updated { old, new } => ..,
///         Change::Deleted(p) => ..,
///     }
/// }
/// ```
#[derive(Clone, Default)]
pub struct Changes {
    entries: Arc<Vec<Entry>>,
}

impl Changes {
    /// The changes of kind `K`, typed: [`Change::Added`] for created objects,
    /// [`Change::Updated`] with the version the previous reconcile saw and the current one,
    /// [`Change::Deleted`] with the last known version.
    pub fn of<K: Kind>(&self) -> Vec<Change<K>> {
        let kind = TypeId::of::<K>();
        self.entries
            .iter()
            .filter(|e| e.kind == kind)
            .filter_map(|e| {
                let old = e.old.as_ref().and_then(downcast::<K>);
                let new = e.new.as_ref().and_then(downcast::<K>);
                match (old, new) {
                    (None, Some(new)) => Some(Change::Added(new)),
                    (Some(old), Some(new)) => Some(Change::Updated { old, new }),
                    (Some(old), None) => Some(Change::Deleted(old)),
                    (None, None) => None,
                }
            })
            .collect()
    }

    /// Every change, kind-agnostic.
    pub fn summaries(&self) -> Vec<ChangeSummary> {
        self.entries
            .iter()
            .map(|e| ChangeSummary {
                kind: e.gvk.to_string(),
                key: e.key.clone(),
                change: match (&e.old, &e.new) {
                    (None, _) => ChangeType::Created,
                    (Some(_), Some(_)) => ChangeType::Updated,
                    (Some(_), None) => ChangeType::Deleted,
                },
                healed: e.healed,
            })
            .collect()
    }

    /// Number of changed objects.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing changed (a requeue, a retry with no new events, or the first call on an
    /// empty world).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many of the changes a periodic re-list found (watch events that were lost).
    pub fn healed(&self) -> usize {
        self.entries.iter().filter(|e| e.healed).count()
    }
}

impl std::fmt::Debug for Changes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.summaries()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;

    fn cm(name: &str, rv: &str) -> AnyObject {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        cm.metadata.namespace = Some("ns".into());
        cm.metadata.resource_version = Some(rv.into());
        Arc::new(cm)
    }

    fn entry(name: &str, old: Option<&str>, new: Option<&str>) -> Entry {
        Entry {
            kind: TypeId::of::<ConfigMap>(),
            gvk: "v1/ConfigMap".into(),
            key: ObjectKey::new(Some("ns"), name),
            old: old.map(|rv| cm(name, rv)),
            new: new.map(|rv| cm(name, rv)),
            healed: false,
        }
    }

    fn describe(changes: &Changes) -> Vec<String> {
        let rv = |o: &ConfigMap| o.metadata.resource_version.clone().unwrap();
        changes
            .of::<ConfigMap>()
            .iter()
            .map(|c| match c {
                Change::Added(o) => {
                    format!("added {}@{}", o.metadata.name.as_ref().unwrap(), rv(o))
                }
                Change::Updated { old, new } => format!(
                    "updated {}@{}->{}",
                    new.metadata.name.as_ref().unwrap(),
                    rv(old),
                    rv(new)
                ),
                Change::Deleted(o) => {
                    format!("deleted {}@{}", o.metadata.name.as_ref().unwrap(), rv(o))
                }
            })
            .collect()
    }

    #[test]
    fn changes_coalesce_to_one_net_change_per_object() {
        let mut batch = Batch::default();
        batch.record(entry("a", None, Some("1")));
        batch.record(entry("a", Some("1"), Some("2")));
        batch.record(entry("b", Some("1"), Some("2")));
        batch.record(entry("b", Some("2"), Some("3")));
        batch.record(entry("c", None, Some("1")));
        batch.record(entry("c", Some("1"), None));
        batch.record(entry("d", Some("1"), None));
        batch.record(entry("d", None, Some("5")));
        assert_eq!(batch.len(), 3);
        let changes = batch.freeze();
        assert_eq!(
            describe(&changes),
            ["added a@2", "updated b@1->3", "updated d@1->5"]
        );
        assert!(
            changes
                .of::<k8s_openapi::api::core::v1::Secret>()
                .is_empty()
        );
        assert_eq!(changes.summaries()[0].change, ChangeType::Created);
        assert_eq!(changes.healed(), 0);
    }

    #[test]
    fn a_failed_batch_is_followed_by_the_next_one() {
        // A failed reconcile keeps its batch; what arrives next joins it.
        let mut failed = Batch::default();
        failed.record(entry("a", Some("1"), Some("2")));
        failed.record(entry("a", Some("2"), None));
        failed.record(entry("b", None, Some("7")));
        assert_eq!(describe(&failed.freeze()), ["deleted a@1", "added b@7"]);
    }
}
