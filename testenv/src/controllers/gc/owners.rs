//! Owner references as the garbage collector reads them: resolving a reference to the live
//! owner, classifying a dependent's owners, and finding the dependents of an owner.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use crate::endpoints::delete_options::FOREGROUND;
use crate::endpoints::hooks::Client;
use crate::support::meta;
use crate::support::resource::ResourceDef;

/// One stored object, by storage location and uid.
#[derive(Debug, Clone)]
pub struct ObjRef {
    /// The resource it belongs to.
    pub def: Arc<ResourceDef>,
    /// Its namespace (empty for cluster-scoped objects).
    pub ns: String,
    /// Its name.
    pub name: String,
    /// Its uid: a later object with the same name is another object.
    pub uid: String,
}

impl ObjRef {
    /// The reference to `object`, stored as `def` in namespace `ns`.
    pub fn of(def: Arc<ResourceDef>, ns: &str, object: &Value) -> Self {
        let field = |key| meta::meta_str(object, key).unwrap_or_default().to_string();
        ObjRef {
            def,
            ns: ns.to_string(),
            name: field("name"),
            uid: field("uid"),
        }
    }

    /// The object if it still exists with this uid.
    pub fn live(&self, client: &dyn Client) -> Option<Arc<Value>> {
        client
            .store()
            .get(&self.def.storage_key, &self.ns, &self.name)
            .filter(|o| meta::meta_str(o, "uid") == Some(self.uid.as_str()))
    }
}

/// What an owner reference points at.
pub enum Owner {
    /// The owner exists with the referenced uid.
    Found(ObjRef, Arc<Value>),
    /// No object of that name, or one with another uid: the reference dangles.
    Absent,
    /// The kind is not served, or a cluster-scoped dependent names a namespaced owner: the
    /// real collector cannot resolve it and leaves the dependent alone.
    Unresolvable,
}

/// Whether `object` is being deleted and waits for its dependents (`foregroundDeletion`).
pub fn deleting_dependents(object: &Value) -> bool {
    meta::is_deleting(object) && meta::finalizers(object).iter().any(|f| f == FOREGROUND)
}

/// Resolves `reference` (an `ownerReferences` entry) of a dependent living in `dependent_ns`
/// as the real collector does: by group, kind and name in the dependent's namespace (or
/// cluster-wide for a cluster-scoped owner), then by uid.
pub fn resolve(client: &dyn Client, reference: &Value, dependent_ns: &str) -> Owner {
    let api_version = reference["apiVersion"].as_str().unwrap_or_default();
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    let kind = reference["kind"].as_str().unwrap_or_default();
    let Some(def) = client
        .registry()
        .all()
        .find(|d| d.group == group && d.kind == kind)
        .cloned()
    else {
        return Owner::Unresolvable;
    };
    if def.namespaced && dependent_ns.is_empty() {
        return Owner::Unresolvable;
    }
    let ns = if def.namespaced { dependent_ns } else { "" };
    let name = reference["name"].as_str().unwrap_or_default();
    let uid = reference["uid"].as_str().unwrap_or_default();
    match client.store().get(&def.storage_key, ns, name) {
        Some(owner) if meta::meta_str(&owner, "uid") == Some(uid) => Owner::Found(
            ObjRef {
                def,
                ns: ns.to_string(),
                name: name.to_string(),
                uid: uid.to_string(),
            },
            owner,
        ),
        _ => Owner::Absent,
    }
}

/// A dependent's owner references sorted as the collector sorts them.
#[derive(Default)]
pub struct Classes {
    /// Owners that exist and are not waiting for their dependents.
    pub solid: Vec<ObjRef>,
    /// uids of references to owners that are gone.
    pub dangling: Vec<String>,
    /// Owners being deleted in the foreground.
    pub waiting: Vec<ObjRef>,
}

/// Classifies the owner references of `dependent`; `None` when one of them cannot be
/// resolved (the real collector then gives up on the dependent).
pub fn classify(client: &dyn Client, dependent: &Value, ns: &str) -> Option<Classes> {
    let mut classes = Classes::default();
    for reference in dependent["metadata"]["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
    {
        match resolve(client, reference, ns) {
            Owner::Unresolvable => return None,
            Owner::Absent => classes
                .dangling
                .push(reference["uid"].as_str().unwrap_or_default().to_string()),
            Owner::Found(owner, obj) if deleting_dependents(&obj) => classes.waiting.push(owner),
            Owner::Found(owner, _) => classes.solid.push(owner),
        }
    }
    Some(classes)
}

/// A dependent found by [`dependents_of`], with whether its reference blocks the owner.
pub struct Dependent {
    /// The dependent.
    pub obj: ObjRef,
    /// `blockOwnerDeletion: true` on its reference to the owner.
    pub blocks: bool,
}

/// Every object whose ownerReferences name `owner_uid`.
pub fn dependents_of(client: &dyn Client, owner_uid: &str) -> Vec<Dependent> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for def in client.registry().all() {
        if !seen.insert(def.storage_key.as_str()) {
            continue;
        }
        let Some(bucket) = client.store().bucket(&def.storage_key) else {
            continue;
        };
        for ((ns, name), obj) in bucket {
            let Some(reference) = obj["metadata"]["ownerReferences"]
                .as_array()
                .and_then(|refs| refs.iter().find(|r| r["uid"].as_str() == Some(owner_uid)))
            else {
                continue;
            };
            out.push(Dependent {
                obj: ObjRef {
                    def: def.clone(),
                    ns: ns.clone(),
                    name: name.clone(),
                    uid: meta::meta_str(obj, "uid").unwrap_or_default().to_string(),
                },
                blocks: reference["blockOwnerDeletion"].as_bool() == Some(true),
            });
        }
    }
    out
}

/// Where an object is stored: its resource, namespace and name.
pub type Location = (Arc<ResourceDef>, String, String);

/// Every object naming each owner uid in its ownerReferences (one scan of the store).
pub fn reference_index(client: &dyn Client) -> HashMap<String, Vec<Location>> {
    let mut out: HashMap<String, Vec<Location>> = HashMap::new();
    let mut seen = HashSet::new();
    for def in client.registry().all() {
        if !seen.insert(def.storage_key.as_str()) {
            continue;
        }
        for ((ns, name), obj) in client
            .store()
            .bucket(&def.storage_key)
            .into_iter()
            .flatten()
        {
            for r in obj["metadata"]["ownerReferences"]
                .as_array()
                .into_iter()
                .flatten()
            {
                if let Some(uid) = r["uid"].as_str() {
                    out.entry(uid.to_string()).or_default().push((
                        def.clone(),
                        ns.clone(),
                        name.clone(),
                    ));
                }
            }
        }
    }
    out
}

/// The objects among `candidates` that still exist and still name `owner_uid`.
pub fn dependents_among(
    client: &dyn Client,
    owner_uid: &str,
    candidates: &[Location],
) -> Vec<Dependent> {
    candidates
        .iter()
        .filter_map(|(def, ns, name)| {
            let obj = client.store().get(&def.storage_key, ns, name)?;
            let reference = obj["metadata"]["ownerReferences"]
                .as_array()?
                .iter()
                .find(|r| r["uid"].as_str() == Some(owner_uid))?;
            Some(Dependent {
                blocks: reference["blockOwnerDeletion"].as_bool() == Some(true),
                obj: ObjRef {
                    def: def.clone(),
                    ns: ns.clone(),
                    name: name.clone(),
                    uid: meta::meta_str(&obj, "uid").unwrap_or_default().to_string(),
                },
            })
        })
        .collect()
}

/// `object` without the owner references whose uid is in `uids` (the field is dropped when
/// none is left).
pub fn without_references(object: &Value, uids: &[String]) -> Value {
    let mut out = object.clone();
    if let Some(refs) = out["metadata"]["ownerReferences"].as_array_mut() {
        refs.retain(|r| {
            !r["uid"]
                .as_str()
                .is_some_and(|u| uids.iter().any(|x| x == u))
        });
        if refs.is_empty()
            && let Some(m) = out["metadata"].as_object_mut()
        {
            m.remove("ownerReferences");
        }
    }
    out
}
