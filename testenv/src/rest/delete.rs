//! DELETE of objects and collections: finalizers, deletionTimestamp, preconditions,
//! namespace and CRD cascades; owner-reference garbage collection follows a removal or a
//! marking (see `crate::gc`).

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Api, Cluster, Reply, Req, meta, read, write};
use crate::gc::owners::{FOREGROUND, ORPHAN};
use crate::registry::{ResourceDef, crd};
use crate::rest::route::Target;
use crate::status::{self, ApiError, Cause};

/// `DeleteOptions` fields the server honours.
#[derive(Debug, Default, Clone)]
pub struct DeleteOptions {
    /// `preconditions.uid`
    pub uid: Option<String>,
    /// `preconditions.resourceVersion`
    pub resource_version: Option<String>,
    /// `propagationPolicy`: Orphan, Background or Foreground.
    pub propagation: Option<String>,
    /// The legacy `orphanDependents` (true is Orphan, false Background).
    pub orphan_dependents: Option<bool>,
    /// `gracePeriodSeconds` (honoured for pods bound to a node; other kinds go at once).
    pub grace_period: Option<i64>,
    /// `dryRun: ["All"]` in the body or `?dryRun=All`.
    pub dry_run: bool,
}

impl DeleteOptions {
    /// Reads the options from the body (if any) and the query, and validates them as the
    /// real server does.
    pub fn from_request(req: &Req) -> Result<Self, ApiError> {
        let mut o = DeleteOptions {
            dry_run: req.query.dry_run(),
            propagation: req.query.get("propagationPolicy").map(str::to_string),
            orphan_dependents: req.query.get("orphanDependents").map(|v| v == "true"),
            grace_period: match req.query.get("gracePeriodSeconds") {
                Some(g) => Some(g.parse().map_err(|_| {
                    ApiError::bad_request(format!(
                        "invalid gracePeriodSeconds {g:?}: must be an integer"
                    ))
                })?),
                None => None,
            },
            ..Default::default()
        };
        let body: Option<Value> = if req.body.iter().any(|b| !b.is_ascii_whitespace()) {
            Some(
                serde_json::from_slice(&req.body)
                    .map_err(|e| ApiError::bad_request(format!("invalid DeleteOptions: {e}")))?,
            )
        } else {
            None
        };
        if let Some(body) = &body {
            o.uid = body["preconditions"]["uid"].as_str().map(str::to_string);
            o.resource_version = body["preconditions"]["resourceVersion"]
                .as_str()
                .map(str::to_string);
            if let Some(p) = body["propagationPolicy"].as_str() {
                o.propagation = Some(p.to_string());
            }
            if let Some(b) = body["orphanDependents"].as_bool() {
                o.orphan_dependents = Some(b);
            }
            if let Some(g) = body["gracePeriodSeconds"].as_i64() {
                o.grace_period = Some(g);
            }
            if body["dryRun"]
                .as_array()
                .is_some_and(|a| a.iter().any(|v| v == "All"))
            {
                o.dry_run = true;
            }
        }
        let mut causes = Vec::new();
        if let Some(p) = &o.propagation {
            if o.orphan_dependents.is_some() {
                causes.push(Cause {
                    reason: "FieldValueInvalid".into(),
                    message: format!(
                        "Invalid value: \"{p}\": orphanDependents and deletionPropagation cannot be both set"
                    ),
                    field: "propagationPolicy".into(),
                });
            }
            if !matches!(p.as_str(), "Orphan" | "Background" | "Foreground") {
                causes.push(Cause {
                    reason: "FieldValueNotSupported".into(),
                    message: format!(
                        "Unsupported value: \"{p}\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
                    ),
                    field: "propagationPolicy".into(),
                });
            }
        }
        for v in dry_run_values(req, body.as_ref()) {
            if v != "All" {
                causes.push(Cause {
                    reason: "FieldValueNotSupported".into(),
                    message: format!("Unsupported value: \"{v}\": supported values: \"All\""),
                    field: "dryRun".into(),
                });
            }
        }
        if !causes.is_empty() {
            return Err(super::apply::options_invalid("DeleteOptions", causes));
        }
        Ok(o)
    }

    /// Whether the request names a policy (a policy named on a second DELETE of an object
    /// already being deleted replaces the garbage-collection finalizers).
    fn explicit_policy(&self) -> bool {
        self.propagation.is_some() || self.orphan_dependents.is_some()
    }

    /// The finalizers of `current` once this deletion is applied, as the real server's
    /// `deletionFinalizersForGarbageCollection` computes them: the user's ones, then
    /// `orphan` or `foregroundDeletion` as the policy (explicit, then already present, then
    /// the resource's default) asks.
    fn finalizers_for(&self, def: &ResourceDef, current: &Value) -> Vec<String> {
        let existing = meta::finalizers(current);
        let had_orphan = existing.iter().any(|f| f == ORPHAN);
        let had_foreground = existing.iter().any(|f| f == FOREGROUND);
        let orphan = match (self.orphan_dependents, self.propagation.as_deref()) {
            (Some(b), _) => b,
            (None, Some(p)) => p == "Orphan",
            (None, None) => had_orphan || (!had_foreground && orphans_by_default(def)),
        };
        let foreground = match (self.orphan_dependents, self.propagation.as_deref()) {
            (Some(_), _) => false,
            (None, Some(p)) => p == "Foreground",
            (None, None) => had_foreground,
        };
        let mut out: Vec<String> = existing
            .into_iter()
            .filter(|f| f != ORPHAN && f != FOREGROUND)
            .collect();
        if orphan {
            out.push(ORPHAN.to_string());
        }
        if foreground {
            out.push(FOREGROUND.to_string());
        }
        out
    }
}

/// The `dryRun` values of the query and the body.
fn dry_run_values(req: &Req, body: Option<&Value>) -> Vec<String> {
    let mut out: Vec<String> = req
        .query
        .get("dryRun")
        .map(str::to_string)
        .into_iter()
        .collect();
    if let Some(values) = body.and_then(|b| b["dryRun"].as_array()) {
        out.extend(values.iter().filter_map(Value::as_str).map(str::to_string));
    }
    out
}

/// Resources whose default policy is still Orphan: core/v1 ReplicationControllers, kept so
/// for backward compatibility by the real server; every other resource defaults to
/// Background.
fn orphans_by_default(def: &ResourceDef) -> bool {
    def.group.is_empty() && def.plural == "replicationcontrollers"
}

/// The grace period of a pod deletion, when the pod waits for its kubelet: it is bound to
/// a node, not finished, and the period (asked, or `terminationGracePeriodSeconds`,
/// default 30) is not zero. Negative periods count as 1 s, as on the real server.
fn pod_grace_period(def: &ResourceDef, pod: &Value, options: &DeleteOptions) -> Option<i64> {
    if !(def.group.is_empty() && def.plural == "pods") {
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

/// Whether the object was removed or is now waiting for finalizers.
pub enum Deleted {
    /// Gone from the store; the last state.
    Removed(Arc<Value>),
    /// Marked with deletionTimestamp; finalizers pending. The state right after marking
    /// (the garbage collector may already have finished the deletion).
    Pending(Arc<Value>),
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
    let is_namespace = def.group.is_empty() && def.plural == "namespaces";
    if is_namespace && matches!(name, "default" | "kube-system" | "kube-public") {
        return Err(ApiError::forbidden(
            def,
            name,
            "this namespace may not be deleted",
        ));
    }
    let is_crd = write::is_crd(def);
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
    marked["metadata"]["deletionGracePeriodSeconds"] = json!(grace_secs);
    if let Some(g) = marked["metadata"]["generation"].as_i64() {
        marked["metadata"]["generation"] = json!(g + 1);
    }
    set_finalizers(&mut marked, &finalizers);
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
    if is_namespace || is_crd {
        // The cascades may have finished the deletion already.
        return Ok(match cluster.store.get(&def.storage_key, ns, name) {
            Some(obj) => Deleted::Pending(obj),
            None => Deleted::Removed(stored),
        });
    }
    crate::gc::marked(cluster, def, &stored, ns);
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
    crate::gc::marked(cluster, def, &stored, ns);
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
    crate::gc::removed(cluster, &removed, ns);
    if !ns.is_empty() {
        finish_namespace_if_empty(cluster, ns);
    }
    if def.custom.is_some() {
        finish_crd_if_empty(cluster, def);
    }
    Some(removed)
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
        // A namespace can own cluster-scoped objects.
        if let Some(removed) = cluster.store.remove("/namespaces", "", ns, Some(last)) {
            crate::gc::removed(cluster, &removed, "");
        }
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
            // 202 only when `orphanDependents: false` was asked, as the real server (kept
            // for old clients); otherwise 200 with the object being deleted.
            Deleted::Pending(obj) => {
                let code = if options.orphan_dependents == Some(false) {
                    202
                } else {
                    200
                };
                Reply::json(code, write::as_version(def, &obj))
            }
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
