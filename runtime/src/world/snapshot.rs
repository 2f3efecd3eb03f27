//! The world's state: every watched object by kind, changed only by the controller's loop, and
//! the immutable [`Snapshot`]s of it handed to reconciles.

use std::{
    any::TypeId,
    collections::HashMap,
    sync::{Arc, OnceLock},
    time::Instant,
};

use super::{
    changes::{Batch, Entry},
    object::{AnyObject, KindMap, KindState, ObjectKey, downcast, is_older, same_version},
    topology::{Topology, TopologyView},
};
use crate::cache::Kind;

/// The mutable world, owned by the controller's loop.
pub(crate) struct State {
    kinds: HashMap<TypeId, KindState>,
    topology: Arc<Topology>,
    generation: u64,
}

impl State {
    /// An empty world of the given kinds (`TypeId` and `group/version/Kind`).
    pub(crate) fn new(
        kinds: impl IntoIterator<Item = (TypeId, Arc<str>)>,
        topology: Topology,
    ) -> Self {
        Self {
            kinds: kinds
                .into_iter()
                .map(|(id, gvk)| {
                    (
                        id,
                        KindState {
                            gvk,
                            objects: Arc::default(),
                        },
                    )
                })
                .collect(),
            topology: Arc::new(topology),
            generation: 0,
        }
    }

    /// Applies one watch event (`new` none: deleted) and records the net change in `batch`;
    /// returns whether anything changed.
    /// Replays of the version already held and (numerically) older versions are ignored, so a
    /// late watch event never undoes what a re-list already saw.
    pub(crate) fn apply(
        &mut self,
        kind: TypeId,
        key: ObjectKey,
        new: Option<AnyObject>,
        batch: &mut Batch,
    ) -> bool {
        let Some(state) = self.kinds.get_mut(&kind) else {
            return false;
        };
        let old = state.objects.get(&key).cloned();
        match (&old, &new) {
            (None, None) => return false,
            (Some(old), Some(new)) if same_version(old, new) || is_older(old, new) => return false,
            _ => {}
        }
        let objects = Arc::make_mut(&mut state.objects);
        match &new {
            Some(obj) => objects.insert(key.clone(), obj.clone()),
            None => objects.remove(&key),
        };
        batch.record(Entry {
            kind,
            gvk: state.gvk.clone(),
            key,
            old,
            new,
            healed: false,
        });
        true
    }

    /// Replaces the objects of `kind` with a fresh full list, recording what differs as healed
    /// changes. Returns how many objects differed.
    pub(crate) fn replace(&mut self, kind: TypeId, fresh: KindMap, batch: &mut Batch) -> usize {
        let Some(state) = self.kinds.get_mut(&kind) else {
            return 0;
        };
        let mut found = 0;
        let mut record = |key: &ObjectKey, old: Option<&AnyObject>, new: Option<&AnyObject>| {
            found += 1;
            batch.record(Entry {
                kind,
                gvk: state.gvk.clone(),
                key: key.clone(),
                old: old.cloned(),
                new: new.cloned(),
                healed: true,
            });
        };
        for (key, new) in &fresh {
            match state.objects.get(key) {
                Some(old) if same_version(old, new) => {}
                old => record(key, old, Some(new)),
            }
        }
        for (key, old) in state.objects.iter() {
            if !fresh.contains_key(key) {
                record(key, Some(old), None);
            }
        }
        if found > 0 {
            state.objects = Arc::new(fresh);
        }
        found
    }

    /// An immutable snapshot of the current world (O(kinds): maps are shared, copied only when
    /// the state next changes while the snapshot is alive).
    pub(crate) fn snapshot(&mut self) -> Snapshot {
        self.generation += 1;
        Snapshot {
            kinds: self.kinds.clone(),
            topology: self.topology.clone(),
            view: OnceLock::new(),
            generation: self.generation,
            taken: Instant::now(),
        }
    }

    /// Total number of objects held.
    pub(crate) fn len(&self) -> usize {
        self.kinds.values().map(|k| k.objects.len()).sum()
    }
}

/// Every watched object, taken at one moment: between two snapshots the world changed exactly
/// by the [`Changes`](super::Changes) handed to the reconcile with the second one. Immutable and
/// cheap to share; objects are the cache's own `Arc`s, not copies.
pub struct Snapshot {
    kinds: HashMap<TypeId, KindState>,
    topology: Arc<Topology>,
    view: OnceLock<TopologyView>,
    generation: u64,
    taken: Instant,
}

impl Snapshot {
    /// The objects of kind `K` this snapshot holds (none if the kind is not watched).
    fn kind<K: Kind>(&self) -> Option<&KindState> {
        self.kinds.get(&TypeId::of::<K>())
    }

    fn watched<K: Kind>(&self) -> &KindState {
        self.kind::<K>().unwrap_or_else(|| {
            panic!(
                "kind {} is not watched by this state-of-world controller: add .watches::<{}>() to its builder",
                K::gvk(),
                K::kind(&())
            )
        })
    }

    /// Every object of kind `K`, ordered by namespace and name.
    ///
    /// # Panics
    /// If the controller does not watch `K` (a builder mistake, reported with the fix; see
    /// [`Snapshot::watches`]).
    pub fn list<K: Kind>(&self) -> Vec<Arc<K>> {
        self.watched::<K>()
            .objects
            .values()
            .filter_map(downcast::<K>)
            .collect()
    }

    /// The objects of kind `K` in `namespace`, ordered by name.
    ///
    /// # Panics
    /// If the controller does not watch `K`.
    pub fn list_in<K: Kind>(&self, namespace: &str) -> Vec<Arc<K>> {
        let start = ObjectKey::new(Some(namespace), "");
        self.watched::<K>()
            .objects
            .range(start..)
            .take_while(|(k, _)| k.namespace.as_deref() == Some(namespace))
            .filter_map(|(_, o)| downcast::<K>(o))
            .collect()
    }

    /// The object of kind `K` named `name` in `namespace` (`None` for cluster-scoped kinds).
    ///
    /// # Panics
    /// If the controller does not watch `K`.
    pub fn get<K: Kind>(&self, namespace: Option<&str>, name: &str) -> Option<Arc<K>> {
        self.watched::<K>()
            .objects
            .get(&ObjectKey::new(namespace, name))
            .and_then(downcast::<K>)
    }

    /// How many objects of kind `K` there are (0 if `K` is not watched).
    pub fn count<K: Kind>(&self) -> usize {
        self.kind::<K>().map_or(0, |k| k.objects.len())
    }

    /// Whether the controller watches `K`.
    pub fn watches<K: Kind>(&self) -> bool {
        self.kind::<K>().is_some()
    }

    /// Total number of objects of every kind.
    pub fn len(&self) -> usize {
        self.kinds.values().map(|k| k.objects.len()).sum()
    }

    /// Whether the world holds no object at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `group/version/Kind` of every watched kind, sorted.
    pub fn kinds(&self) -> Vec<String> {
        let mut kinds: Vec<String> = self.kinds.values().map(|k| k.gvk.to_string()).collect();
        kinds.sort();
        kinds
    }

    /// The links between objects declared with the builder's `topology(..)`, resolved over
    /// this snapshot (built on first use, then shared).
    pub fn topology(&self) -> &TopologyView {
        self.view
            .get_or_init(|| TopologyView::build(&self.topology, &self.kinds))
    }

    /// Increases by one for every snapshot the controller takes (1 for the first reconcile).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// When the snapshot was taken.
    pub fn taken_at(&self) -> Instant {
        self.taken
    }

    /// A snapshot built from objects directly, without a controller: for unit tests of
    /// reconcile functions and topologies.
    pub fn builder() -> SnapshotBuilder {
        SnapshotBuilder {
            state: State::new([], Topology::new()),
        }
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut counts: Vec<(String, usize)> = self
            .kinds
            .values()
            .map(|k| (k.gvk.to_string(), k.objects.len()))
            .collect();
        counts.sort();
        f.debug_struct("Snapshot")
            .field("generation", &self.generation)
            .field("objects", &counts)
            .finish()
    }
}

/// Builds a [`Snapshot`] from objects (see [`Snapshot::builder`]).
pub struct SnapshotBuilder {
    state: State,
}

impl SnapshotBuilder {
    /// Declares kind `K` as watched (also implied by [`SnapshotBuilder::object`]).
    #[must_use]
    pub fn kind<K: Kind>(mut self) -> Self {
        self.state
            .kinds
            .entry(TypeId::of::<K>())
            .or_insert_with(|| KindState {
                gvk: K::gvk().into(),
                objects: Arc::default(),
            });
        self
    }

    /// Adds an object (replacing one with the same namespace and name).
    #[must_use]
    pub fn object<K: Kind>(self, obj: K) -> Self {
        let mut this = self.kind::<K>();
        let key = ObjectKey::of(kube::Resource::meta(&obj));
        let kind = this
            .state
            .kinds
            .get_mut(&TypeId::of::<K>())
            .expect("declared above");
        Arc::make_mut(&mut kind.objects).insert(key, Arc::new(obj));
        this
    }

    /// The links the snapshot's [`Snapshot::topology`] resolves.
    #[must_use]
    pub fn topology(mut self, topology: Topology) -> Self {
        for kind in &topology.kinds {
            self.state
                .kinds
                .entry(kind.type_id())
                .or_insert_with(|| KindState {
                    gvk: kind.gvk(),
                    objects: Arc::default(),
                });
        }
        self.state.topology = Arc::new(topology);
        self
    }

    /// The snapshot.
    pub fn build(mut self) -> Snapshot {
        self.state.snapshot()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{ConfigMap, Secret};

    fn cm(ns: &str, name: &str, rv: &str) -> AnyObject {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        cm.metadata.namespace = Some(ns.into());
        cm.metadata.resource_version = Some(rv.into());
        Arc::new(cm)
    }

    fn state() -> State {
        State::new(
            [(TypeId::of::<ConfigMap>(), Arc::from("v1/ConfigMap"))],
            Topology::new(),
        )
    }

    #[test]
    fn snapshots_are_immutable_while_the_state_moves_on() {
        let mut state = state();
        let mut batch = Batch::default();
        let id = TypeId::of::<ConfigMap>();
        state.apply(
            id,
            ObjectKey::new(Some("a"), "x"),
            Some(cm("a", "x", "1")),
            &mut batch,
        );
        state.apply(
            id,
            ObjectKey::new(Some("b"), "y"),
            Some(cm("b", "y", "2")),
            &mut batch,
        );
        let first = state.snapshot();
        state.apply(id, ObjectKey::new(Some("a"), "x"), None, &mut batch);
        state.apply(
            id,
            ObjectKey::new(Some("a"), "z"),
            Some(cm("a", "z", "3")),
            &mut batch,
        );
        let second = state.snapshot();
        let names = |s: &Snapshot| -> Vec<String> {
            s.list::<ConfigMap>()
                .iter()
                .map(|c| c.metadata.name.clone().unwrap())
                .collect()
        };
        assert_eq!(names(&first), ["x", "y"]);
        assert_eq!(names(&second), ["z", "y"]);
        assert_eq!(second.list_in::<ConfigMap>("a").len(), 1);
        assert!(first.get::<ConfigMap>(Some("a"), "x").is_some());
        assert!(second.get::<ConfigMap>(Some("a"), "x").is_none());
        assert_eq!((first.generation(), second.generation()), (1, 2));
        assert!(!second.watches::<Secret>());
        assert_eq!(second.count::<Secret>(), 0);
    }

    #[test]
    fn replays_and_older_versions_change_nothing() {
        let mut state = state();
        let mut batch = Batch::default();
        let id = TypeId::of::<ConfigMap>();
        let key = ObjectKey::new(Some("a"), "x");
        state.apply(id, key.clone(), Some(cm("a", "x", "5")), &mut batch);
        state.apply(id, key.clone(), Some(cm("a", "x", "5")), &mut batch);
        state.apply(id, key.clone(), Some(cm("a", "x", "4")), &mut batch);
        state.apply(id, ObjectKey::new(Some("a"), "gone"), None, &mut batch);
        assert_eq!(batch.len(), 1);
        assert_eq!(state.len(), 1);
    }

    #[test]
    fn a_relist_replaces_the_kind_and_reports_what_the_watch_missed() {
        let mut state = state();
        let id = TypeId::of::<ConfigMap>();
        let mut batch = Batch::default();
        for (name, rv) in [("keep", "1"), ("stale", "2"), ("ghost", "3")] {
            state.apply(
                id,
                ObjectKey::new(Some("a"), name),
                Some(cm("a", name, rv)),
                &mut batch,
            );
        }
        let mut fresh = KindMap::new();
        for (name, rv) in [("keep", "1"), ("stale", "9"), ("missed", "8")] {
            fresh.insert(ObjectKey::new(Some("a"), name), cm("a", name, rv));
        }
        let mut healed = Batch::default();
        assert_eq!(state.replace(id, fresh, &mut healed), 3);
        let summaries = healed.freeze().summaries();
        let mut seen: Vec<String> = summaries
            .iter()
            .map(|s| format!("{:?} {}", s.change, s.key))
            .collect();
        seen.sort();
        assert_eq!(
            seen,
            ["Created a/missed", "Deleted a/ghost", "Updated a/stale"]
        );
        assert!(summaries.iter().all(|s| s.healed));
        assert_eq!(state.len(), 3);
        let mut none = Batch::default();
        let again: KindMap = state.kinds[&id].objects.as_ref().clone();
        assert_eq!(state.replace(id, again, &mut none), 0);
    }

    #[test]
    #[should_panic(expected = "add .watches::<Secret>()")]
    fn listing_an_unwatched_kind_names_the_fix() {
        let snapshot = Snapshot::builder().kind::<ConfigMap>().build();
        let _ = snapshot.list::<Secret>();
    }
}
