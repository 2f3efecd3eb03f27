//! CRD clean-up, as the apiextensions finalizer controller runs it: a CRD marked for deletion
//! has every object of its kind deleted, and goes (with its served versions) once the last one
//! is gone.

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
