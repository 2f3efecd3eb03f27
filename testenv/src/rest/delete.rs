//! DELETE of objects and collections: finalizers, deletionTimestamp, preconditions,
//! namespace and CRD cascades, and owner-reference garbage collection.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Api, Cluster, Reply, Req, meta, read, write};
use crate::registry::{ResourceDef, crd};
use crate::rest::route::Target;
use crate::status::{self, ApiError};

/// `DeleteOptions` fields the server honours.
#[derive(Debug, Default, Clone)]
pub struct DeleteOptions {
    /// `preconditions.uid`
    pub uid: Option<String>,
    /// `preconditions.resourceVersion`
    pub resource_version: Option<String>,
    /// `propagationPolicy`: Orphan, Background (default) or Foreground.
    pub propagation: Option<String>,
    /// `dryRun: ["All"]` in the body or `?dryRun=All`.
    pub dry_run: bool,
}

impl DeleteOptions {
    /// Reads the options from the body (if any) and the query.
    pub fn from_request(req: &Req) -> Result<Self, ApiError> {
        let mut o = DeleteOptions {
            dry_run: req.query.dry_run(),
            propagation: req.query.get("propagationPolicy").map(str::to_string),
            ..Default::default()
        };
        if req.body.iter().any(|b| !b.is_ascii_whitespace()) {
            let body: Value = serde_json::from_slice(&req.body)
                .map_err(|e| ApiError::bad_request(format!("invalid DeleteOptions: {e}")))?;
            o.uid = body["preconditions"]["uid"].as_str().map(str::to_string);
            o.resource_version = body["preconditions"]["resourceVersion"]
                .as_str()
                .map(str::to_string);
            if let Some(p) = body["propagationPolicy"].as_str() {
                o.propagation = Some(p.to_string());
            }
            if body["dryRun"]
                .as_array()
                .is_some_and(|a| a.iter().any(|v| v == "All"))
            {
                o.dry_run = true;
            }
        }
        if let Some(p) = &o.propagation
            && !matches!(p.as_str(), "Orphan" | "Background" | "Foreground")
        {
            return Err(ApiError::bad_request(format!(
                "propagationPolicy: Unsupported value: \"{p}\": supported values: \"Foreground\", \"Background\", \"Orphan\""
            )));
        }
        Ok(o)
    }
}

/// Whether the object was removed or is now waiting for finalizers.
pub enum Deleted {
    /// Gone from the store; the last state.
    Removed(Arc<Value>),
    /// Marked with deletionTimestamp; finalizers pending.
    Pending(Arc<Value>),
}

/// Deletes one object following the real server's rules.
pub fn delete_object(
    cluster: &mut Cluster,
    def: &ResourceDef,
    ns: &str,
    name: &str,
    options: &DeleteOptions,
) -> Result<Deleted, ApiError> {
    let current = cluster
        .store
        .get(&def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(def, name))?;
    if let Some(uid) = &options.uid {
        let actual = meta::meta_str(&current, "uid").unwrap_or_default();
        if uid != actual {
            return Err(ApiError::conflict_with(
                def,
                name,
                &format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {actual}"
                ),
            ));
        }
    }
    if let Some(rv) = &options.resource_version {
        let actual = meta::meta_str(&current, "resourceVersion").unwrap_or_default();
        if rv != actual {
            return Err(ApiError::conflict_with(
                def,
                name,
                &format!(
                    "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {actual}"
                ),
            ));
        }
    }
    if options.propagation.as_deref() == Some("Orphan")
        && !options.dry_run
        && let Some(uid) = meta::meta_str(&current, "uid")
    {
        orphan_dependents(cluster, uid);
    }
    let is_namespace = def.group.is_empty() && def.plural == "namespaces";
    if is_namespace && matches!(name, "default" | "kube-system" | "kube-public") {
        return Err(ApiError::forbidden(
            def,
            name,
            "this namespace may not be deleted",
        ));
    }
    let is_crd = write::is_crd(def);
    let needs_wait = !meta::finalizers(&current).is_empty() || is_namespace || is_crd;
    if !needs_wait {
        if options.dry_run {
            return Ok(Deleted::Removed(current));
        }
        let removed = remove_now(cluster, def, ns, name, None)
            .ok_or_else(|| ApiError::not_found(def, name))?;
        return Ok(Deleted::Removed(removed));
    }
    if meta::is_deleting(&current) {
        return Ok(Deleted::Pending(current));
    }
    let mut marked = (*current).clone();
    marked["metadata"]["deletionTimestamp"] = Value::String(meta::now());
    marked["metadata"]["deletionGracePeriodSeconds"] = json!(0);
    if let Some(g) = marked["metadata"]["generation"].as_i64() {
        marked["metadata"]["generation"] = json!(g + 1);
    }
    if is_namespace {
        marked["status"]["phase"] = json!("Terminating");
    }
    if options.dry_run {
        return Ok(Deleted::Pending(Arc::new(marked)));
    }
    let stored = cluster.store.put(&def.storage_key, ns, name, marked);
    if is_namespace {
        empty_namespace(cluster, name);
    }
    if is_crd {
        empty_crd(cluster, &stored);
    }
    // The cascades may have finished the deletion already.
    Ok(match cluster.store.get(&def.storage_key, ns, name) {
        Some(obj) => Deleted::Pending(obj),
        None => Deleted::Removed(stored),
    })
}

/// Removes an object now (no finalizers left) and runs what follows a removal: garbage
/// collection of dependents, finishing a terminating namespace or CRD.
pub fn remove_now(
    cluster: &mut Cluster,
    def: &ResourceDef,
    ns: &str,
    name: &str,
    last: Option<Value>,
) -> Option<Arc<Value>> {
    let removed = cluster.store.remove(&def.storage_key, ns, name, last)?;
    if write::is_crd(def) {
        let (group, plural) = crd::group_plural(&removed);
        cluster
            .store
            .remove_bucket(&crd::storage_key(&group, &plural));
        cluster.registry.remove_resource(&group, &plural);
    }
    if let Some(uid) = meta::meta_str(&removed, "uid") {
        collect_dependents(cluster, uid);
    }
    if !ns.is_empty() {
        finish_namespace_if_empty(cluster, ns);
    }
    if def.custom.is_some() {
        finish_crd_if_empty(cluster, def);
    }
    Some(removed)
}

/// Every (resource, namespace, name) whose ownerReferences name `owner_uid`.
fn dependents_of(cluster: &Cluster, owner_uid: &str) -> Vec<(Arc<ResourceDef>, String, String)> {
    let mut dependents = Vec::new();
    let mut seen_keys = std::collections::HashSet::new();
    for def in cluster.registry.all() {
        if !seen_keys.insert(def.storage_key.clone()) {
            continue;
        }
        let Some(bucket) = cluster.store.bucket(&def.storage_key) else {
            continue;
        };
        for ((ns, name), obj) in bucket {
            let owners = obj["metadata"]["ownerReferences"].as_array();
            if owners.is_some_and(|o| o.iter().any(|r| r["uid"].as_str() == Some(owner_uid))) {
                dependents.push((def.clone(), ns.clone(), name.clone()));
            }
        }
    }
    dependents
}

/// `propagationPolicy: Orphan`: dependents lose their reference to the owner and stay.
fn orphan_dependents(cluster: &mut Cluster, owner_uid: &str) {
    for (def, ns, name) in dependents_of(cluster, owner_uid) {
        let Some(obj) = cluster.store.get(&def.storage_key, &ns, &name) else {
            continue;
        };
        let mut obj = (*obj).clone();
        if let Some(refs) = obj["metadata"]["ownerReferences"].as_array_mut() {
            refs.retain(|r| r["uid"].as_str() != Some(owner_uid));
            if refs.is_empty()
                && let Some(m) = obj["metadata"].as_object_mut()
            {
                m.remove("ownerReferences");
            }
        }
        cluster.store.put(&def.storage_key, &ns, &name, obj);
    }
}

/// Background garbage collection: objects whose owners are all gone are deleted.
fn collect_dependents(cluster: &mut Cluster, owner_uid: &str) {
    let dependents = dependents_of(cluster, owner_uid);
    for (def, ns, name) in dependents {
        let Some(obj) = cluster.store.get(&def.storage_key, &ns, &name) else {
            continue;
        };
        let owners: Vec<Value> = obj["metadata"]["ownerReferences"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let remaining: Vec<Value> = owners
            .iter()
            .filter(|r| r["uid"].as_str() != Some(owner_uid) && owner_exists(cluster, r))
            .cloned()
            .collect();
        if remaining.is_empty() {
            let _ = delete_object(cluster, &def, &ns, &name, &DeleteOptions::default());
        }
    }
}

fn owner_exists(cluster: &Cluster, reference: &Value) -> bool {
    let uid = reference["uid"].as_str().unwrap_or_default();
    let kind = reference["kind"].as_str().unwrap_or_default();
    cluster.registry.all().filter(|d| d.kind == kind).any(|d| {
        cluster
            .store
            .bucket(&d.storage_key)
            .is_some_and(|b| b.values().any(|o| meta::meta_str(o, "uid") == Some(uid)))
    })
}

/// Deletes everything in a terminating namespace; the namespace goes once it is empty.
fn empty_namespace(cluster: &mut Cluster, ns: &str) {
    for (key, name) in cluster.store.keys_in_namespace(ns) {
        let Some(def) = cluster.registry.by_storage_key(&key).next().cloned() else {
            continue;
        };
        let _ = delete_object(cluster, &def, ns, &name, &DeleteOptions::default());
    }
    finish_namespace_if_empty(cluster, ns);
}

fn finish_namespace_if_empty(cluster: &mut Cluster, ns: &str) {
    let Some(namespace) = cluster.store.get("/namespaces", "", ns) else {
        return;
    };
    if !meta::is_deleting(&namespace) || cluster.store.namespace_has_content(ns) {
        return;
    }
    let mut last = (*namespace).clone();
    last["spec"]["finalizers"] = json!([]);
    if meta::finalizers(&last).is_empty() {
        cluster.store.remove("/namespaces", "", ns, Some(last));
    } else {
        cluster.store.put("/namespaces", "", ns, last);
    }
}

/// Deletes every object of a CRD being deleted; the CRD goes once they are all gone.
fn empty_crd(cluster: &mut Cluster, crd_obj: &Value) {
    let (group, plural) = crd::group_plural(crd_obj);
    let key = crd::storage_key(&group, &plural);
    let Some(def) = cluster.registry.by_storage_key(&key).next().cloned() else {
        finish_crd(cluster, crd_obj);
        return;
    };
    let keys: Vec<(String, String)> = cluster
        .store
        .bucket(&key)
        .map(|b| b.keys().cloned().collect())
        .unwrap_or_default();
    for (ns, name) in keys {
        let _ = delete_object(cluster, &def, &ns, &name, &DeleteOptions::default());
    }
    finish_crd_if_empty(cluster, &def);
}

fn finish_crd_if_empty(cluster: &mut Cluster, def: &ResourceDef) {
    if cluster
        .store
        .bucket(&def.storage_key)
        .is_some_and(|b| !b.is_empty())
    {
        return;
    }
    let crd_name = format!("{}.{}", def.plural, def.group);
    let key = "apiextensions.k8s.io/customresourcedefinitions";
    if let Some(crd_obj) = cluster.store.get(key, "", &crd_name)
        && meta::is_deleting(&crd_obj)
        && meta::finalizers(&crd_obj).is_empty()
    {
        finish_crd(cluster, &crd_obj.clone());
    }
}

fn finish_crd(cluster: &mut Cluster, crd_obj: &Value) {
    let name = meta::meta_str(crd_obj, "name")
        .unwrap_or_default()
        .to_string();
    if let Some(def) =
        cluster
            .registry
            .get("apiextensions.k8s.io", "v1", "customresourcedefinitions")
    {
        remove_now(cluster, &def, "", &name, None);
    }
}

/// DELETE on one object.
pub fn delete(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let options = DeleteOptions::from_request(req)?;
    let name = target.name.as_deref().unwrap_or_default();
    let ns = target.namespace.as_deref().unwrap_or_default();
    let mut cluster = api.lock();
    let def = &target.def;
    Ok(
        match delete_object(&mut cluster, def, ns, name, &options)? {
            Deleted::Pending(obj) => Reply::json(202, write::as_version(def, &obj)),
            Deleted::Removed(obj) => {
                if def.group.is_empty() && matches!(def.plural.as_str(), "namespaces" | "pods") {
                    Reply::json(200, write::as_version(def, &obj))
                } else {
                    let uid = meta::meta_str(&obj, "uid").unwrap_or_default();
                    Reply::json(200, status::success(def, name, uid))
                }
            }
        },
    )
}

/// DELETE on a collection: deletes every selected object, returns them as a list.
pub fn delete_collection(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let options = DeleteOptions::from_request(req)?;
    let filter = read::Filter::from_query(&target.def, &req.query)?;
    let mut cluster = api.lock();
    let def = &target.def;
    let keys: Vec<(String, String)> = cluster
        .store
        .bucket(&def.storage_key)
        .map(|b| {
            b.iter()
                .filter(|((ns, _), o)| {
                    target.namespace.as_ref().is_none_or(|t| t == ns) && filter.matches(o)
                })
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    let mut items = Vec::new();
    for (ns, name) in keys {
        match delete_object(&mut cluster, def, &ns, &name, &options) {
            Ok(Deleted::Pending(o) | Deleted::Removed(o)) => items.push(write::as_version(def, &o)),
            Err(e) if e.code == 404 => {}
            Err(e) => return Err(e),
        }
    }
    let rv = cluster.store.resource_version().to_string();
    Ok(Reply::json(
        200,
        json!({
            "apiVersion": def.api_version(),
            "kind": format!("{}List", def.kind),
            "metadata": {"resourceVersion": rv},
            "items": items,
        }),
    ))
}
