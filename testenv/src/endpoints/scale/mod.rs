//! The `scale` subresource (`autoscaling/v1` Scale) over a kind's replica paths.
//!
//! Writes are recorded in the object's managedFields as the `scale` subresource: an update
//! through `/scale` as an Update entry of the request's manager, an apply through `/scale`
//! as kube-apiserver does it, on the Scale with managers converted from and back to the
//! object's (see [`managers`]).

mod managers;
mod preconditions;

use std::sync::Arc;

use serde_json::{Value, json};

use super::apply::conflict_error;
use super::body_type::check_type;
use super::fields::Fields;
use super::options;
use super::patch_types::{PatchType, apply_patch, check_patched};
use super::state::{Api, Cluster};
use super::subresource::Endpoint;
use super::update;
use crate::support::fieldmanager::{
    self, ApplyRequest, ManagedFields, Operation, Owner, Scope, Types,
};
use crate::support::jsonpath;
use crate::support::meta;
use crate::support::query::Query;
use crate::support::request::Target;
use crate::support::request::{Reply, Req, json_body};
use crate::support::resource::{ResourceDef, ScaleSpec};
use crate::support::status::ApiError;

fn selector_string(def: &ResourceDef, spec: &ScaleSpec, object: &Value) -> Option<String> {
    if let Some(path) = &spec.label_selector_path
        && let Some(Value::String(s)) = jsonpath::first(object, path)
    {
        return Some(s.clone());
    }
    // A custom resource has a selector only through its `labelSelectorPath`.
    if def.custom.is_some() {
        return None;
    }
    let selector = &object["spec"]["selector"];
    // A ReplicationController's selector is a map of labels; the apps workloads' a
    // `LabelSelector`.
    if def.group.is_empty() {
        let labels = selector.as_object()?;
        let mut parts: Vec<String> = labels
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
            .collect();
        parts.sort();
        return Some(parts.join(","));
    }
    selector
        .is_object()
        .then(|| label_selector_string(selector))
}

/// A `LabelSelector` as `metav1.LabelSelectorAsSelector(...).String()` writes it: one
/// requirement per label and per expression (`k=v`, `k in (a,b)`, `k notin (a)`, `k`,
/// `!k`), sorted by key.
fn label_selector_string(selector: &Value) -> String {
    crate::support::selector::text::label_selector_text(selector).unwrap_or_default()
}

/// The handler's check of a written Scale's name and namespace against the URL's
/// (`checkName`): a name is required and must be the URL's, a namespace, when given, too.
fn check_identity(ns: &str, name: &str, scale: &Value) -> Result<(), ApiError> {
    let body_name = meta::meta_str(scale, "name").unwrap_or_default();
    if body_name.is_empty() {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({name} based on URL) was undeterminable: name must be provided"
        )));
    }
    if body_name != name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({body_name}) does not match the name on the URL ({name})"
        )));
    }
    let body_ns = meta::meta_str(scale, "namespace").unwrap_or_default();
    if !body_ns.is_empty() && body_ns != ns {
        return Err(ApiError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        ));
    }
    Ok(())
}

fn scale_of(def: &ResourceDef, object: &Value) -> Value {
    let spec = def
        .scale
        .as_ref()
        .expect("scale subresource checked by the router");
    let replicas = jsonpath::first(object, &spec.spec_replicas_path)
        .cloned()
        .unwrap_or(json!(0));
    let observed = jsonpath::first(object, &spec.status_replicas_path)
        .cloned()
        .unwrap_or(json!(0));
    let mut status = json!({"replicas": observed});
    // `spec.replicas` is omitted when zero, as the Go type's `omitempty` writes it.
    let spec_of = if replicas == json!(0) {
        json!({})
    } else {
        json!({"replicas": replicas})
    };
    if let Some(sel) = selector_string(def, spec, object) {
        status["selector"] = json!(sel);
    }
    let m = &object["metadata"];
    json!({
        "kind": "Scale", "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": m["name"], "namespace": m["namespace"], "uid": m["uid"],
            "resourceVersion": m["resourceVersion"], "creationTimestamp": m["creationTimestamp"],
        },
        "spec": spec_of,
        "status": status,
    })
}

fn set_path(object: &mut Value, path: &str, value: Value) {
    let mut cur = object;
    let segs: Vec<&str> = path.trim_start_matches('.').split('.').collect();
    for (i, seg) in segs.iter().enumerate() {
        if i + 1 == segs.len() {
            cur[*seg] = value;
            return;
        }
        if !cur.get(*seg).is_some_and(Value::is_object) {
            cur[*seg] = json!({});
        }
        cur = &mut cur[*seg];
    }
}

fn target_parts(target: &Target) -> (&str, &str) {
    (
        target.namespace.as_deref().unwrap_or_default(),
        target.name.as_deref().unwrap_or_default(),
    )
}

/// The object a `/scale` request names, when it exists.
fn stored(cluster: &Cluster, target: &Target) -> Option<Arc<Value>> {
    let (ns, name) = target_parts(target);
    cluster.store.get(&target.def.storage_key, ns, name)
}

/// GET of `/scale`.
pub fn get(api: &Arc<Api>, _req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let (ns, name) = target_parts(target);
    let cluster = api.lock();
    let obj = cluster
        .store
        .get(&target.def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(&target.def, name))?;
    Ok(Reply::json(200, scale_of(&target.def, &obj)))
}

fn write_scale(
    cluster: &mut Cluster,
    target: &Target,
    scale: Value,
    query: &Query,
    applied: Option<ManagedFields>,
) -> Result<Reply, ApiError> {
    let (ns, name) = target_parts(target);
    let def = &target.def;
    let current = cluster
        .store
        .get(&def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(def, name))?;
    check_identity(ns, name, &scale)?;
    // An omitted (or null) count decodes as the Go type's zero.
    let replicas = match &scale["spec"]["replicas"] {
        Value::Null => json!(0),
        r => r.clone(),
    };
    // A custom resource's replicas are checked with the resource itself (its schema and
    // the scale subresource's paths); a built-in kind's by the Scale's own validation.
    let checked_here = def.custom.is_none() || !replicas.is_i64();
    if checked_here && (!replicas.is_i64() || replicas.as_i64().is_some_and(|r| r < 0)) {
        // The refusal names the Scale (autoscaling), whose validation refused it.
        let mut scale_def = (**def).clone();
        if def.custom.is_none() {
            scale_def.group = "autoscaling".into();
            scale_def.kind = "Scale".into();
        }
        return Err(ApiError::invalid(
            &scale_def,
            name,
            vec![crate::support::status::Cause {
                reason: "FieldValueInvalid".into(),
                message: format!("Invalid value: {replicas}: must be greater than or equal to 0"),
                field: "spec.replicas".into(),
            }],
        ));
    }
    let mut updated = (*current).clone();
    if let Some(rv) = meta::meta_str(&scale, "resourceVersion").filter(|s| !s.is_empty()) {
        updated["metadata"]["resourceVersion"] = json!(rv);
    }
    let spec = def
        .scale
        .as_ref()
        .expect("scale subresource checked by the router");
    set_path(&mut updated, &spec.spec_replicas_path, replicas);
    let (stored, warnings) = match applied {
        Some(managed) => update::update_object_as(
            cluster,
            def,
            ns,
            name,
            updated,
            Endpoint::Scale,
            query,
            Fields::Applied(managed),
        )?,
        None => update::update_object(cluster, def, ns, name, updated, Endpoint::Scale, query)?,
    };
    // The object's strategy warns of what the update bumps (a workload's pod template).
    let mut reply = Reply::json(200, scale_of(def, &stored));
    if let Reply::Json { warnings: w, .. } = &mut reply {
        *w = warnings;
    }
    Ok(reply)
}

/// The query of an update through `/scale`, naming its manager (`fieldManager`, else the
/// User-Agent's) as the update of the object records it.
fn update_query(req: &Req) -> Query {
    let mut query = req.query.clone();
    query.set("fieldManager", &options::update_manager(req));
    query
}

/// PUT of `/scale`.
pub fn update(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let scale = json_body(req)?;
    // A built-in kind's Scale is decoded as `autoscaling/v1` (other kinds refused as the
    // scheme refuses them) before anything else is checked.
    if target.def.custom.is_none() {
        check_type(&scale_def(), &mut scale.clone())?;
    }
    // The handler checks the name before the storage looks for the object.
    let (ns, name) = target_parts(target);
    check_identity(ns, name, &scale)?;
    let mut cluster = api.lock();
    if let Some(current) = stored(&cluster, target) {
        preconditions::put_uid(&target.def, &current, &scale)?;
    }
    write_scale(&mut cluster, target, scale, &update_query(req), None)
}

/// PATCH of `/scale`: a merge or JSON patch against the Scale object, or a server-side
/// apply of a Scale.
pub fn patch(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let kind = PatchType::from_content_type(&req.content_type)?;
    if kind == PatchType::Apply {
        options::validate_patch_options(kind, &req.query)?;
        return apply(api, req, target, json_body(req)?);
    }
    let doc = json_body(req)?;
    let (ns, name) = target_parts(target);
    let mut cluster = api.lock();
    let current = cluster
        .store
        .get(&target.def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(&target.def, name))?;
    let mut scale = scale_of(&target.def, &current);
    let original = scale.clone();
    // A built-in kind's Scale takes a strategic merge patch as the Scale type (which has no
    // patch strategies, but whose directives apply); a merge or JSON patch is checked
    // against the object's kind.
    match kind {
        PatchType::Strategic if target.def.custom.is_none() => {
            apply_patch(&scale_def(), kind, &mut scale, &doc)?;
        }
        PatchType::Json => apply_patch(&target.def, kind, &mut scale, &doc)?,
        _ => apply_patch(&target.def, PatchType::Merge, &mut scale, &doc)?,
    }
    // The result is decoded as a Scale: its unknown fields are warned of (or refused).
    let decoded = check_patched(&scale_def(), kind, req, &doc, (&original, &scale))?;
    let with_decoded = |mut warnings: Vec<String>| {
        let mut all = decoded.clone();
        all.append(&mut warnings);
        all
    };
    check_identity(ns, name, &scale)
        .and_then(|()| preconditions::patch_uid(&target.def, &current, &scale))
        .and_then(|()| write_scale(&mut cluster, target, scale, &update_query(req), None))
        .map(|reply| match reply {
            Reply::Json {
                code,
                body,
                content_type,
                warnings,
            } => Reply::Json {
                code,
                body,
                content_type,
                warnings: with_decoded(warnings),
            },
            other => other,
        })
        .map_err(|mut e| {
            e.warnings = with_decoded(std::mem::take(&mut e.warnings));
            e
        })
}

/// The Scale kind, whose schema types an applied Scale.
fn scale_def() -> ResourceDef {
    ResourceDef::named("autoscaling", "v1", "Scale", "scales")
}

/// A server-side apply of a Scale: the object's managers that own its replicas become the
/// Scale's (in `autoscaling/v1`), the configuration is applied to the Scale (conflicts,
/// `before-first-apply` when none owns them), and the Scale's managers go back to the
/// object (see [`managers`]) with the replicas written.
fn apply(api: &Arc<Api>, req: &Req, target: &Target, config: Value) -> Result<Reply, ApiError> {
    let (ns, name) = target_parts(target);
    let def = &target.def;
    let mut cluster = api.lock();
    let current = cluster
        .store
        .get(&def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(def, name))?;
    let spec = def
        .scale
        .as_ref()
        .expect("scale subresource checked by the router");
    let replicas = managers::replicas_path(&spec.spec_replicas_path);
    let parent = ManagedFields::of_object(&current).unwrap_or_default();
    let scale_managers = managers::to_scale(&parent, &replicas);
    let live = scale_of(def, &current);
    let kind = scale_def();
    let request = ApplyRequest {
        owner: Owner {
            manager: req
                .query
                .get("fieldManager")
                .unwrap_or_default()
                .to_string(),
            operation: Operation::Apply,
            api_version: kind.api_version(),
            subresource: "scale".into(),
        },
        force: req.query.flag("force"),
        scope: Scope::WithoutStatus,
    };
    let (applied, after) = fieldmanager::apply(
        Types::of(&kind),
        Some(&live),
        scale_managers,
        &config,
        &request,
        &meta::now(),
    )
    .map_err(|e| conflict_error(e, &kind, &config))?;
    let mut scale = live;
    scale["spec"]["replicas"] = applied["spec"]["replicas"].clone();
    let managed = managers::to_parent(&parent, &after, &replicas, &def.api_version());
    write_scale(&mut cluster, target, scale, &req.query, Some(managed))
}
