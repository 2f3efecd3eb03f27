//! Garbage collection of owner references, as kube-controller-manager's garbage collector
//! does it, run promptly inside the request that triggers it so that watchers see the
//! events in the real order (owner marked, dependents deleted or orphaned, owner deleted).
//!
//! Work is queued and drained iteratively (like the real collector's `attemptToDelete` and
//! `attemptToOrphan` queues), never recursively, so a chain or a fan-out of thousands of
//! dependents cannot exhaust the stack:
//! - an object removed: its dependents are examined ([`Work::AttemptToDelete`]), and its
//!   owners that wait for their dependents are re-examined;
//! - an object marked with `foregroundDeletion`: its dependents are deleted, and the
//!   finalizer is removed once no dependent with `blockOwnerDeletion: true` remains;
//! - an object marked with `orphan`: its dependents lose their reference to it, then the
//!   finalizer is removed;
//! - an object created with a reference to an owner that does not exist: it is examined at
//!   once (the real collector's "virtual owner" check).
//!
//! A dependent is deleted when none of its owners is left (absent, or present with another
//! uid); one with a live owner left only loses its references to gone owners and to owners
//! being deleted in the foreground. References the collector cannot resolve (a kind not
//! served, a namespaced owner of a cluster-scoped dependent) make it leave the dependent
//! alone, as the real one does.

/// Owner references: resolution, classification, dependents.
pub mod owners;

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};

use serde_json::{Value, json};

use crate::registry::ResourceDef;
use crate::rest::delete::{self, DeleteOptions};
use crate::rest::{Cluster, meta};
use owners::{FOREGROUND, ORPHAN, ObjRef, Owner};

/// One unit of collector work.
#[derive(Debug)]
enum Work {
    /// Decide the fate of a dependent (the real `attemptToDeleteItem`).
    AttemptToDelete(ObjRef),
    /// An owner deleted in the foreground: delete its blocking dependents, or remove its
    /// finalizer when none is left.
    ProcessDeleting(ObjRef),
    /// An owner deleted with `Orphan`: drop its dependents' references, then its finalizer.
    Orphan(ObjRef),
}

thread_local! {
    // The cluster lock is held, on this thread, for the whole drain: the queue is per
    // request and needs no synchronisation of its own.
    static QUEUE: RefCell<VecDeque<Work>> = const { RefCell::new(VecDeque::new()) };
    static DRAINING: Cell<bool> = const { Cell::new(false) };
    // Who names which owner uid, indexed at the first lookup of a drain. A drain only
    // removes objects and references, so the index stays a superset of the truth (entries are
    // checked against the store when used) and a fan-out or a chain of N objects costs one
    // store scan instead of N.
    static INDEX: RefCell<Option<HashMap<String, Vec<owners::Location>>>> =
        const { RefCell::new(None) };
}

/// Every object whose ownerReferences name `uid`: a store scan outside a drain, the drain's
/// index inside one.
fn dependents(cluster: &Cluster, uid: &str) -> Vec<owners::Dependent> {
    if !DRAINING.with(Cell::get) {
        return owners::dependents_of(cluster, uid);
    }
    INDEX.with(|index| {
        let mut index = index.borrow_mut();
        let index = index.get_or_insert_with(|| owners::reference_index(cluster));
        match index.get(uid) {
            Some(candidates) => owners::dependents_among(cluster, uid, candidates),
            None => Vec::new(),
        }
    })
}

/// Resets the drain state even if processing panics.
struct DrainGuard;

impl Drop for DrainGuard {
    fn drop(&mut self) {
        DRAINING.with(|d| d.set(false));
        QUEUE.with(|q| q.borrow_mut().clear());
        INDEX.with(|r| r.borrow_mut().take());
    }
}

/// Queues work; the outermost caller drains the queue before returning.
fn enqueue(cluster: &mut Cluster, items: impl IntoIterator<Item = Work>) {
    QUEUE.with(|q| q.borrow_mut().extend(items));
    if DRAINING.with(|d| d.replace(true)) {
        return;
    }
    let _guard = DrainGuard;
    while let Some(work) = QUEUE.with(|q| q.borrow_mut().pop_front()) {
        process(cluster, work);
    }
}

/// An object was removed from the store: examine its dependents, and its owners that wait
/// for their dependents.
pub fn removed(cluster: &mut Cluster, object: &Value, ns: &str) {
    let Some(uid) = meta::meta_str(object, "uid") else {
        return;
    };
    let mut work: Vec<Work> = dependents(cluster, uid)
        .into_iter()
        .map(|d| Work::AttemptToDelete(d.obj))
        .collect();
    for reference in object["metadata"]["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
    {
        if let Owner::Found(owner, obj) = owners::resolve(cluster, reference, ns)
            && owners::deleting_dependents(&obj)
        {
            work.push(Work::ProcessDeleting(owner));
        }
    }
    if !work.is_empty() {
        enqueue(cluster, work);
    }
}

/// An object was marked for deletion (or its finalizers changed while deleting): start the
/// orphaning or foreground deletion its finalizers ask for.
pub fn marked(cluster: &mut Cluster, def: &std::sync::Arc<ResourceDef>, object: &Value, ns: &str) {
    let finalizers = meta::finalizers(object);
    let this = ObjRef {
        def: def.clone(),
        ns: ns.to_string(),
        name: meta::meta_str(object, "name")
            .unwrap_or_default()
            .to_string(),
        uid: meta::meta_str(object, "uid")
            .unwrap_or_default()
            .to_string(),
    };
    let mut work = Vec::new();
    if finalizers.iter().any(|f| f == ORPHAN) {
        work.push(Work::Orphan(this));
    } else if finalizers.iter().any(|f| f == FOREGROUND) {
        work.extend(
            dependents(cluster, &this.uid)
                .into_iter()
                .map(|d| Work::AttemptToDelete(d.obj)),
        );
        work.push(Work::ProcessDeleting(this));
    }
    if !work.is_empty() {
        enqueue(cluster, work);
    }
}

/// An object was created: as the real collector's check of "virtual" owners, a reference
/// to an owner that does not exist (or exists with another uid) is dealt with at once: the
/// object is deleted when no owner is left, or loses the dangling references otherwise.
pub fn created(cluster: &mut Cluster, def: &ResourceDef, object: &Value, ns: &str) {
    let Some(refs) = object["metadata"]["ownerReferences"].as_array() else {
        return;
    };
    let dangling = refs
        .iter()
        .any(|r| matches!(owners::resolve(cluster, r, ns), Owner::Absent));
    let Some(def) = cluster
        .registry
        .by_storage_key(&def.storage_key)
        .next()
        .cloned()
    else {
        return;
    };
    if dangling {
        let item = ObjRef {
            def,
            ns: ns.to_string(),
            name: meta::meta_str(object, "name")
                .unwrap_or_default()
                .to_string(),
            uid: meta::meta_str(object, "uid")
                .unwrap_or_default()
                .to_string(),
        };
        enqueue(cluster, [Work::AttemptToDelete(item)]);
    }
}

fn process(cluster: &mut Cluster, work: Work) {
    match work {
        Work::AttemptToDelete(item) => attempt_to_delete(cluster, &item),
        Work::ProcessDeleting(owner) => process_deleting(cluster, &owner),
        Work::Orphan(owner) => orphan(cluster, &owner),
    }
}

/// The real `attemptToDeleteItem`.
fn attempt_to_delete(cluster: &mut Cluster, item: &ObjRef) {
    let Some(latest) = item.live(cluster) else {
        return;
    };
    if owners::deleting_dependents(&latest) {
        return process_deleting(cluster, item);
    }
    if meta::is_deleting(&latest) {
        return;
    }
    if latest["metadata"]["ownerReferences"]
        .as_array()
        .is_none_or(Vec::is_empty)
    {
        return;
    }
    let Some(classes) = owners::classify(cluster, &latest, &item.ns) else {
        return;
    };
    if !classes.solid.is_empty() {
        if classes.dangling.is_empty() && classes.waiting.is_empty() {
            return;
        }
        let mut uids = classes.dangling.clone();
        uids.extend(classes.waiting.iter().map(|o| o.uid.clone()));
        let updated = owners::without_references(&latest, &uids);
        cluster
            .store
            .put(&item.def.storage_key, &item.ns, &item.name, updated);
        // The owners waiting for this dependent may now finish.
        enqueue(
            cluster,
            classes.waiting.into_iter().map(Work::ProcessDeleting),
        );
        return;
    }
    let item_dependents = if classes.waiting.is_empty() {
        Vec::new()
    } else {
        dependents(cluster, &item.uid)
    };
    let policy = if !item_dependents.is_empty() {
        unblock_if_circular(cluster, item, &latest, &item_dependents);
        "Foreground"
    } else {
        let finalizers = meta::finalizers(&latest);
        if finalizers.iter().any(|f| f == ORPHAN) {
            "Orphan"
        } else if finalizers.iter().any(|f| f == FOREGROUND) {
            "Foreground"
        } else {
            "Background"
        }
    };
    let options = DeleteOptions {
        propagation: Some(policy.to_string()),
        uid: Some(item.uid.clone()),
        ..Default::default()
    };
    // The dependent may have gone meanwhile (a precondition or not-found error): nothing
    // is left to do then, as for the real collector.
    let _ = delete::delete_object(cluster, &item.def, &item.ns, &item.name, &options);
}

/// An item whose owner waits for it and which itself has a dependent deleting in the
/// foreground would deadlock: as the real collector, clear `blockOwnerDeletion` on the
/// item's references first.
fn unblock_if_circular(
    cluster: &mut Cluster,
    item: &ObjRef,
    latest: &Value,
    item_dependents: &[owners::Dependent],
) {
    let circular = item_dependents.iter().any(|d| {
        d.obj
            .live(cluster)
            .is_some_and(|o| owners::deleting_dependents(&o))
    });
    if !circular {
        return;
    }
    let mut updated = latest.clone();
    if let Some(refs) = updated["metadata"]["ownerReferences"].as_array_mut() {
        for r in refs {
            if r["blockOwnerDeletion"].as_bool() == Some(true) {
                r["blockOwnerDeletion"] = json!(false);
            }
        }
    }
    cluster
        .store
        .put(&item.def.storage_key, &item.ns, &item.name, updated);
}

/// The real `processDeletingDependentsItem`.
fn process_deleting(cluster: &mut Cluster, owner: &ObjRef) {
    let Some(latest) = owner.live(cluster) else {
        return;
    };
    if !owners::deleting_dependents(&latest) {
        return;
    }
    let blocking: Vec<ObjRef> = dependents(cluster, &owner.uid)
        .into_iter()
        .filter(|d| d.blocks)
        .map(|d| d.obj)
        .collect();
    if blocking.is_empty() {
        return remove_finalizer(cluster, owner, &latest, FOREGROUND);
    }
    // A dependent deleting its own dependents is processed on its own.
    let waiting_on: Vec<Work> = blocking
        .into_iter()
        .filter(|d| {
            d.live(cluster)
                .is_some_and(|o| !owners::deleting_dependents(&o))
        })
        .map(Work::AttemptToDelete)
        .collect();
    enqueue(cluster, waiting_on);
}

/// The real `attemptToOrphanWorker`: dependents lose their reference, then the owner its
/// `orphan` finalizer.
fn orphan(cluster: &mut Cluster, owner: &ObjRef) {
    let Some(latest) = owner.live(cluster) else {
        return;
    };
    if !meta::finalizers(&latest).iter().any(|f| f == ORPHAN) {
        return;
    }
    for dependent in dependents(cluster, &owner.uid) {
        if let Some(obj) = dependent.obj.live(cluster) {
            let updated = owners::without_references(&obj, std::slice::from_ref(&owner.uid));
            cluster.store.put(
                &dependent.obj.def.storage_key,
                &dependent.obj.ns,
                &dependent.obj.name,
                updated,
            );
        }
    }
    if let Some(latest) = owner.live(cluster) {
        remove_finalizer(cluster, owner, &latest, ORPHAN);
    }
}

/// Removes one finalizer; an object being deleted with none left goes.
fn remove_finalizer(cluster: &mut Cluster, obj: &ObjRef, latest: &Value, finalizer: &str) {
    let mut updated = latest.clone();
    if let Some(list) = updated["metadata"]["finalizers"].as_array_mut() {
        list.retain(|f| f.as_str() != Some(finalizer));
        if list.is_empty()
            && let Some(m) = updated["metadata"].as_object_mut()
        {
            m.remove("finalizers");
        }
    }
    if meta::is_deleting(&updated) && meta::finalizers(&updated).is_empty() {
        delete::remove_now(cluster, &obj.def, &obj.ns, &obj.name, Some(updated));
    } else {
        cluster
            .store
            .put(&obj.def.storage_key, &obj.ns, &obj.name, updated);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::{Api, ApiOptions, Query, write};

    /// Creates `n` configmaps in `default`, each owned by the previous (the first by none),
    /// with `blockOwnerDeletion`; returns their names.
    fn chain(cluster: &mut Cluster, n: usize) -> Vec<String> {
        let def = cluster.registry.get("", "v1", "configmaps").unwrap();
        let mut names = Vec::new();
        let mut owner: Option<(String, String)> = None;
        for i in 0..n {
            let name = format!("link-{i}");
            let mut object =
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
            if let Some((owner_name, uid)) = &owner {
                object["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "ConfigMap",
                    "name": owner_name, "uid": uid, "blockOwnerDeletion": true}]);
            }
            let (stored, _) =
                write::create_object(cluster, &def, Some("default"), object, &Query::parse(None))
                    .unwrap();
            owner = Some((
                name.clone(),
                meta::meta_str(&stored, "uid").unwrap().to_string(),
            ));
            names.push(name);
        }
        names
    }

    fn remaining(cluster: &Cluster, names: &[String]) -> usize {
        names
            .iter()
            .filter(|n| cluster.store.get("/configmaps", "default", n).is_some())
            .count()
    }

    #[test]
    fn long_chains_are_collected_without_recursion() {
        for policy in ["Background", "Foreground"] {
            let api = Api::new(ApiOptions::default());
            let mut cluster = api.lock();
            let names = chain(&mut cluster, 2000);
            let def = cluster.registry.get("", "v1", "configmaps").unwrap();
            let options = DeleteOptions {
                propagation: Some(policy.to_string()),
                ..Default::default()
            };
            delete::delete_object(&mut cluster, &def, "default", "link-0", &options).unwrap();
            assert_eq!(remaining(&cluster, &names), 0, "{policy}");
            assert!(!DRAINING.with(Cell::get));
        }
    }

    #[test]
    fn orphaned_chain_members_keep_their_own_dependents() {
        let api = Api::new(ApiOptions::default());
        let mut cluster = api.lock();
        let names = chain(&mut cluster, 3);
        let def = cluster.registry.get("", "v1", "configmaps").unwrap();
        let options = DeleteOptions {
            propagation: Some("Orphan".into()),
            ..Default::default()
        };
        delete::delete_object(&mut cluster, &def, "default", "link-0", &options).unwrap();
        assert_eq!(remaining(&cluster, &names), 2);
        let middle = cluster
            .store
            .get("/configmaps", "default", "link-1")
            .unwrap();
        assert!(middle["metadata"].get("ownerReferences").is_none());
        let last = cluster
            .store
            .get("/configmaps", "default", "link-2")
            .unwrap();
        assert_eq!(last["metadata"]["ownerReferences"][0]["name"], "link-1");
    }
}
