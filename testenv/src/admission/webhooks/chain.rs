//! Admission webhooks around the write handlers, in kube-apiserver's order: mutating
//! webhooks, then schema/built-in validation, then validating webhooks, then ResourceQuota
//! and storage.
//!
//! The handlers run under the cluster lock (those of a custom kind converted by its CRD's
//! webhook also call that webhook, outside the lock), so a write with webhooks is made of
//! several runs of the ordinary handler, none holding the lock across a webhook call:
//! 1. the request itself in dry-run, stopping admission before validation: the object the
//!    mutating webhooks see, and (for updates) the resourceVersion it was based on;
//! 2. the mutating webhooks;
//! 3. a full-object write of the result (POST for a create, PUT with the old
//!    resourceVersion as precondition otherwise) in dry-run with full validation but
//!    ResourceQuota (which comes after the validating webhooks): the final object;
//! 4. the validating webhooks, concurrently;
//! 5. the same full-object write with ResourceQuota, for real (in dry-run when the request
//!    was one, answering step 3's object); a create keeps the uid and creationTimestamp of
//!    step 3, which validating webhooks saw (`Req::assigned`).
//!
//! A DELETE reads the object, calls the mutating webhooks (which may refuse it but have no
//! object to change), then the validating ones, then deletes; a DELETE of a collection does
//! so for each object in turn and stops at the first refusal, as the real server's single
//! collection-delete worker does.
//!
//! When a later step meets a newer resourceVersion and the client set no precondition,
//! everything starts over (bounded), as the real server's GuaranteedUpdate does.
//! Without any matching configuration none of this happens.

use std::sync::Arc;

use bytes::Bytes;
use futures::future::BoxFuture;
use http::Method;
use serde_json::{Value, json};

use super::config::{self, Hook, Operation};
use super::dispatch::{self, Matched};
use super::review::{Attributes, Decider};
use super::selection;
use crate::registry::Registry;
use crate::storage::Store;
use crate::support::go_decode::Decoding;
use crate::support::meta;
use crate::support::query::Query;
use crate::support::request::{Assigned, Reply, Req, Target};
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;
use crate::support::webhook_client::Transport;

/// The API server the chain runs in, as the endpoints hand it over: the write handler the
/// chain wraps (run several times, never holding the store lock across a webhook call), the
/// stored Namespaces (for `namespaceSelector`), and where webhook calls go.
pub trait Backend: Sync {
    /// Runs the handler of a request without admission webhooks.
    fn handle<'a>(
        &'a self,
        req: &'a Req,
        target: &'a Target,
    ) -> BoxFuture<'a, Result<Reply, ApiError>>;
    /// The stored Namespace `name`, if any.
    fn namespace(&self, name: &str) -> Option<Arc<Value>>;
    /// Where webhook calls go, and the connections they reuse.
    fn transport(&self) -> &Transport;
    /// The authorizer the webhooks' match conditions ask (RBAC as stored now).
    fn authorizer(&self) -> Decider;
    /// How the request's objects are converted for a webhook matched through another
    /// version of their kind.
    fn versions(&self) -> &dyn dispatch::Convert;
}

/// Where `backend` calls webhooks.
fn calls(backend: &dyn Backend) -> dispatch::Calls<'_> {
    dispatch::Calls {
        transport: backend.transport(),
        convert: backend.versions(),
    }
}

/// How many times a write with webhooks starts over after a conflict it caused itself.
const MAX_ATTEMPTS: usize = 8;

/// The webhook configurations that may apply to one request.
pub struct Plan {
    mutating: Vec<Hook>,
    validating: Vec<Hook>,
    /// Every served version of the request's resource (for matchPolicy Equivalent).
    versions: Vec<Arc<ResourceDef>>,
}

/// What kind of write a request is, as far as admission is concerned.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// POST on a collection.
    Create,
    /// PUT, or PATCH (an apply patch may turn out to create).
    Write,
    /// DELETE of one object.
    Delete,
    /// DELETE of a collection: each object is validated as a DELETE of its own.
    DeleteCollection,
}

fn kind_of(req: &Req, target: &Target) -> Option<Kind> {
    let named = target.name.is_some();
    match req.method {
        Method::POST if !named && target.subresource.is_none() => Some(Kind::Create),
        Method::PUT | Method::PATCH if named => Some(Kind::Write),
        Method::DELETE if named && target.subresource.is_none() => Some(Kind::Delete),
        Method::DELETE if target.subresource.is_none() => Some(Kind::DeleteCollection),
        _ => None,
    }
}

fn operations(kind: Kind) -> &'static [Operation] {
    match kind {
        Kind::Create => &[Operation::Create],
        Kind::Write => &[Operation::Update, Operation::Create],
        Kind::Delete | Kind::DeleteCollection => &[Operation::Delete],
    }
}

/// Whether webhooks could apply to this request at all: a write (not of a webhook
/// configuration: a broken webhook could otherwise lock every configuration change out), so
/// that reads never look at the stored configurations.
pub fn may_apply(req: &Req, target: &Target) -> bool {
    kind_of(req, target).is_some()
        && target.def.group != "admissionregistration.k8s.io"
        && !target.def.create_only
}

/// The configurations whose rules cover this request, or `None` (the fast path: the
/// request is handled as if no webhook existed).
pub fn plan(store: &Store, registry: &Registry, req: &Req, target: &Target) -> Option<Plan> {
    if !may_apply(req, target) {
        return None;
    }
    let kind = kind_of(req, target)?;
    let has_any = |key: &str| store.bucket(key).is_some_and(|b| !b.is_empty());
    if !has_any(config::MUTATING_KEY) && !has_any(config::VALIDATING_KEY) {
        return None;
    }
    // Only custom resources have equivalent versions to match (matchPolicy Equivalent).
    let versions: Vec<Arc<ResourceDef>> = if target.def.custom.is_some() {
        registry
            .by_storage_key(&target.def.storage_key)
            .cloned()
            .collect()
    } else {
        Vec::new()
    };
    let sub = target.subresource.as_deref();
    let covers = |h: &Hook| {
        operations(kind).iter().any(|op| {
            h.matching_version(*op, &target.def, sub, &versions)
                .is_some()
        })
    };
    let mut mutating = config::load(store, config::MUTATING_KEY);
    let mut validating = config::load(store, config::VALIDATING_KEY);
    mutating.retain(covers);
    validating.retain(covers);
    if mutating.is_empty() && validating.is_empty() {
        return None;
    }
    Some(Plan {
        mutating,
        validating,
        versions,
    })
}

/// Runs a request whose [`plan`] found webhooks.
pub async fn run(
    backend: &dyn Backend,
    req: &Req,
    target: &Target,
    plan: Plan,
) -> Result<Reply, ApiError> {
    match kind_of(req, target) {
        Some(Kind::Delete) => delete(backend, req, target, &plan).await,
        Some(Kind::DeleteCollection) => delete_collection(backend, req, target, &plan).await,
        Some(_) => write(backend, req, target, &plan).await,
        None => backend.handle(req, target).await,
    }
}

/// The webhooks of `hooks` that apply to `attrs` (see [`selection::select`]).
fn select(
    backend: &dyn Backend,
    hooks: &[Hook],
    attrs: &Attributes,
    versions: &[Arc<ResourceDef>],
) -> Result<Vec<Matched>, ApiError> {
    if hooks.is_empty() {
        return Ok(Vec::new());
    }
    selection::select(&|ns| backend.namespace(ns), hooks, attrs, versions)
}

/// The reply's parts (every write handler answers with JSON).
fn parts(reply: Reply) -> Result<(u16, Value, Vec<String>), ApiError> {
    match reply {
        Reply::Json {
            code,
            body,
            warnings,
            ..
        } => Ok((code, body, warnings)),
        Reply::Watch(_) | Reply::ProtobufWatch(_) => {
            Err(ApiError::internal("a write answered with a watch"))
        }
        Reply::Raw { .. } | Reply::Cacheable { .. } => {
            Err(ApiError::internal("a write answered without an object"))
        }
    }
}

/// A resourceVersion conflict, which a write without a precondition retries (an apply's
/// field conflicts, named in its causes, are the answer).
fn is_conflict(e: &ApiError) -> bool {
    e.code == 409 && e.reason == "Conflict" && e.details.get("causes").is_none()
}

/// A request the server makes to itself on behalf of `req`. A body of its own was written
/// by the server, so what decoding found in the request's body no longer applies.
fn inner(req: &Req, method: Method, body: Option<&Value>, mut query: Query) -> Req {
    if body.is_some() {
        query.set_decoding(Decoding::default());
    }
    Req {
        method,
        path: req.path.clone(),
        query,
        accept: "application/json".into(),
        content_type: "application/json".into(),
        body: body.map_or_else(Bytes::new, |b| {
            Bytes::from(serde_json::to_vec(b).unwrap_or_default())
        }),
        user_agent: req.user_agent.clone(),
        bearer: req.bearer.clone(),
        user: req.user.clone(),
        assigned: None,
    }
}

fn dry_run(query: &Query) -> Query {
    let mut q = query.clone();
    q.set("dryRun", "All");
    q
}

/// The request body as JSON (YAML for apply patches), if it parses.
fn body_value(req: &Req) -> Option<Value> {
    serde_json::from_slice(&req.body).ok().or_else(|| {
        std::str::from_utf8(&req.body)
            .ok()
            .and_then(|t| serde_saphyr::from_str::<Value>(t).ok())
    })
}

/// `CreateOptions` / `UpdateOptions` of a write.
fn write_options(op: Operation, query: &Query) -> Value {
    let kind = if op == Operation::Create {
        "CreateOptions"
    } else {
        "UpdateOptions"
    };
    let mut options = json!({"kind": kind, "apiVersion": "meta.k8s.io/v1"});
    if query.dry_run() {
        options["dryRun"] = json!(["All"]);
    }
    for field in ["fieldManager", "fieldValidation"] {
        if let Some(v) = query.get(field).filter(|v| !v.is_empty()) {
            options[field] = json!(v);
        }
    }
    options
}

fn rv_of(object: &Value) -> &str {
    meta::meta_str(object, "resourceVersion").unwrap_or_default()
}

fn merge_warnings(into: &mut Vec<String>, more: Vec<String>) {
    for w in more {
        if !into.contains(&w) {
            into.push(w);
        }
    }
}

/// The current object (or Scale) in the request's version, if it exists.
async fn current(backend: &dyn Backend, req: &Req, target: &Target) -> Option<Value> {
    let get = inner(req, Method::GET, None, Query::default());
    backend
        .handle(&get, target)
        .await
        .ok()
        .and_then(|r| parts(r).ok())
        .map(|(_, body, _)| body)
}

enum Attempt {
    Done(Result<Reply, ApiError>),
    Again,
}

async fn write(
    backend: &dyn Backend,
    req: &Req,
    target: &Target,
    plan: &Plan,
) -> Result<Reply, ApiError> {
    let precondition = body_value(req).is_some_and(|b| meta::sets_resource_version(&b));
    for _ in 0..MAX_ATTEMPTS {
        match write_attempt(backend, req, target, plan, precondition).await {
            Attempt::Done(result) => return result,
            Attempt::Again => continue,
        }
    }
    Err(ApiError::conflict(
        &target.def,
        target.name.as_deref().unwrap_or_default(),
    ))
}

async fn write_attempt(
    backend: &dyn Backend,
    req: &Req,
    target: &Target,
    plan: &Plan,
    precondition: bool,
) -> Attempt {
    let retry_or = |e: ApiError| {
        if is_conflict(&e) && !precondition {
            Attempt::Again
        } else {
            Attempt::Done(Err(e))
        }
    };
    // Phase 1: the object the mutating webhooks see.
    let old = match req.method {
        Method::POST => None,
        _ => current(backend, req, target).await,
    };
    let first = inner(
        req,
        req.method.clone(),
        None,
        dry_run(&req.query).stop_before_validation(),
    );
    let first = Req {
        body: req.body.clone(),
        content_type: req.content_type.clone(),
        ..first
    };
    let (code, mut object, mut warnings) =
        match backend.handle(&first, target).await.and_then(parts) {
            Ok(p) => p,
            Err(e) => return retry_or(e),
        };
    let operation = if code == 201 {
        Operation::Create
    } else {
        Operation::Update
    };
    let old = if operation == Operation::Create {
        None
    } else {
        match old {
            Some(old) if rv_of(&old) == rv_of(&object) => Some(old),
            // Changed between the read and the dry run: read again.
            _ => return Attempt::Again,
        }
    };
    let generated_name = operation == Operation::Create
        && body_value(req).is_some_and(|b| {
            b["metadata"]["name"].as_str().is_none_or(str::is_empty) && target.name.is_none()
        });
    if operation == Operation::Create
        && let Some(m) = object["metadata"].as_object_mut()
    {
        // Set by the storage layer after mutating admission, as on the real server.
        for field in ["uid", "creationTimestamp", "generation", "resourceVersion"] {
            m.remove(field);
        }
        if generated_name {
            m.remove("name");
        }
    }
    let mut attrs = Attributes {
        operation,
        def: target.def.clone(),
        subresource: target.subresource.clone(),
        namespace: target.namespace.clone().unwrap_or_default(),
        name: target
            .name
            .clone()
            .or_else(|| meta::meta_str(&object, "name").map(str::to_string))
            .unwrap_or_default(),
        object: Some(object),
        old_object: old.clone(),
        dry_run: req.query.dry_run(),
        user: req.user.clone(),
        options: write_options(operation, &req.query),
        authorizer: Some(backend.authorizer()),
    };
    if target.namespace.is_none() && target.def.namespaced {
        attrs.namespace = attrs
            .object
            .as_ref()
            .and_then(|o| meta::meta_str(o, "namespace"))
            .unwrap_or_default()
            .to_string();
    }
    // Phase 2: mutating webhooks.
    let mutating = match select(backend, &plan.mutating, &attrs, &plan.versions) {
        Ok(m) => m,
        Err(e) => return Attempt::Done(Err(e)),
    };
    if let Err(e) = dispatch::mutate(calls(backend), &mutating, &mut attrs, &mut warnings).await {
        return Attempt::Done(Err(e));
    }
    let mut mutated = attrs.object.take().unwrap_or(Value::Null);
    let (method, write_target) = if operation == Operation::Create {
        let collection = Target {
            name: None,
            subresource: None,
            ..target.clone()
        };
        (Method::POST, collection)
    } else {
        if let Some(rv) = old.as_ref().map(rv_of) {
            meta::ensure_metadata(&mut mutated);
            mutated["metadata"]["resourceVersion"] = json!(rv);
        }
        (Method::PUT, target.clone())
    };
    // Phase 3: validation of the full object, without storing it.
    // The first phase recorded the request's managedFields; the replays store them as they are.
    let mut full_query = req.query.clone().managed_fields_computed();
    // Unknown fields were reported on the request; webhooks' additions are pruned quietly.
    full_query.set("fieldValidation", "Ignore");
    // ResourceQuota comes after the validating webhooks: the last phase checks it.
    let check = inner(
        req,
        method.clone(),
        Some(&mutated),
        dry_run(&full_query).stop_before_quota(),
    );
    let (check_code, checked, more) =
        match backend.handle(&check, &write_target).await.and_then(parts) {
            Ok(p) => p,
            Err(e) => return retry_or(e),
        };
    merge_warnings(&mut warnings, more);
    // Phase 4: validating webhooks see the final object.
    if operation == Operation::Create
        && let Some(name) = meta::meta_str(&checked, "name")
    {
        attrs.name = name.to_string();
        meta::ensure_metadata(&mut mutated);
        mutated["metadata"]["name"] = json!(name);
    }
    attrs.object = Some(checked.clone());
    let validating = match select(backend, &plan.validating, &attrs, &plan.versions) {
        Ok(v) => v,
        Err(e) => return Attempt::Done(Err(e)),
    };
    if let Err(e) = dispatch::validate(calls(backend), &validating, &attrs, &mut warnings).await {
        return Attempt::Done(Err(e));
    }
    // Phase 5: ResourceQuota, and the store (a dry run answers what phase 3 made).
    let commit = inner(req, method, Some(&mutated), full_query);
    let commit = Req {
        assigned: Assigned::of(&checked).filter(|_| operation == Operation::Create),
        ..commit
    };
    let (code, body) = match backend.handle(&commit, &write_target).await.and_then(parts) {
        Ok(_) if req.query.dry_run() => (check_code, checked),
        Ok((code, body, more)) => {
            merge_warnings(&mut warnings, more);
            (code, body)
        }
        Err(e) => return retry_or(e),
    };
    Attempt::Done(Ok(Reply::Json {
        code,
        body,
        content_type: "application/json".into(),
        warnings,
    }))
}

/// `DeleteOptions` of a delete request (body and query).
fn delete_options(req: &Req) -> Value {
    let mut options = body_value(req)
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    options["kind"] = json!("DeleteOptions");
    options["apiVersion"] = json!("meta.k8s.io/v1");
    if req.query.dry_run() {
        options["dryRun"] = json!(["All"]);
    }
    if let Some(p) = req.query.get("propagationPolicy") {
        options["propagationPolicy"] = json!(p);
    }
    options
}

/// The admission attributes of deleting `old`: the request's namespace and name (none for
/// a collection, whose objects are told apart by `oldObject` alone).
fn delete_attributes(backend: &dyn Backend, req: &Req, target: &Target, old: Value) -> Attributes {
    let options = delete_options(req);
    Attributes {
        operation: Operation::Delete,
        def: target.def.clone(),
        subresource: None,
        namespace: target.namespace.clone().unwrap_or_default(),
        name: target.name.clone().unwrap_or_default(),
        object: None,
        old_object: Some(old),
        user: req.user.clone(),
        dry_run: req.query.dry_run()
            || options["dryRun"]
                .as_array()
                .is_some_and(|a| a.iter().any(|v| v == "All")),
        options,
        authorizer: Some(backend.authorizer()),
    }
}

fn with_warnings(reply: Reply, mut warnings: Vec<String>) -> Reply {
    reply.edit_json(|_, _, _, more| {
        merge_warnings(&mut warnings, std::mem::take(more));
        *more = warnings;
    })
}

async fn delete(
    backend: &dyn Backend,
    req: &Req,
    target: &Target,
    plan: &Plan,
) -> Result<Reply, ApiError> {
    let Some(old) = current(backend, req, target).await else {
        // Not there: the handler answers NotFound.
        return backend.handle(req, target).await;
    };
    let mut attrs = delete_attributes(backend, req, target, old);
    let mut warnings = Vec::new();
    admit_delete(backend, plan, &mut attrs, &mut warnings).await?;
    Ok(with_warnings(backend.handle(req, target).await?, warnings))
}

/// The admission of deleting `attrs.old_object`: mutating webhooks (they may refuse, not
/// patch), then validating webhooks.
async fn admit_delete(
    backend: &dyn Backend,
    plan: &Plan,
    attrs: &mut Attributes,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError> {
    let mutating = select(backend, &plan.mutating, attrs, &plan.versions)?;
    dispatch::mutate(calls(backend), &mutating, attrs, warnings).await?;
    let validating = select(backend, &plan.validating, attrs, &plan.versions)?;
    dispatch::validate(calls(backend), &validating, attrs, warnings).await
}

/// DELETE of a collection with webhooks: the selected objects are admitted as a DELETE each
/// and deleted one after the other, in list order; the first refusal or failure ends the
/// request with its error, the objects deleted before it staying deleted (the real
/// server's collection delete, with its default single worker).
async fn delete_collection(
    backend: &dyn Backend,
    req: &Req,
    target: &Target,
    plan: &Plan,
) -> Result<Reply, ApiError> {
    let mut list_query = Query::default();
    for key in ["labelSelector", "fieldSelector"] {
        if let Some(v) = req.query.get(key) {
            list_query.set(key, v);
        }
    }
    let list_req = inner(req, Method::GET, None, list_query);
    let (_, list, _) = parts(backend.handle(&list_req, target).await?)?;
    let mut warnings = Vec::new();
    let mut items = Vec::new();
    for old in list["items"].as_array().cloned().unwrap_or_default() {
        let mut old = old;
        // List items carry no apiVersion/kind; webhooks get whole objects.
        old["apiVersion"] = json!(target.def.api_version());
        old["kind"] = json!(target.def.kind);
        let name = meta::meta_str(&old, "name").unwrap_or_default().to_string();
        let namespace = meta::meta_str(&old, "namespace").map(str::to_string);
        let mut attrs = delete_attributes(backend, req, target, old.clone());
        admit_delete(backend, plan, &mut attrs, &mut warnings).await?;
        let one = Target {
            name: Some(name),
            namespace: namespace.filter(|n| !n.is_empty()),
            ..target.clone()
        };
        let single = Req {
            body: req.body.clone(),
            query: req.query.clone(),
            ..inner(req, Method::DELETE, None, Query::default())
        };
        match backend.handle(&single, &one).await.and_then(parts) {
            // 202: still there, waiting for finalizers; the object is the answer.
            Ok((202, body, _)) => items.push(body),
            Ok(_) => items.push(old),
            Err(e) if e.code == 404 => {}
            Err(e) => return Err(e),
        }
    }
    let rv = list["metadata"]["resourceVersion"].clone();
    Ok(with_warnings(
        Reply::json(
            200,
            json!({
                "apiVersion": target.def.api_version(),
                "kind": target.def.list_kind(),
                "metadata": {"resourceVersion": rv},
                "items": items,
            }),
        ),
        warnings,
    ))
}
