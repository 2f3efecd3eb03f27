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
//! - an object created or updated with a reference to an owner that does not exist: it is
//!   examined at once (the real collector's "virtual owner" check).
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

use crate::endpoints::delete_options::{DeleteOptions, FOREGROUND, ORPHAN};
use crate::endpoints::fields::{Fields, managers_after};
use crate::endpoints::hooks::Client;
use crate::endpoints::subresource::Endpoint;
use crate::support::meta;
use crate::support::resource::ResourceDef;
use owners::{ObjRef, Owner};

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
fn dependents(client: &dyn Client, uid: &str) -> Vec<owners::Dependent> {
    if !DRAINING.with(Cell::get) {
        return owners::dependents_of(client, uid);
    }
    INDEX.with(|index| {
        let mut index = index.borrow_mut();
        let index = index.get_or_insert_with(|| owners::reference_index(client));
        match index.get(uid) {
            Some(candidates) => owners::dependents_among(client, uid, candidates),
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
fn enqueue(client: &mut dyn Client, items: impl IntoIterator<Item = Work>) {
    QUEUE.with(|q| q.borrow_mut().extend(items));
    if DRAINING.with(|d| d.replace(true)) {
        return;
    }
    let _guard = DrainGuard;
    while let Some(work) = QUEUE.with(|q| q.borrow_mut().pop_front()) {
        process(client, work);
    }
}

/// An object was removed from the store: examine its dependents, and its owners that wait
/// for their dependents.
pub fn removed(client: &mut dyn Client, object: &Value, ns: &str) {
    let Some(uid) = meta::meta_str(object, "uid") else {
        return;
    };
    let mut work: Vec<Work> = dependents(client, uid)
        .into_iter()
        .map(|d| Work::AttemptToDelete(d.obj))
        .collect();
    for reference in object["metadata"]["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
    {
        if let Owner::Found(owner, obj) = owners::resolve(client, reference, ns)
            && owners::deleting_dependents(&obj)
        {
            work.push(Work::ProcessDeleting(owner));
        }
    }
    if !work.is_empty() {
        enqueue(client, work);
    }
}

/// An object was marked for deletion (or its finalizers changed while deleting): start the
/// orphaning or foreground deletion its finalizers ask for.
pub fn marked(
    client: &mut dyn Client,
    def: &std::sync::Arc<ResourceDef>,
    object: &Value,
    ns: &str,
) {
    let finalizers = meta::finalizers(object);
    let this = ObjRef::of(def.clone(), ns, object);
    let mut work = Vec::new();
    if finalizers.iter().any(|f| f == ORPHAN) {
        work.push(Work::Orphan(this));
    } else if finalizers.iter().any(|f| f == FOREGROUND) {
        work.extend(
            dependents(client, &this.uid)
                .into_iter()
                .map(|d| Work::AttemptToDelete(d.obj)),
        );
        work.push(Work::ProcessDeleting(this));
    }
    if !work.is_empty() {
        enqueue(client, work);
    }
}

/// An object was created: as the real collector's check of "virtual" owners, a reference
/// to an owner that does not exist (or exists with another uid) is dealt with at once: the
/// object is deleted when no owner is left, or loses the dangling references otherwise.
pub fn created(client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str) {
    examine_dangling(client, def, object, ns);
}

/// An object was updated (a replace, any patch, an apply): a reference it was given to an
/// owner that does not exist is dealt with at once, as on create. The real collector's
/// graph sees the new reference in the update's event, makes a virtual node for the owner
/// and checks it, a few milliseconds after the write: the dependent's MODIFIED event is
/// followed by its DELETED one, or by a second MODIFIED without the dangling reference.
/// References the object already had were examined when they were added (or when their
/// owner went), so examining them again changes nothing.
pub fn updated(client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str) {
    examine_dangling(client, def, object, ns);
}

/// Queues `object` for the real `attemptToDeleteItem` when one of its owners is absent.
fn examine_dangling(client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str) {
    let Some(refs) = object["metadata"]["ownerReferences"].as_array() else {
        return;
    };
    let dangling = refs
        .iter()
        .any(|r| matches!(owners::resolve(client, r, ns), Owner::Absent));
    if !dangling {
        return;
    }
    let Some(def) = client
        .registry()
        .by_storage_key(&def.storage_key)
        .next()
        .cloned()
    else {
        return;
    };
    let item = ObjRef::of(def, ns, object);
    enqueue(client, [Work::AttemptToDelete(item)]);
}

fn process(client: &mut dyn Client, work: Work) {
    match work {
        Work::AttemptToDelete(item) => attempt_to_delete(client, &item),
        Work::ProcessDeleting(owner) => process_deleting(client, &owner),
        Work::Orphan(owner) => orphan(client, &owner),
    }
}

/// The real `attemptToDeleteItem`.
fn attempt_to_delete(client: &mut dyn Client, item: &ObjRef) {
    let Some(latest) = item.live(client) else {
        return;
    };
    if owners::deleting_dependents(&latest) {
        return process_deleting(client, item);
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
    let Some(classes) = owners::classify(client, &latest, &item.ns) else {
        return;
    };
    if !classes.solid.is_empty() {
        if classes.dangling.is_empty() && classes.waiting.is_empty() {
            return;
        }
        let mut uids = classes.dangling.clone();
        uids.extend(classes.waiting.iter().map(|o| o.uid.clone()));
        let updated = owners::without_references(&latest, &uids);
        store(client, item, &latest, updated);
        // The owners waiting for this dependent may now finish.
        enqueue(
            client,
            classes.waiting.into_iter().map(Work::ProcessDeleting),
        );
        return;
    }
    let item_dependents = if classes.waiting.is_empty() {
        Vec::new()
    } else {
        dependents(client, &item.uid)
    };
    let policy = if !item_dependents.is_empty() {
        unblock_if_circular(client, item, &latest, &item_dependents);
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
    let _ = client.delete(&item.def, &item.ns, &item.name, &options);
}

/// An item whose owner waits for it and which itself has a dependent deleting in the
/// foreground would deadlock: as the real collector, clear `blockOwnerDeletion` on the
/// item's references first.
fn unblock_if_circular(
    client: &mut dyn Client,
    item: &ObjRef,
    latest: &Value,
    item_dependents: &[owners::Dependent],
) {
    let circular = item_dependents.iter().any(|d| {
        d.obj
            .live(client)
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
    store(client, item, latest, updated);
}

/// The real `processDeletingDependentsItem`.
fn process_deleting(client: &mut dyn Client, owner: &ObjRef) {
    let Some(latest) = owner.live(client) else {
        return;
    };
    if !owners::deleting_dependents(&latest) {
        return;
    }
    let blocking: Vec<ObjRef> = dependents(client, &owner.uid)
        .into_iter()
        .filter(|d| d.blocks)
        .map(|d| d.obj)
        .collect();
    if blocking.is_empty() {
        return remove_finalizer(client, owner, &latest, FOREGROUND);
    }
    // A dependent deleting its own dependents is processed on its own.
    let waiting_on: Vec<Work> = blocking
        .into_iter()
        .filter(|d| {
            d.live(client)
                .is_some_and(|o| !owners::deleting_dependents(&o))
        })
        .map(Work::AttemptToDelete)
        .collect();
    enqueue(client, waiting_on);
}

/// The real `attemptToOrphanWorker`: dependents lose their reference, then the owner its
/// `orphan` finalizer.
fn orphan(client: &mut dyn Client, owner: &ObjRef) {
    let Some(latest) = owner.live(client) else {
        return;
    };
    if !meta::finalizers(&latest).iter().any(|f| f == ORPHAN) {
        return;
    }
    for dependent in dependents(client, &owner.uid) {
        if let Some(obj) = dependent.obj.live(client) {
            let updated = owners::without_references(&obj, std::slice::from_ref(&owner.uid));
            store(client, &dependent.obj, &obj, updated);
        }
    }
    if let Some(latest) = owner.live(client) {
        remove_finalizer(client, owner, &latest, ORPHAN);
    }
}

/// Removes one finalizer; an object being deleted with none left goes.
fn remove_finalizer(client: &mut dyn Client, obj: &ObjRef, latest: &Value, finalizer: &str) {
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
        let updated = with_managers(obj, latest, updated);
        client.remove(&obj.def, &obj.ns, &obj.name, Some(updated));
    } else {
        store(client, obj, latest, updated);
    }
}

/// The manager the real collector's patches are recorded under (its client's user agent).
const MANAGER: &str = "kube-controller-manager";

/// `new` (changed from `old`) with the managedFields the collector's patch leaves: as for
/// any client's write, the references or finalizers it removes leave their owners, and an
/// entry that owned nothing else goes.
fn with_managers(obj: &ObjRef, old: &Value, mut new: Value) -> Value {
    let fields = Fields::Update(MANAGER.into());
    managers_after(&obj.def, Some(old), &new, None, Endpoint::Main, fields).write_to(&mut new);
    new
}

/// Stores the collector's change of `obj` from `old` to `new`, through the field manager.
fn store(client: &mut dyn Client, obj: &ObjRef, old: &Value, new: Value) {
    let new = with_managers(obj, old, new);
    client.put(&obj.def, &obj.ns, &obj.name, new);
}

#[cfg(test)]
mod tests;
