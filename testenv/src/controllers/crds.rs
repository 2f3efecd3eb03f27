//! The apiextensions controllers of CRDs. Clean-up, as the finalizer controller runs it: a
//! CRD marked for deletion has every object of its kind deleted, and goes (with its served
//! versions) once the last one is gone. Naming and establishing ([`changed`]): after a
//! status write the names a CRD has accepted and its `NamesAccepted` and `Established`
//! conditions are set back to what its spec asks, refusing names another CRD of its group
//! has accepted, as the naming controller does from its queue a moment after the write.

use serde_json::Value;

use crate::endpoints::delete_options::DeleteOptions;
use crate::endpoints::hooks::Client;
use crate::registry::crd;
use crate::support::meta;
use crate::support::resource::ResourceDef;

/// Deletes every object of a CRD being deleted; the CRD goes once they are all gone.
pub fn deleting(client: &mut dyn Client, crd_obj: &Value) {
    let (group, plural) = crd::group_plural(crd_obj);
    let key = crd::storage_key(&group, &plural);
    let Some(def) = client.registry().by_storage_key(&key).next().cloned() else {
        finish(client, crd_obj);
        return;
    };
    let keys: Vec<(String, String)> = client
        .store()
        .bucket(&key)
        .map(|b| b.keys().cloned().collect())
        .unwrap_or_default();
    for (ns, name) in keys {
        let _ = client.delete(&def, &ns, &name, &DeleteOptions::default());
    }
    finish_if_empty(client, &def);
}

/// Finishes the deletion of the CRD serving `def` once its last object is gone.
pub fn finish_if_empty(client: &mut dyn Client, def: &ResourceDef) {
    if client
        .store()
        .bucket(&def.storage_key)
        .is_some_and(|b| !b.is_empty())
    {
        return;
    }
    let crd_name = format!("{}.{}", def.plural, def.group);
    let key = "apiextensions.k8s.io/customresourcedefinitions";
    let Some(crd_obj) = client.store().get(key, "", &crd_name) else {
        return;
    };
    if !meta::is_deleting(&crd_obj) {
        return;
    }
    let finalizers = meta::finalizers(&crd_obj);
    if finalizers.iter().all(|f| f == crd::CLEANUP_FINALIZER) {
        finish(client, &crd_obj.clone());
    } else if finalizers.iter().any(|f| f == crd::CLEANUP_FINALIZER) {
        // Others still hold it: the clean-up's own finalizer goes, theirs stay.
        let mut released = (*crd_obj).clone();
        released["metadata"]["finalizers"] = serde_json::json!(
            finalizers
                .iter()
                .filter(|f| f.as_str() != crd::CLEANUP_FINALIZER)
                .collect::<Vec<_>>()
        );
        if let Some(def) =
            client
                .registry()
                .get("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        {
            client.put(&def, "", &crd_name, released);
        }
    }
}

/// Removes the CRD itself (its objects are gone).
fn finish(client: &mut dyn Client, crd_obj: &Value) {
    let name = meta::meta_str(crd_obj, "name")
        .unwrap_or_default()
        .to_string();
    if let Some(def) =
        client
            .registry()
            .get("apiextensions.k8s.io", "v1", "customresourcedefinitions")
    {
        client.remove(&def, "", &name, None);
    }
}

/// The CustomResourceDefinition resource itself.
const CRDS_KEY: &str = "apiextensions.k8s.io/customresourcedefinitions";

/// Every stored CRD.
fn all_crds(client: &dyn Client) -> Vec<std::sync::Arc<Value>> {
    crd::stored_crds(client.store())
}

/// The CRD resource, to write through.
fn crd_def(client: &dyn Client) -> Option<ResourceDef> {
    client
        .registry()
        .get("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        .map(|d| (*d).clone())
}

/// The naming controller's sync of the CRD `name`: when its accepted names are not what its
/// spec asks, it accepts the requested names no CRD of the group has accepted (itself
/// included), sets `NamesAccepted` with the last conflict found, and `Established` to
/// installing once every name is accepted. Whether it wrote anything.
fn sync_names(client: &mut dyn Client, name: &str) -> bool {
    let Some(stored) = client.store().get(CRDS_KEY, "", name) else {
        return false;
    };
    if crd::same_names(&stored["spec"]["names"], &stored["status"]["acceptedNames"]) {
        return false;
    }
    let (names, names_accepted, established) =
        crd::names_and_conditions(&stored, &all_crds(client));
    if names == stored["status"]["acceptedNames"]
        && crd::equivalent(
            Some(&names_accepted),
            crd::find_condition(&stored, "NamesAccepted"),
        )
    {
        return false;
    }
    let Some(def) = crd_def(client) else {
        return false;
    };
    let now = meta::now();
    let mut updated = (*stored).clone();
    updated["status"]["acceptedNames"] = names;
    crd::set_condition(&mut updated, names_accepted, &now);
    crd::set_condition(&mut updated, established, &now);
    client.put(&def, "", name, updated);
    true
}

/// The establishing controller's sync of the CRD `name`: once its names are accepted and it
/// is not established, it is.
fn establish(client: &mut dyn Client, name: &str) {
    let Some(stored) = client.store().get(CRDS_KEY, "", name) else {
        return;
    };
    let is_true =
        |type_: &str| crd::find_condition(&stored, type_).is_some_and(|c| c["status"] == "True");
    if !is_true("NamesAccepted") || is_true("Established") {
        return;
    }
    let Some(def) = crd_def(client) else {
        return;
    };
    let mut updated = (*stored).clone();
    let established = crd::condition(
        "Established",
        "True",
        "InitialNamesAccepted",
        "the initial names have been accepted",
    );
    crd::set_condition(&mut updated, established, &meta::now());
    client.put(&def, "", name, updated);
}

/// How many times in a row the naming controller looks at a CRD its own write changed (its
/// write wakes it again: a name its old accepted names held is free once the write let it
/// go, so a second pass accepts it). Two passes settle any status; the rest is a bound.
const NAMING_PASSES: usize = 4;

/// The naming controller's passes over the CRD `name`, each write followed by the
/// establishing controller's look at it. Whether any pass changed it.
fn settle(client: &mut dyn Client, name: &str) -> bool {
    let mut changed = false;
    for _ in 0..NAMING_PASSES {
        if !sync_names(client, name) {
            break;
        }
        changed = true;
        establish(client, name);
    }
    changed
}

/// What the apiextensions naming and establishing controllers do after a CRD changed: its
/// accepted names and conditions set back to what its spec asks (then the group's other
/// CRDs looked at again), and established once its names are accepted. Each change is a
/// status write of its own, as the real controllers write from their queues.
pub fn changed(client: &mut dyn Client, crd_obj: &Value) {
    let name = meta::meta_str(crd_obj, "name")
        .unwrap_or_default()
        .to_string();
    if settle(client, &name) {
        let group = crd_obj["spec"]["group"].as_str().unwrap_or_default();
        group_changed(client, group, &name);
    } else {
        establish(client, &name);
    }
}

/// The naming controller looks again at every CRD of `group` but `except` (one that freed
/// or took names), establishing those whose names it now accepts.
pub fn group_changed(client: &mut dyn Client, group: &str, except: &str) {
    let others: Vec<String> = all_crds(client)
        .iter()
        .filter(|c| c["spec"]["group"].as_str() == Some(group))
        .filter_map(|c| meta::meta_str(c, "name").map(str::to_string))
        .filter(|n| n != except)
        .collect();
    for other in others {
        settle(client, &other);
    }
}
