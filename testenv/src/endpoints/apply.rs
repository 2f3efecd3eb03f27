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
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// Refuses applied configurations the real server refuses: not an object, another
/// apiVersion or kind, managedFields set, another name than the URL's.
fn check_config(target: &Target, config: &Value) -> Result<(), ApiError> {
    let def = &target.def;
    if !config.is_object() {
        let ty = match config {
            Value::Array(_) => "array",
            Value::String(_) => "string",
            Value::Number(_) => "number",
            Value::Bool(_) => "bool",
            _ => "null",
        };
        return Err(ApiError::bad_request(format!(
            "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {ty} into Go value of type map[string]interface {{}}"
        )));
    }
    let text = |k: &str| config.get(k).and_then(Value::as_str).unwrap_or_default();
    if text("apiVersion") != def.api_version() || text("kind") != def.kind {
        let (group, version) = text("apiVersion")
            .rsplit_once('/')
            .unwrap_or(("", text("apiVersion")));
        return Err(ApiError::bad_request(format!(
            "invalid object type: {group}/{version}, Kind={}",
            text("kind")
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

/// The 500 the real server answers when an applied configuration cannot be typed with the
/// kind's schema: `failed to create typed patch object (<ns>/<name>; <group>/<version>,
/// Kind=<kind>): <what>`, naming the namespace and name the configuration itself carries.
fn typed_patch_error(def: &ResourceDef, config: &Value, what: &str) -> ApiError {
    ApiError::without_reason(
        500,
        format!(
            "failed to create typed patch object ({}/{}; {}/{}, Kind={}): {what}",
            meta::meta_str(config, "namespace").unwrap_or_default(),
            meta::meta_str(config, "name").unwrap_or_default(),
            def.group,
            def.version,
            def.kind
        ),
    )
}

/// The fields of the configuration a custom resource's schema does not declare: server-side
/// apply refuses them whatever `fieldValidation` says.
fn check_declared(def: &ResourceDef, config: &Value) -> Result<(), ApiError> {
    let Some(schema) = def.custom.as_ref().and_then(|c| c.schema.as_ref()) else {
        return Ok(());
    };
    let undeclared = crate::registry::schema::undeclared_fields(config, schema);
    let lines: Vec<String> = undeclared
        .iter()
        .map(|p| format!("{p}: field not declared in schema"))
        .collect();
    typed_patch_errors(def, config, &lines)
}

/// The 500 of a configuration with `lines` of typing errors (none: no error): one is named
/// alone, several are listed after `errors:`.
fn typed_patch_errors(def: &ResourceDef, config: &Value, lines: &[String]) -> Result<(), ApiError> {
    match lines {
        [] => Ok(()),
        [one] => Err(typed_patch_error(def, config, one)),
        many => Err(typed_patch_error(
            def,
            config,
            &format!("errors:\n  {}", many.join("\n  ")),
        )),
    }
}

/// The values of a built-in kind's configuration whose JSON type is not the schema's (a
/// number where a string is expected, a string where a map is): the real server cannot
/// type the patch and answers 500.
fn check_types(def: &ResourceDef, config: &Value) -> Result<(), ApiError> {
    if def.custom.is_some() {
        return Ok(());
    }
    let lines = super::apply_types::type_errors(&def.group, &def.version, &def.kind, config);
    typed_patch_errors(def, config, &lines)
}

/// The 409 of an apply that would change fields other managers own (or the 500 of a
/// configuration that cannot be typed).
pub fn conflict_error(e: ApplyError, def: &ResourceDef, config: &Value) -> ApiError {
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
            warnings: Vec::new(),
        },
        ApplyError::Typed(t) => typed_patch_error(def, config, &t.to_string()),
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
    check_declared(def, config)?;
    check_types(def, config)?;
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
    // The field manager compares typed values (an applied `2.0` equals a live `2`): the
    // configuration's numbers are given their Go form first; what cannot be converted is
    // refused once the merge is done, as the real server refuses the new object.
    let mut typed = config.clone();
    if def.custom.is_none() {
        let _ = super::apply_types::convert(&def.group, &def.version, &def.kind, &mut typed);
    }
    let (mut object, managed) = fieldmanager::apply(
        Types::of(def),
        live,
        managed,
        &typed,
        &request,
        &meta::now(),
    )
    .map_err(|e| conflict_error(e, def, config))?;
    convert(def, config, &mut object)?;
    Ok((object, managed))
}

/// The object an apply made of a built-in kind converted to the kind's Go type and back
/// (integral numbers as integers, numeric quantities as strings), or the 500 the real server
/// answers when it cannot be (a fraction for an integer, a malformed quantity), naming the
/// namespace and name the configuration carries.
fn convert(def: &ResourceDef, config: &Value, object: &mut Value) -> Result<(), ApiError> {
    if def.custom.is_some() {
        return Ok(());
    }
    let Err(why) = super::apply_types::convert(&def.group, &def.version, &def.kind, object) else {
        return Ok(());
    };
    let gvk = format!("{}/{}, Kind={}", def.group, def.version, def.kind);
    Err(ApiError::without_reason(
        500,
        format!(
            "failed to convert new object ({}/{}; {gvk}) to proper version: unable to convert unstructured object to {gvk}: {why}",
            meta::meta_str(config, "namespace").unwrap_or_default(),
            meta::meta_str(config, "name").unwrap_or_default(),
        ),
    ))
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
