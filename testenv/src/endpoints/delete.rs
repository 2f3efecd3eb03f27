//! DELETE of objects and collections: finalizers, deletionTimestamp, grace periods,
//! preconditions. What follows a marking or a removal (garbage collection, emptying a
//! namespace or a CRD) is the controllers' work: they are told through
//! [`super::hooks::Controllers`].

use std::sync::Arc;

use serde_json::{Value, json};

use super::delete_options::{DeleteOptions, Deleted};
use super::read;
use super::state::{Api, Cluster};
use crate::registry::crd;
use crate::registry::stored::as_served;
use crate::support::meta;
use crate::support::request::Target;
use crate::support::request::{Reply, Req};
use crate::support::resource::ResourceDef;
use crate::support::status::{self, ApiError};

/// The grace period of a pod deletion, when the pod waits for its kubelet: it is bound to
/// a node, not finished, and the period (asked, or `terminationGracePeriodSeconds`,
/// default 30) is not zero. Negative periods count as 1 s, as on the real server.
fn pod_grace_period(def: &ResourceDef, pod: &Value, options: &DeleteOptions) -> Option<i64> {
    if !is_pod(def) {
        return None;
    }
    let bound = pod["spec"]["nodeName"]
        .as_str()
        .is_some_and(|n| !n.is_empty());
    let finished = matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    );
    if !bound || finished {
        return None;
    }
    let grace = options
        .grace_period
        .or_else(|| pod["spec"]["terminationGracePeriodSeconds"].as_i64())
        .unwrap_or(30);
    let grace = if grace < 0 { 1 } else { grace };
    (grace > 0).then_some(grace)
}

fn is_pod(def: &ResourceDef) -> bool {
    def.group.is_empty() && def.plural == "pods"
}

/// A pod deleted without waiting (not bound, finished, or a grace period of 0): the pod
/// strategy makes every deletion graceful, so the registry first writes the pod marked, its
/// deletion timestamp now, the grace period 0 and its generation bumped (a MODIFIED event),
/// then deletes it; the answer (and the DELETED event) is the marked pod.
fn delete_pod_now(
    cluster: &mut Cluster,
    def: &ResourceDef,
    ns: &str,
    name: &str,
    current: &Value,
    options: &DeleteOptions,
) -> Result<Deleted, ApiError> {
    let mut marked = current.clone();
    marked["metadata"]["deletionTimestamp"] = Value::String(timestamp_in(0));
    marked["metadata"]["deletionGracePeriodSeconds"] = json!(0);
    if let Some(g) = marked["metadata"]["generation"].as_i64().filter(|g| *g > 0) {
        marked["metadata"]["generation"] = json!(g + 1);
    }
    if options.dry_run {
        return Ok(Deleted::Removed(Arc::new(marked)));
    }
    cluster.store.put(&def.storage_key, ns, name, marked);
    let removed =
        remove_now(cluster, def, ns, name, None).ok_or_else(|| ApiError::not_found(def, name))?;
    Ok(Deleted::Removed(removed))
}

/// Deletes one object following the real server's rules.
pub fn delete_object(
    cluster: &mut Cluster,
    def: &Arc<ResourceDef>,
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
            return Err(precondition_failed(
                def,
                name,
                &format!(
                    "the UID in the precondition ({uid}) does not match the UID in record ({actual}). The object might have been deleted and then recreated"
                ),
            ));
        }
    }
    if let Some(rv) = &options.resource_version {
        let actual = meta::meta_str(&current, "resourceVersion").unwrap_or_default();
        if rv != actual {
            return Err(precondition_failed(
                def,
                name,
                &format!(
                    "the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({actual}). The object might have been modified"
                ),
            ));
        }
    }
    let is_namespace = def.group.is_empty() && def.plural == "namespaces";
    if is_namespace && matches!(name, "default" | "kube-system" | "kube-public") {
        return Err(ApiError::forbidden(
            def,
            name,
            "this namespace may not be deleted",
        ));
    }
    let is_crd = crd::is_crd(def);
    // Namespaces and CRDs have their own deletion machinery; garbage-collection
    // finalizers are for everything else.
    let finalizers = if is_namespace || is_crd {
        meta::finalizers(&current)
    } else {
        options.finalizers_for(def, &current)
    };
    let grace = pod_grace_period(def, &current, options);
    if meta::is_deleting(&current) {
        return redelete(cluster, def, ns, name, &current, options, finalizers, grace);
    }
    let needs_wait = !finalizers.is_empty() || is_namespace || is_crd || grace.is_some();
    if !needs_wait {
        if is_pod(def) {
            return delete_pod_now(cluster, def, ns, name, &current, options);
        }
        if options.dry_run {
            return Ok(Deleted::Removed(current));
        }
        let removed = remove_now(cluster, def, ns, name, None)
            .ok_or_else(|| ApiError::not_found(def, name))?;
        return Ok(Deleted::Removed(removed));
    }
    let mut marked = (*current).clone();
    let grace_secs = grace.unwrap_or(0);
    marked["metadata"]["deletionTimestamp"] = Value::String(timestamp_in(grace_secs));
    // Namespaces and CRDs are marked by their own registries' Delete, which sets only the
    // deletion timestamp; the generic graceful deletion also records the grace period and
    // bumps the generation.
    if !(is_namespace || is_crd) {
        marked["metadata"]["deletionGracePeriodSeconds"] = json!(grace_secs);
        if let Some(g) = marked["metadata"]["generation"].as_i64() {
            marked["metadata"]["generation"] = json!(g + 1);
        }
    }
    let mut finalizers = finalizers;
    if is_crd {
        crd::mark_terminating(&mut marked, &mut finalizers);
    }
    set_finalizers(&mut marked, &finalizers);
    if is_namespace {
        marked["status"]["phase"] = json!("Terminating");
    }
    if options.dry_run {
        return Ok(Deleted::Pending(Arc::new(marked)));
    }
    let stored = cluster.store.put(&def.storage_key, ns, name, marked);
    // The namespace and CRD controllers empty them, the garbage collector handles the
    // others' dependents.
    let controllers = cluster.controllers.clone();
    controllers.deleting(cluster, def, &stored, ns);
    if is_crd {
        // Answered as marked, as the CRD registry answers before its finalizer controller
        // runs (here the clean-up may have finished already).
        return Ok(Deleted::Pending(
            cluster
                .store
                .get(&def.storage_key, ns, name)
                .unwrap_or(stored),
        ));
    }
    if is_namespace {
        // The cascades may have finished the deletion already.
        return Ok(match cluster.store.get(&def.storage_key, ns, name) {
            Some(obj) => Deleted::Pending(obj),
            None => Deleted::Removed(stored),
        });
    }
    Ok(Deleted::Pending(stored))
}

/// DELETE of an object already being deleted: a named policy replaces the
/// garbage-collection finalizers, a shorter pod grace period replaces the longer one; the
/// object goes if nothing holds it any more.
#[allow(clippy::too_many_arguments)]
fn redelete(
    cluster: &mut Cluster,
    def: &Arc<ResourceDef>,
    ns: &str,
    name: &str,
    current: &Arc<Value>,
    options: &DeleteOptions,
    finalizers: Vec<String>,
    grace: Option<i64>,
) -> Result<Deleted, ApiError> {
    let mut updated = (**current).clone();
    let old_grace = current["metadata"]["deletionGracePeriodSeconds"].as_i64();
    let pod_waiting = old_grace.is_some_and(|g| g > 0);
    let mut grace_left = pod_waiting;
    if pod_waiting && grace.is_none_or(|g| Some(g) < old_grace) {
        let g = grace.unwrap_or(0);
        updated["metadata"]["deletionTimestamp"] = Value::String(timestamp_in(g));
        updated["metadata"]["deletionGracePeriodSeconds"] = json!(g);
        grace_left = g > 0;
    }
    if options.explicit_policy() {
        set_finalizers(&mut updated, &finalizers);
    }
    if updated == **current {
        return Ok(Deleted::Pending(current.clone()));
    }
    if finalizers_empty(&updated) && !grace_left {
        if options.dry_run {
            return Ok(Deleted::Removed(Arc::new(updated)));
        }
        let removed = remove_now(cluster, def, ns, name, Some(updated))
            .ok_or_else(|| ApiError::not_found(def, name))?;
        return Ok(Deleted::Removed(removed));
    }
    if options.dry_run {
        return Ok(Deleted::Pending(Arc::new(updated)));
    }
    let stored = cluster.store.put(&def.storage_key, ns, name, updated);
    let controllers = cluster.controllers.clone();
    controllers.deleting(cluster, def, &stored, ns);
    Ok(Deleted::Pending(stored))
}

fn finalizers_empty(object: &Value) -> bool {
    meta::finalizers(object).is_empty()
}

fn set_finalizers(object: &mut Value, finalizers: &[String]) {
    if finalizers.is_empty() {
        if let Some(m) = object["metadata"].as_object_mut() {
            m.remove("finalizers");
        }
    } else {
        object["metadata"]["finalizers"] = json!(finalizers);
    }
}

/// RFC 3339 time `secs` seconds from now (a deletionTimestamp).
fn timestamp_in(secs: i64) -> String {
    if secs <= 0 {
        return meta::now();
    }
    let at = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(secs);
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Removes an object now (no finalizers left): a CRD's objects and served versions go with
/// it, and the controllers are told (garbage collection of dependents, finishing a
/// terminating namespace or CRD).
pub fn remove_now(
    cluster: &mut Cluster,
    def: &ResourceDef,
    ns: &str,
    name: &str,
    last: Option<Value>,
) -> Option<Arc<Value>> {
    let removed = cluster.store.remove(&def.storage_key, ns, name, last)?;
    if crd::is_crd(def) {
        let (group, plural) = crd::group_plural(&removed);
        cluster
            .store
            .remove_bucket(&crd::storage_key(&group, &plural));
        cluster.registry.remove_resource(&group, &plural);
    }
    let controllers = cluster.controllers.clone();
    controllers.removed(cluster, def, &removed, ns);
    Some(removed)
}

/// DELETE on one object.
pub fn delete(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let options = DeleteOptions::from_request(req)?;
    let warnings = options.warnings(&target.def);
    warned(delete_one(api, target, &options), warnings)
}

/// The answer of a DELETE with the `warnings` it earned before it ran, error or not.
fn warned(result: Result<Reply, ApiError>, warnings: Vec<String>) -> Result<Reply, ApiError> {
    if warnings.is_empty() {
        return result;
    }
    match result {
        Ok(Reply::Json {
            code,
            body,
            content_type,
            warnings: own,
        }) => Ok(Reply::Json {
            code,
            body,
            content_type,
            warnings: warnings.into_iter().chain(own).collect(),
        }),
        Ok(other) => Ok(other),
        Err(mut e) => {
            e.warnings = warnings.into_iter().chain(e.warnings).collect();
            Err(e)
        }
    }
}

/// DELETE on one object, once its options are read.
fn delete_one(api: &Arc<Api>, target: &Target, options: &DeleteOptions) -> Result<Reply, ApiError> {
    let name = target.name.as_deref().unwrap_or_default();
    let ns = target.namespace.as_deref().unwrap_or_default();
    let mut cluster = api.lock();
    let def = &target.def;
    Ok(match delete_object(&mut cluster, def, ns, name, options)? {
        // 202 only when `orphanDependents: false` was asked, as the real server (kept
        // for old clients); otherwise 200 with the object being deleted.
        Deleted::Pending(obj) => {
            let code = if options.orphan_dependents == Some(false) {
                202
            } else {
                200
            };
            Reply::json(code, as_served(def, &obj))
        }
        Deleted::Removed(obj) => {
            if def.returns_deleted_object || (def.group.is_empty() && def.plural == "namespaces") {
                Reply::json(200, as_served(def, &obj))
            } else {
                let uid = meta::meta_str(&obj, "uid").unwrap_or_default();
                Reply::json(200, status::success(def, name, uid))
            }
        }
    })
}

/// DELETE on a collection: deletes every selected object, returns them as a list.
pub fn delete_collection(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let options = DeleteOptions::from_request(req)?;
    let filter = read::Filter::from_query(&target.def, &req.query)?;
    let warnings = options.warnings(&target.def);
    warned(delete_selected(api, target, &filter, &options), warnings)
}

/// DELETE on a collection, once its options and selectors are read.
fn delete_selected(
    api: &Arc<Api>,
    target: &Target,
    filter: &read::Filter,
    options: &DeleteOptions,
) -> Result<Reply, ApiError> {
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
        match delete_object(&mut cluster, def, &ns, &name, options) {
            Ok(Deleted::Pending(o) | Deleted::Removed(o)) => {
                let mut item = as_served(def, &o);
                // Typed lists of built-in kinds carry no apiVersion and kind on their items.
                if def.custom.is_none()
                    && let Some(m) = item.as_object_mut()
                {
                    m.remove("apiVersion");
                    m.remove("kind");
                }
                items.push(item);
            }
            Err(e) if e.code == 404 => {}
            Err(e) => return Err(e),
        }
    }
    let rv = cluster.store.resource_version().to_string();
    // A custom resource's list is unstructured on the real server: it writes out the empty
    // continue token, as its lists do.
    let metadata = if def.custom.is_some() {
        json!({"continue": "", "resourceVersion": rv})
    } else {
        json!({"resourceVersion": rv})
    };
    Ok(Reply::json(
        200,
        json!({
            "apiVersion": def.api_version(),
            "kind": def.list_kind(),
            "metadata": metadata,
            "items": items,
        }),
    ))
}

/// The 409 of a deletion whose preconditions do not hold: the real server names the kind.
fn precondition_failed(def: &ResourceDef, name: &str, why: &str) -> ApiError {
    ApiError {
        code: 409,
        reason: "Conflict",
        message: format!(
            "Operation cannot be fulfilled on {} {name:?}: {why}",
            def.kind
        ),
        details: serde_json::json!({"name": name, "group": def.group, "kind": def.kind}),
        warnings: Vec::new(),
    }
}
