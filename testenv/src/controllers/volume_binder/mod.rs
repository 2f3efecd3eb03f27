//! The persistent volume binder of kube-controller-manager (`persistentvolume-binder`): a
//! new PersistentVolume becomes `Available`; a PersistentVolumeClaim is bound to the volume
//! it names, to the volume whose `claimRef` names it, or to the smallest matching
//! `Available` volume ([`matching`]), both then `Bound` with the annotations and references
//! the real controller writes ([`bind`]); a claim without a volume waits for its class's
//! provisioner, for its first consumer, or stays `Pending`, with the real Events
//! ([`claims`]); a volume whose claim is gone is `Released` and reclaimed by its policy
//! ([`volumes`], [`plugins`]), a `Recycle` one by a recycler pod ([`recycler`]).
//!
//! The real controller syncs the object that changed, and every object again every 15
//! seconds; here every volume and claim is synced whenever a volume, claim or StorageClass
//! changes (so a claim waiting for a volume is bound as soon as one fits), and the Events of
//! a claim left `Pending` are recorded when that claim itself changed or its state did.

pub mod bind;
pub mod claims;
pub mod matching;
pub mod migration;
pub mod plugins;
pub mod recycler;
pub mod volumes;
pub mod writes;

use std::cell::Cell;

use crate::endpoints::hooks::Client;

/// How many times a sync that was asked for again during itself reruns at most.
const RERUNS: usize = 8;

thread_local! {
    /// Whether a sync runs on this thread (a write it makes can call it again).
    static RUNNING: Cell<bool> = const { Cell::new(false) };
    /// Whether a nested call asked for another round.
    static AGAIN: Cell<bool> = const { Cell::new(false) };
}

/// Whether the binder reacts to changes of `group`/`plural`: volumes, claims and classes.
pub fn watches(group: &str, plural: &str) -> bool {
    matches!(
        (group, plural),
        ("", "persistentvolumes" | "persistentvolumeclaims") | ("storage.k8s.io", "storageclasses")
    )
}

/// Whether a pod `ns`/`name` is a volume's recycler pod, whose changes the binder follows.
pub fn watches_pod(ns: &str, name: &str) -> bool {
    recycler::volume_of(ns, name).is_some()
}

/// A recycler pod `ns`/`name` is gone: when the binder did not delete it itself, the
/// recycling it was doing fails (and starts again).
pub fn recycler_pod_removed(client: &mut dyn Client, ns: &str, name: &str) {
    if RUNNING.with(Cell::get) {
        return;
    }
    if let Some(volume) = recycler::volume_of(ns, name) {
        recycler::pod_removed(client, volume);
        sync(client, None);
    }
}

/// Syncs every volume and claim; `claim` (namespace and name) is the claim that changed,
/// whose Pending Events are recorded again.
pub fn sync(client: &mut dyn Client, claim: Option<(&str, &str)>) {
    if RUNNING.with(Cell::get) {
        AGAIN.with(|a| a.set(true));
        return;
    }
    RUNNING.with(|r| r.set(true));
    let mut loud = claim.map(|(ns, name)| (ns.to_string(), name.to_string()));
    for _ in 0..RERUNS {
        AGAIN.with(|a| a.set(false));
        round(client, loud.take());
        if !AGAIN.with(Cell::get) {
            break;
        }
    }
    RUNNING.with(|r| r.set(false));
}

/// One pass: volumes, then claims, then volumes again (a claim bound or gone changes them).
fn round(client: &mut dyn Client, loud: Option<(String, String)>) {
    sync_volumes(client);
    for (ns, name) in writes::claim_keys(client) {
        let is_loud = loud.as_ref().is_some_and(|(n, c)| *n == ns && *c == name);
        claims::sync(client, &ns, &name, is_loud);
    }
    sync_volumes(client);
}

fn sync_volumes(client: &mut dyn Client) {
    let names: Vec<String> = writes::volumes(client)
        .iter()
        .map(|v| writes::name(v).to_string())
        .collect();
    for name in names {
        volumes::sync(client, &name);
    }
}

#[cfg(test)]
mod tests;
