//! Server-side apply requests (`application/apply-patch+yaml`): the applied configuration
//! checked, merged into the live object for its manager, and written.
//!
//! The merge, conflicts and managedFields bookkeeping are in [`crate::support::fieldmanager`].

use std::sync::Arc;

use serde_json::{Value, json};

use super::create::create_object_as;
use super::fields::Fields;
use super::state::Api;
use super::subresource::{Endpoint, endpoint_of, ns_of};
use super::update::update_object_as;
use crate::storage::conversion::builtin::as_version;
use crate::support::fieldmanager::{
    self, ApplyError, ApplyRequest, ManagedFields, Operation, Owner, Scope, Types,
};
use crate::support::meta;
use crate::support::request::{Reply, Req, Target};
use crate::support::status::ApiError;

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
fn conflict_error(e: ApplyError, def: &crate::support::resource::ResourceDef) -> ApiError {
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

/// The 500 of an applied configuration with a field its custom resource's schema does not
/// declare: the real server cannot build the typed patch, whatever `fieldValidation` says.
fn check_declared(target: &Target, config: &Value) -> Result<(), ApiError> {
    let def = &target.def;
    let Some(schema) = def.custom.as_ref().and_then(|c| c.schema.as_ref()) else {
        return Ok(());
    };
    let mut copy = config.clone();
    let mut unknown = crate::registry::schema::prune(&mut copy, schema);
    unknown.sort();
    let Some(first) = unknown.first() else {
        return Ok(());
    };
    let group_version = if def.group.is_empty() {
        format!("/{}", def.version)
    } else {
        def.api_version()
    };
    // A plain error to the real handler: a 500 without a reason.
    Err(ApiError::new(
        500,
        "",
        format!(
            "failed to create typed patch object ({}/{}; {group_version}, Kind={}): .{}: field not declared in schema",
            meta::meta_str(config, "namespace").unwrap_or_default(),
            meta::meta_str(config, "name").unwrap_or_default(),
            def.kind,
            first.trim_start_matches('.')
        ),
    ))
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
    check_declared(target, config)?;
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
