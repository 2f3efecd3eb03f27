//! The type a body says it is (`apiVersion` and `kind`), checked as kube-apiserver's decoder
//! and then its handlers check it: a kind the scheme does not register, or one of another
//! internal type, is refused by the decoder; another apiVersion or kind of the same type by
//! the handler.

use serde_json::Value;

use crate::registry::scheme::Scheme;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// Refuses a body of another apiVersion or kind, with the real server's messages, and
/// fills both in when they are missing.
pub fn check_type(def: &ResourceDef, object: &mut Value) -> Result<(), ApiError> {
    if !object.is_object() {
        return Err(ApiError::bad_request(
            "the request body must be a JSON object",
        ));
    }
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if def.custom.is_none()
        && !api_version.is_empty()
        && let Some(refusal) = builtin_type_refusal(def, api_version, kind)
    {
        return Err(ApiError::bad_request(refusal));
    }
    if !api_version.is_empty() && api_version != def.api_version() {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({})",
            def.api_version()
        )));
    }
    if !kind.is_empty() && kind != def.kind {
        return Err(ApiError::bad_request(format!(
            "the kind in the data ({kind}) does not match the expected kind ({})",
            def.kind
        )));
    }
    object["apiVersion"] = Value::String(def.api_version());
    object["kind"] = Value::String(def.kind.clone());
    Ok(())
}

/// The decoder's refusal of a built-in body of another type, as the real server words it:
/// a group-version-kind its scheme does not register ("no kind ... is registered"), or
/// one that converts to another internal Go type ("unknown conversion"). `None` when the
/// decoder takes it (the apiVersion and kind checks come after): a kind of the resource's
/// own internal type in any version the scheme registers, served or not
/// (`extensions/v1beta1` Deployments for `apps/v1` deployments).
fn builtin_type_refusal(def: &ResourceDef, api_version: &str, kind: &str) -> Option<String> {
    let scheme = Scheme::of_group(&def.group);
    let into = scheme.internal_type(&def.group, &def.version, &def.kind);
    let into_kind = into.rsplit('.').next().unwrap_or(&def.kind);
    let kind = if kind.is_empty() { into_kind } else { kind };
    let version = api_version.rsplit('/').next().unwrap_or(api_version);
    let prefix = format!("{kind} in version \"{version}\" cannot be handled as a {into_kind}");
    match scheme.lookup(api_version, kind) {
        None => Some(format!(
            "{prefix}: {}",
            scheme.unregistered(api_version, kind)
        )),
        Some(found) if found.internal.as_deref() == Some(into.as_str()) => None,
        Some(found) => Some(format!(
            "{prefix}: converting ({}) to ({into}): unknown conversion",
            found.go_type
        )),
    }
}
