//! The `scale` subresource (`autoscaling/v1` Scale) over a kind's replica paths.

use std::sync::Arc;

use serde_json::{Value, json};

use super::patch_types::{PatchType, apply_patch};
use super::state::{Api, Cluster};
use super::subresource::Endpoint;
use super::update;
use crate::support::jsonpath;
use crate::support::meta;
use crate::support::request::Target;
use crate::support::request::{Reply, Req, json_body};
use crate::support::resource::{ResourceDef, ScaleSpec};
use crate::support::status::ApiError;

fn selector_string(spec: &ScaleSpec, object: &Value) -> Option<String> {
    if let Some(path) = &spec.label_selector_path
        && let Some(Value::String(s)) = jsonpath::first(object, path)
    {
        return Some(s.clone());
    }
    // Built-in workloads: the label selector is spec.selector.matchLabels.
    let labels = object["spec"]["selector"]["matchLabels"].as_object()?;
    let mut parts: Vec<String> = labels
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    parts.sort();
    Some(parts.join(","))
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
    if let Some(sel) = selector_string(spec, object) {
        status["selector"] = json!(sel);
    }
    let m = &object["metadata"];
    json!({
        "kind": "Scale", "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": m["name"], "namespace": m["namespace"], "uid": m["uid"],
            "resourceVersion": m["resourceVersion"], "creationTimestamp": m["creationTimestamp"],
        },
        "spec": {"replicas": replicas},
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
    req: &Req,
    target: &Target,
    scale: Value,
) -> Result<Reply, ApiError> {
    let (ns, name) = target_parts(target);
    let def = &target.def;
    let current = cluster
        .store
        .get(&def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(def, name))?;
    let replicas = scale["spec"]["replicas"].clone();
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
    let (stored, _) =
        update::update_object(cluster, def, ns, name, updated, Endpoint::Scale, &req.query)?;
    Ok(Reply::json(200, scale_of(def, &stored)))
}

/// PUT of `/scale`.
pub fn update(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let scale = json_body(req)?;
    let mut cluster = api.lock();
    write_scale(&mut cluster, req, target, scale)
}

/// PATCH of `/scale` (merge or JSON patch against the Scale object).
pub fn patch(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let kind = PatchType::from_content_type(&req.content_type)?;
    let doc = json_body(req)?;
    let (ns, name) = target_parts(target);
    let mut cluster = api.lock();
    let current = cluster
        .store
        .get(&target.def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(&target.def, name))?;
    let mut scale = scale_of(&target.def, &current);
    let kind = if kind == PatchType::Json {
        PatchType::Json
    } else {
        PatchType::Merge
    };
    apply_patch(&target.def, kind, &mut scale, &doc)?;
    write_scale(&mut cluster, req, target, scale)
}
