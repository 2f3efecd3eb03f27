//! PATCH: merge, JSON, strategic merge and apply patches on objects and their status.

use std::sync::Arc;

use serde_json::Value;

use super::fields::Fields;
use super::patch_types::{PatchType, apply_patch, check_patched, patch_body};
use super::state::Api;
use super::subresource::{endpoint_of, ns_of};
use super::update::update_object_as;
use super::{apply, options};
use crate::registry::stored::as_served;
use crate::support::json_order::{self, raw};
use crate::support::meta;
use crate::support::request::{Reply, Req, Target};
use crate::support::status::ApiError;

/// PATCH on an object, its status, or a namespace's finalize subresource. Apply patches go
/// to [`super::apply::apply`]; the others are update operations of the request's manager.
pub fn patch(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let kind = PatchType::from_content_type(&req.content_type)?;
    options::validate_patch_options(kind, &req.query)?;
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
    let mut working = as_served(def, &existing);
    let current_rv = meta::meta_str(&existing, "resourceVersion")
        .unwrap_or_default()
        .to_string();
    let original = (kind == PatchType::Strategic).then(|| working.clone());
    if kind == PatchType::Json && raw::holds_raw(&def.group, &def.version, &def.kind) {
        // The bytes a JSON patch leaves in raw values follow from the object's JSON.
        raw::json_patch_base(&working, &json_order::to_vec(&working));
    }
    apply_patch(def, kind, &mut working, &doc)?;
    let before = original.as_ref().unwrap_or(&Value::Null);
    let mut warnings = check_patched(def, kind, req, &doc, (before, &working))?;
    // What follows the decoding is answered with its warnings.
    let decoded = |mut e: ApiError| {
        if e.warnings.is_empty() {
            e.warnings = warnings.clone();
        }
        e
    };
    super::escalation::check_write(api, &cluster.store, req, target, &working, Some(&existing))
        .map_err(decoded)?;
    // A patch may carry a resourceVersion precondition; otherwise it applies to the latest.
    let patched_rv = meta::meta_str(&working, "resourceVersion")
        .unwrap_or_default()
        .to_string();
    if !patched_rv.is_empty() && patched_rv != current_rv {
        return Err(decoded(ApiError::conflict(def, name)));
    }
    meta::ensure_metadata(&mut working);
    working["metadata"]["resourceVersion"] = Value::String(current_rv);
    let (stored, admitted) = update_object_as(
        &mut cluster,
        def,
        ns,
        name,
        working,
        endpoint_of(target),
        &req.query,
        Fields::Update(options::update_manager(req)),
    )
    .map_err(decoded)?;
    warnings.extend(admitted);
    Ok(Reply::Json {
        code: 200,
        body: as_served(def, &stored),
        content_type: "application/json".into(),
        warnings,
    })
}
