//! PATCH: merge, JSON, strategic merge and apply patches on objects and their status.

use std::sync::Arc;

use serde_json::Value;

use super::write::{Fields, as_version, endpoint_of, ns_of, update_object_as};
use super::{Api, Reply, Req, apply, json_body, meta};
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
    /// `application/apply-patch+yaml` (server-side apply, see [`super::apply`])
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

/// Applies a merge, JSON or strategic merge patch document to `current`.
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
        PatchType::Strategic => {
            if def.custom.is_some() {
                return Err(ApiError::unsupported_media_type(
                    "application/strategic-merge-patch+json",
                ));
            }
            patch::strategic::strategic_merge(current, patch_doc, &def.group, &def.kind)
                .map_err(bad)
        }
        // An apply patch needs the field manager (managers, conflicts): it is served by
        // `apply::apply`, never as a plain document patch.
        PatchType::Apply => Err(ApiError::unsupported_media_type(
            "application/apply-patch+yaml",
        )),
    }
}

/// Whether a write's body asks for a resourceVersion precondition: a JSON patch (an array
/// of operations) touching `/metadata/resourceVersion`, or an object (a patch or a whole
/// object) setting `metadata.resourceVersion`. A conflict is then the client's answer, not
/// a reason for the server to start its write over.
pub fn sets_resource_version(doc: &Value) -> bool {
    match doc.as_array() {
        Some(ops) => ops
            .iter()
            .any(|op| op["path"].as_str() == Some("/metadata/resourceVersion")),
        None => doc["metadata"]["resourceVersion"]
            .as_str()
            .is_some_and(|s| !s.is_empty()),
    }
}

/// Parses a patch body: YAML for apply patches (JSON, which is YAML, read directly), JSON
/// otherwise.
pub fn patch_body(req: &Req, kind: PatchType) -> Result<Value, ApiError> {
    if kind == PatchType::Apply {
        if let Ok(v) = serde_json::from_slice::<Value>(&req.body) {
            return Ok(v);
        }
        let text =
            std::str::from_utf8(&req.body).map_err(|e| ApiError::bad_request(e.to_string()))?;
        serde_saphyr::from_str::<Value>(text)
            .map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}")))
    } else {
        json_body(req)
    }
}

/// PATCH on an object, its status, or a namespace's finalize subresource. Apply patches go
/// to [`super::apply::apply`]; the others are update operations of the request's manager.
pub fn patch(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let kind = PatchType::from_content_type(&req.content_type)?;
    apply::validate_patch_options(kind, &req.query)?;
    let doc = patch_body(req, kind)?;
    if kind == PatchType::Apply {
        return apply::apply(api, req, target, doc);
    }
    let name = target.name.as_deref().unwrap_or_default();
    let ns = ns_of(target);
    let def = &target.def;
    let mut cluster = api.lock();
    let existing = cluster
        .store
        .get(&def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(def, name))?;
    let mut working = as_version(def, &existing);
    let current_rv = meta::meta_str(&existing, "resourceVersion")
        .unwrap_or_default()
        .to_string();
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
    let (stored, warnings) = update_object_as(
        &mut cluster,
        def,
        ns,
        name,
        working,
        endpoint_of(target),
        &req.query,
        Fields::Update(apply::update_manager(req)),
    )?;
    Ok(Reply::Json {
        code: 200,
        body: as_version(def, &stored),
        content_type: "application/json".into(),
        warnings,
    })
}
