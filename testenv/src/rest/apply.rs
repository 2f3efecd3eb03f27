//! Server-side apply requests (`application/apply-patch+yaml`) and the request options of
//! field management (`fieldManager`, `force`), checked as the real server checks them.
//!
//! The merge, conflicts and managedFields bookkeeping are in [`crate::fieldmanager`].

use std::sync::Arc;

use serde_json::{Value, json};

use super::patching::PatchType;
use super::write::{
    Endpoint, Fields, as_version, create_object_as, endpoint_of, ns_of, update_object_as,
};
use super::{Api, Query, Reply, Req, meta};
use crate::fieldmanager::{
    self, ApplyError, ApplyRequest, ManagedFields, Operation, Owner, Scope, Types,
};
use crate::rest::route::Target;
use crate::status::{ApiError, Cause};

/// The longest `fieldManager` the real server accepts.
pub const FIELD_MANAGER_MAX: usize = 128;

/// A 422 about request options (`PatchOptions.meta.k8s.io "" is invalid: ...`), as the
/// real server reports invalid Create-, Update-, Patch- and DeleteOptions.
pub fn options_invalid(kind: &str, causes: Vec<Cause>) -> ApiError {
    let summary: Vec<String> = causes
        .iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect();
    let summary = if summary.len() == 1 {
        summary[0].clone()
    } else {
        format!("[{}]", summary.join(", "))
    };
    ApiError {
        code: 422,
        reason: "Invalid",
        message: format!("{kind}.meta.k8s.io \"\" is invalid: {summary}"),
        details: json!({
            "group": "meta.k8s.io",
            "kind": kind,
            "causes": causes.iter().map(|c| json!({"reason": c.reason, "message": c.message, "field": c.field})).collect::<Vec<_>>(),
        }),
    }
}

fn field_manager_causes(query: &Query) -> Vec<Cause> {
    let manager = query.get("fieldManager").unwrap_or_default();
    let mut causes = Vec::new();
    if manager.len() > FIELD_MANAGER_MAX {
        causes.push(Cause {
            reason: "FieldValueTooLong".into(),
            message: format!("Too long: may not be more than {FIELD_MANAGER_MAX} bytes"),
            field: "fieldManager".into(),
        });
    }
    if let Some((i, c)) = manager.char_indices().find(|(_, c)| c.is_control()) {
        causes.push(Cause {
            reason: "FieldValueInvalid".into(),
            message: format!(
                "Invalid value: {manager:?}: invalid character U+{:04X} (at position {i})",
                c as u32
            ),
            field: "fieldManager".into(),
        });
    }
    causes
}

/// Checks `fieldManager` of a create (`CreateOptions`) or update (`UpdateOptions`).
pub fn validate_write_options(options_kind: &str, query: &Query) -> Result<(), ApiError> {
    let causes = field_manager_causes(query);
    if causes.is_empty() {
        Ok(())
    } else {
        Err(options_invalid(options_kind, causes))
    }
}

/// Checks the options of a PATCH: `force` only on apply, `fieldManager` required for apply
/// and at most 128 printable characters.
pub fn validate_patch_options(kind: PatchType, query: &Query) -> Result<(), ApiError> {
    let mut causes = Vec::new();
    if kind != PatchType::Apply {
        if query.get("force").is_some() {
            causes.push(Cause {
                reason: "FieldValueForbidden".into(),
                message: "Forbidden: may not be specified for non-apply patch".into(),
                field: "force".into(),
            });
        }
    } else if query.get("fieldManager").is_none_or(str::is_empty) {
        causes.push(Cause {
            reason: "FieldValueRequired".into(),
            message: "Required value: is required for apply patch".into(),
            field: "fieldManager".into(),
        });
    }
    causes.extend(field_manager_causes(query));
    if causes.is_empty() {
        Ok(())
    } else {
        Err(options_invalid("PatchOptions", causes))
    }
}

/// The manager an update request (create, PUT, non-apply PATCH) writes as.
pub fn update_manager(req: &Req) -> String {
    fieldmanager::default_manager(req.query.get("fieldManager"), &req.user_agent)
}

/// Refuses applied configurations the real server refuses: not an object, another
/// apiVersion or kind, managedFields set, another name than the URL's.
fn check_config(target: &Target, config: &Value) -> Result<(), ApiError> {
    let def = &target.def;
    if !config.is_object() {
        return Err(ApiError::bad_request(
            "an apply patch must be a YAML or JSON object",
        ));
    }
    let text = |k: &str| config.get(k).and_then(Value::as_str).unwrap_or_default();
    if text("apiVersion") != def.api_version() {
        return Err(ApiError::bad_request(format!(
            "Incorrect version specified in apply patch. Specified patch version: {}, expected: {}",
            text("apiVersion"),
            def.api_version()
        )));
    }
    if text("kind") != def.kind {
        return Err(ApiError::bad_request(format!(
            "Incorrect kind specified in apply patch. Specified patch kind: {}, expected: {}",
            text("kind"),
            def.kind
        )));
    }
    if config
        .get("metadata")
        .and_then(|m| m.get("managedFields"))
        .is_some_and(|m| !m.is_null())
    {
        return Err(ApiError::bad_request("metadata.managedFields must be nil"));
    }
    let name = target.name.as_deref().unwrap_or_default();
    let body_name = meta::meta_str(config, "name").unwrap_or_default();
    if !body_name.is_empty() && body_name != name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({body_name}) does not match the name on the URL ({name})"
        )));
    }
    Ok(())
}

/// The 409 of an apply that would change fields other managers own.
fn conflict_error(e: ApplyError, def: &crate::registry::ResourceDef) -> ApiError {
    match e {
        ApplyError::Conflicts(conflicts) => ApiError {
            code: 409,
            reason: "Conflict",
            message: fieldmanager::conflict_message(&conflicts),
            details: json!({
                "causes": conflicts.iter().map(|c| json!({
                    "reason": "FieldManagerConflict",
                    "message": format!("conflict with {}", c.owner.describe()),
                    "field": c.field(),
                })).collect::<Vec<_>>(),
            }),
        },
        ApplyError::Typed(t) => ApiError::bad_request(format!(
            "failed to create typed patch object ({}, Kind={}): {t}",
            def.api_version(),
            def.kind
        )),
    }
}

/// Merges an applied configuration into `live` (absent when the apply creates the object)
/// for the request's manager, as `target`'s version sees it: the checked configuration,
/// conflicts, pruning of what the manager stopped applying, and the new managers.
pub fn merge_config(
    req: &Req,
    target: &Target,
    live: Option<&Value>,
    config: &Value,
) -> Result<(Value, ManagedFields), ApiError> {
    check_config(target, config)?;
    let def = &target.def;
    let request = ApplyRequest {
        owner: Owner {
            manager: req
                .query
                .get("fieldManager")
                .unwrap_or_default()
                .to_string(),
            operation: Operation::Apply,
            api_version: def.api_version(),
            subresource: target.subresource.clone().unwrap_or_default(),
        },
        force: req.query.flag("force"),
        scope: Scope::of(
            def.status_subresource,
            endpoint_of(target) == Endpoint::Status,
        ),
    };
    let managed = live
        .and_then(|l| ManagedFields::of_object(l).ok())
        .unwrap_or_default();
    fieldmanager::apply(
        Types::of(def),
        live,
        managed,
        config,
        &request,
        &meta::now(),
    )
    .map_err(|e| conflict_error(e, def))
}

/// PATCH with an apply patch: creates the object when absent (201), otherwise merges the
/// configuration, removes what the manager stopped applying, and records its fields.
pub fn apply(api: &Arc<Api>, req: &Req, target: &Target, config: Value) -> Result<Reply, ApiError> {
    let def = &target.def;
    let name = target.name.as_deref().unwrap_or_default();
    let ns = ns_of(target);
    let endpoint = endpoint_of(target);
    let mut cluster = api.lock();
    let Some(existing) = cluster.store.get(&def.storage_key, ns, name) else {
        if endpoint != Endpoint::Main {
            return Err(ApiError::not_found(def, name));
        }
        let (mut object, managed) = merge_config(req, target, None, &config)?;
        meta::ensure_metadata(&mut object);
        object["metadata"]["name"] = Value::String(name.to_string());
        let (stored, warnings) = create_object_as(
            &mut cluster,
            def,
            target.namespace.as_deref(),
            object,
            &req.query,
            Fields::Applied(managed),
        )?;
        return Ok(Reply::Json {
            code: 201,
            body: as_version(def, &stored),
            content_type: "application/json".into(),
            warnings,
        });
    };
    let live = as_version(def, &existing);
    let (mut object, managed) = merge_config(req, target, Some(&live), &config)?;
    // A configuration may carry a resourceVersion precondition.
    let current_rv = meta::meta_str(&existing, "resourceVersion")
        .unwrap_or_default()
        .to_string();
    let wanted_rv = meta::meta_str(&config, "resourceVersion").unwrap_or_default();
    if !wanted_rv.is_empty() && wanted_rv != current_rv {
        return Err(ApiError::conflict(def, name));
    }
    meta::ensure_metadata(&mut object);
    object["metadata"]["resourceVersion"] = Value::String(current_rv);
    let (stored, warnings) = update_object_as(
        &mut cluster,
        def,
        ns,
        name,
        object,
        endpoint,
        &req.query,
        Fields::Applied(managed),
    )?;
    Ok(Reply::Json {
        code: 200,
        body: as_version(def, &stored),
        content_type: "application/json".into(),
        warnings,
    })
}
