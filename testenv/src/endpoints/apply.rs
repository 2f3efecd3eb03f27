//! Server-side apply requests (`application/apply-patch+yaml`): the applied configuration
//! checked, merged into the live object for its manager, and written.
//!
//! The merge, conflicts and managedFields bookkeeping are in [`crate::support::fieldmanager`].

use std::sync::Arc;

use serde_json::{Value, json};

use super::create::create_object_as;
use super::fields::Fields;
use super::manager_versions;
use super::state::Api;
use super::subresource::{Endpoint, endpoint_of, ns_of};
use super::update::update_object_as;
use crate::registry::stored::as_served;
use crate::storage::conversion::Codec;
use crate::support::fieldmanager::{
    self, ApplyError, ApplyRequest, Converted, ManagedFields, OneVersion, Operation, Owner, Types,
    Versions,
};
use crate::support::json_order::{raw, raw_patch};
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
        // Only a caller that cannot convert gets here (see `merge_config_converted`).
        ApplyError::Pending(p) => ApiError::internal(p.to_string()),
        // The converter's own error, as the real server passes it on.
        ApplyError::Unconvertible(u) => ApiError::without_reason(500, u.0),
    }
}

/// Merges an applied configuration into `live` (absent when the apply creates the object)
/// for the request's manager, as `target`'s version sees it: the checked configuration,
/// conflicts, pruning of what the manager stopped applying, and the new managers. Managers
/// recorded in another version of a built-in kind are compared in their version (those of
/// a version the kind is not served in are dropped); a custom resource's are all compared in
/// the request's version ([`merge_config_in`] knows its CRD's versions,
/// [`merge_config_converted`] converts by webhook).
pub fn merge_config(
    req: &Req,
    target: &Target,
    live: Option<&Value>,
    config: &Value,
) -> Result<(Value, ManagedFields), ApiError> {
    if target.def.custom.is_some() {
        return merge_config_in(req, target, live, config, &OneVersion);
    }
    let versions = manager_versions::builtin(&target.def);
    merge_config_in(req, target, live, config, versions.as_ref())
}

/// [`merge_config`] with the kind's versions known to the caller (see
/// [`manager_versions::of`]): managers of a version the kind has not are dropped, or fail
/// the apply when the conversion refuses their version.
pub fn merge_config_in(
    req: &Req,
    target: &Target,
    live: Option<&Value>,
    config: &Value,
    versions: &dyn Versions,
) -> Result<(Value, ManagedFields), ApiError> {
    check_all(target, config)?;
    let merged = merge_in(req, target, live, config, versions);
    finish(target, config, merged)
}

/// [`merge_config`] for a custom resource converted by webhook: each manager recorded in
/// another version is compared in that version, and what the applier stopped applying is
/// pruned in the version of its last apply, the objects converted by `conv`'s webhook
/// (outside any lock), as kube-apiserver's field manager converts them. `versions` are every
/// version the kind's CRD lists, served or not ([`manager_versions::crd_defs`]); a manager
/// of another version fails the apply.
pub async fn merge_config_converted(
    req: &Req,
    target: &Target,
    live: Option<&Value>,
    config: &Value,
    conv: &Codec,
    versions: impl IntoIterator<Item = Arc<ResourceDef>>,
) -> Result<(Value, ManagedFields), ApiError> {
    check_all(target, config)?;
    let mut converted = Converted::new(versions);
    // Each round converts one more object; an apply needs a few per version (the live and
    // merged objects, and what pruning converts), never this many.
    for _ in 0..MAX_CONVERSIONS {
        match merge_in(req, target, live, config, &converted) {
            Err(ApplyError::Pending(p)) => {
                let out = conv.to_version(p.object.clone(), &p.api_version).await?;
                converted.insert(&p.object, &p.api_version, out);
            }
            merged => return finish(target, config, merged),
        }
    }
    Err(ApiError::internal(format!(
        "the field manager needed more than {MAX_CONVERSIONS} conversions"
    )))
}

/// The most conversions one apply may ask the webhook for.
const MAX_CONVERSIONS: usize = 64;

/// The checks of an applied configuration before the merge.
fn check_all(target: &Target, config: &Value) -> Result<(), ApiError> {
    check_config(target, config)?;
    check_declared(&target.def, config)?;
    check_types(&target.def, config)
}

/// The merge's outcome as the request's answer: the object converted to the kind's Go type,
/// or the error.
fn finish(
    target: &Target,
    config: &Value,
    merged: Result<(Value, ManagedFields), ApplyError>,
) -> Result<(Value, ManagedFields), ApiError> {
    let def = &target.def;
    let (mut object, managed) = merged.map_err(|e| conflict_error(e, def, config))?;
    convert(def, config, &mut object)?;
    Ok((object, managed))
}

/// The field manager's apply of a checked configuration, converting through `versions`.
fn merge_in(
    req: &Req,
    target: &Target,
    live: Option<&Value>,
    config: &Value,
    versions: &dyn Versions,
) -> Result<(Value, ManagedFields), ApplyError> {
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
        scope: super::fields::scope_of(def, endpoint_of(target)),
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
    fieldmanager::apply_in_versions(
        Types::of(def),
        live,
        managed,
        &typed,
        &request,
        &meta::now(),
        versions,
    )
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
    let versions = manager_versions::of(&cluster.store, def);
    let Some(existing) = cluster.store.get(&def.storage_key, ns, name) else {
        if endpoint != Endpoint::Main {
            return Err(ApiError::not_found(def, name));
        }
        let (mut object, managed) = merge_config(req, target, None, &config)?;
        meta::ensure_metadata(&mut object);
        object["metadata"]["name"] = Value::String(name.to_string());
        // The create's strategy records who asked, as a POST's does.
        if crate::registry::strategy::is_csr(&def.group, &def.plural)
            && (object["spec"].is_object() || object["spec"].is_null())
        {
            crate::registry::strategy::csr_on_create(&mut object, &req.user);
        }
        super::escalation::check_write(api, &cluster.store, req, target, &object, None)?;
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
            body: as_served(def, &stored),
            content_type: "application/json".into(),
            warnings,
        });
    };
    let live = as_served(def, &existing);
    let raw_kind = raw::holds_raw(&def.group, &def.version, &def.kind);
    let mut config = config;
    if raw_kind {
        raw_patch::raw_as_live(&live, &mut config);
    }
    let (mut object, managed) =
        merge_config_in(req, target, Some(&live), &config, versions.as_ref())?;
    if raw_kind {
        raw_patch::raw_as_live(&live, &mut object);
        if raw_patch::same_but_managers(&live, &object) {
            raw::apply_unchanged(&live);
        }
    }
    super::escalation::check_write(api, &cluster.store, req, target, &object, Some(&existing))?;
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
        body: as_served(def, &stored),
        content_type: "application/json".into(),
        warnings,
    })
}
