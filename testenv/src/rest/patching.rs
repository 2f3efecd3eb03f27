//! PATCH: merge, JSON, strategic merge and apply patches on objects and their status.

use std::sync::Arc;

use serde_json::Value;

use super::write::{Endpoint, as_version, create_object, endpoint_of, ns_of, update_object};
use super::{Api, Cluster, Reply, Req, json_body, meta};
use crate::patch;
use crate::registry::ResourceDef;
use crate::rest::route::Target;
use crate::status::{ApiError, Cause};

/// The patch types of `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PatchType {
    /// `application/merge-patch+json`
    Merge,
    /// `application/json-patch+json`
    Json,
    /// `application/strategic-merge-patch+json`
    Strategic,
    /// `application/apply-patch+yaml` (server-side apply, approximated)
    Apply,
}

impl PatchType {
    /// Reads the patch type from the request's content type.
    pub fn from_content_type(ct: &str) -> Result<Self, ApiError> {
        let base = ct.split(';').next().unwrap_or_default().trim();
        match base {
            "application/merge-patch+json" => Ok(PatchType::Merge),
            "application/json-patch+json" => Ok(PatchType::Json),
            "application/strategic-merge-patch+json" => Ok(PatchType::Strategic),
            "application/apply-patch+yaml" | "application/apply-patch+cbor" => Ok(PatchType::Apply),
            other => Err(ApiError::unsupported_media_type(other)),
        }
    }
}

/// Applies a patch document of `kind` to `current`.
pub fn apply_patch(
    def: &ResourceDef,
    kind: PatchType,
    current: &mut Value,
    patch_doc: &Value,
) -> Result<(), ApiError> {
    let object_name = meta::meta_str(current, "name")
        .unwrap_or_default()
        .to_string();
    let bad = |e: patch::PatchError| match e {
        patch::PatchError::Malformed(_) => ApiError::bad_request(e.to_string()),
        patch::PatchError::Unsupported(_) => {
            ApiError::unsupported_media_type("application/strategic-merge-patch+json")
        }
        _ => ApiError::invalid(
            def,
            &object_name,
            vec![Cause {
                reason: "FieldValueInvalid".into(),
                message: e.to_string(),
                field: String::new(),
            }],
        ),
    };
    match kind {
        PatchType::Merge => {
            if !patch_doc.is_object() {
                return Err(ApiError::bad_request(
                    "a JSON merge patch must be a JSON object",
                ));
            }
            patch::merge_patch(current, patch_doc);
            Ok(())
        }
        PatchType::Json => patch::json_patch(current, patch_doc).map_err(|e| {
            let name = meta::meta_str(current, "name")
                .unwrap_or_default()
                .to_string();
            match e {
                patch::PatchError::Malformed(m) => {
                    ApiError::bad_request(format!("the JSON patch is malformed: {m}"))
                }
                other => ApiError::invalid(
                    def,
                    &name,
                    vec![Cause {
                        reason: "FieldValueInvalid".into(),
                        message: other.to_string(),
                        field: String::new(),
                    }],
                ),
            }
        }),
        PatchType::Strategic | PatchType::Apply => {
            if def.custom.is_some() {
                if kind == PatchType::Strategic {
                    return Err(ApiError::unsupported_media_type(
                        "application/strategic-merge-patch+json",
                    ));
                }
                patch::merge_patch(current, patch_doc);
                return Ok(());
            }
            patch::strategic::strategic_merge(current, patch_doc, &def.group, &def.kind)
                .map_err(bad)
        }
    }
}

/// Parses a patch body: YAML for apply patches, JSON otherwise.
fn patch_body(req: &Req, kind: PatchType) -> Result<Value, ApiError> {
    if kind == PatchType::Apply {
        let text =
            std::str::from_utf8(&req.body).map_err(|e| ApiError::bad_request(e.to_string()))?;
        serde_saphyr::from_str::<Value>(text)
            .map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}")))
    } else {
        json_body(req)
    }
}

/// PATCH on an object, its status, or a namespace's finalize subresource.
pub fn patch(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let kind = PatchType::from_content_type(&req.content_type)?;
    let doc = patch_body(req, kind)?;
    let name = target.name.as_deref().unwrap_or_default();
    let ns = ns_of(target);
    let def = &target.def;
    let mut cluster = api.lock();
    let existing = cluster.store.get(&def.storage_key, ns, name);
    if kind == PatchType::Apply {
        if req.query.get("fieldManager").is_none_or(str::is_empty) {
            return Err(ApiError::invalid(
                def,
                name,
                vec![Cause {
                    reason: "FieldValueRequired".into(),
                    message: "Required value: is required for apply patch".into(),
                    field: "fieldManager".into(),
                }],
            ));
        }
        if existing.is_none() && endpoint_of(target) == Endpoint::Main {
            let mut object = doc.clone();
            meta::ensure_metadata(&mut object);
            object["metadata"]["name"] = Value::String(name.to_string());
            let (stored, warnings) = create_object(
                &mut cluster,
                def,
                target.namespace.as_deref(),
                object,
                &req.query,
            )?;
            if !req.query.dry_run() {
                record_apply(&mut cluster, def, &stored, req, doc);
            }
            return Ok(Reply::Json {
                code: 201,
                body: as_version(def, &stored),
                content_type: "application/json".into(),
                warnings,
            });
        }
    }
    let existing = existing.ok_or_else(|| ApiError::not_found(def, name))?;
    let mut working = as_version(def, &existing);
    let current_rv = meta::meta_str(&existing, "resourceVersion")
        .unwrap_or_default()
        .to_string();
    let uid = meta::meta_str(&existing, "uid")
        .unwrap_or_default()
        .to_string();
    if kind == PatchType::Apply && endpoint_of(target) == Endpoint::Main {
        let manager = req.query.get("fieldManager").unwrap_or_default();
        cluster.applied.prune_dropped(
            (&def.storage_key, ns, name),
            &uid,
            manager,
            &doc,
            &mut working,
        );
    }
    apply_patch(def, kind, &mut working, &doc)?;
    // A patch may carry a resourceVersion precondition; otherwise it applies to the latest.
    let patched_rv = meta::meta_str(&working, "resourceVersion")
        .unwrap_or_default()
        .to_string();
    if !patched_rv.is_empty() && patched_rv != current_rv {
        return Err(ApiError::conflict(def, name));
    }
    meta::ensure_metadata(&mut working);
    working["metadata"]["resourceVersion"] = Value::String(current_rv);
    let (stored, warnings) = update_object(
        &mut cluster,
        def,
        ns,
        name,
        working,
        endpoint_of(target),
        &req.query,
    )?;
    if kind == PatchType::Apply && endpoint_of(target) == Endpoint::Main && !req.query.dry_run() {
        record_apply(&mut cluster, def, &stored, req, doc);
    }
    Ok(Reply::Json {
        code: 200,
        body: as_version(def, &stored),
        content_type: "application/json".into(),
        warnings,
    })
}

/// Remembers what the request's field manager applied to `stored`.
fn record_apply(
    cluster: &mut Cluster,
    def: &ResourceDef,
    stored: &Value,
    req: &Req,
    config: Value,
) {
    let ns = meta::meta_str(stored, "namespace")
        .unwrap_or_default()
        .to_string();
    let name = meta::meta_str(stored, "name")
        .unwrap_or_default()
        .to_string();
    let uid = meta::meta_str(stored, "uid")
        .unwrap_or_default()
        .to_string();
    let manager = req.query.get("fieldManager").unwrap_or_default();
    cluster
        .applied
        .record((&def.storage_key, &ns, &name), &uid, manager, config);
}
