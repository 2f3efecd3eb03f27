//! Namespace lifecycle, as kube-controller-manager's namespace controller runs it: a
//! namespace marked for deletion (`Terminating`) has everything in it deleted, and goes once
//! it is empty. Like the real controller, which works from a queue, it acts a moment after the
//! DELETE, not inside it: meanwhile the namespace is `Terminating` and refuses new content
//! (403 `NamespaceTerminating`), as on a cluster.

use std::time::Duration;

use serde_json::{Value, json};

use crate::endpoints::delete_options::DeleteOptions;
use crate::endpoints::hooks::Client;
use crate::support::meta;

/// How long after its DELETE a namespace is emptied. kube-controller-manager took 5.2 to
/// 5.4 s for an empty namespace (v1.34, `../shared/realk8s`); a tenth of a second keeps the
/// order of what clients see without slowing tests down.
pub const SYNC_DELAY: Duration = Duration::from_millis(100);

/// A namespace was marked for deletion (or its finalizers changed while it is deleting):
/// shortly after, everything in it is deleted, and it goes once it is empty.
pub fn terminating(client: &mut dyn Client, ns: &str) {
    let ns = ns.to_string();
    client.later(SYNC_DELAY, Box::new(move |client| empty(client, &ns)));
}

/// Deletes everything in a terminating namespace; the namespace goes once it is empty.
fn empty(client: &mut dyn Client, ns: &str) {
    let deleting = client
        .store()
        .get("/namespaces", "", ns)
        .is_some_and(|n| meta::is_deleting(&n));
    if !deleting {
        return;
    }
    for (key, name) in client.store().keys_in_namespace(ns) {
        let Some(def) = client.registry().by_storage_key(&key).next().cloned() else {
            continue;
        };
        let _ = client.delete(&def, ns, &name, &DeleteOptions::default());
    }
    finish_if_empty(client, ns);
}

/// Finishes the deletion of namespace `ns` once nothing is left in it: its `kubernetes`
/// finalizer goes, and the namespace with it unless other finalizers hold it (checked
/// again whenever the namespace changes).
pub fn finish_if_empty(client: &mut dyn Client, ns: &str) {
    let Some(namespace) = client.store().get("/namespaces", "", ns) else {
        return;
    };
    if !meta::is_deleting(&namespace) || client.store().namespace_has_content(ns) {
        return;
    }
    let Some(def) = client.registry().get("", "v1", "namespaces") else {
        return;
    };
    let mut last = (*namespace).clone();
    // Only the controller's own finalizer goes; others hold the namespace until they are
    // taken out through `namespaces/finalize`.
    let remaining: Vec<Value> = last["spec"]["finalizers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| *f != "kubernetes")
        .cloned()
        .collect();
    let held = !remaining.is_empty();
    last["spec"]["finalizers"] = json!(remaining);
    if !held && meta::finalizers(&last).is_empty() {
        // Removed as any object: a namespace can own cluster-scoped objects, which the
        // garbage collector then examines.
        client.remove(&def, "", ns, Some(last));
    } else if last != *namespace {
        client.put(&def, "", ns, last);
    }
}
