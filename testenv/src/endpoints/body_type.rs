//! The type a body says it is (`apiVersion` and `kind`), checked as kube-apiserver's decoder
//! and then its handlers check it: a kind the scheme does not register, or one of another
//! internal type, is refused by the decoder; another apiVersion or kind of the same type by
//! the handler.

use serde_json::Value;

use crate::registry::scheme::Scheme;
use crate::registry::validation;
use crate::support::request::Req;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// Refuses a body of another apiVersion or kind, with the real server's messages, fills
/// both in when they are missing, and drops the members a built-in kind's Go type has no
/// field for, as decoding into it does.
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
    if def.custom.is_none() {
        // Decoded into the kind's Go type: what it has no field for is gone.
        validation::drop_unknown_fields(&def.group, &def.version, &def.kind, object);
    }
    Ok(())
}

/// `error`, answered after the body of `req` was decoded, with the decoder's warnings (its
/// unknown and repeated fields under `fieldValidation=Warn`): the real server's warning
/// recorder sends them with whatever answer follows the decoding. An error carrying warnings
/// of its own (admission's, which include them) is left as it is.
pub fn with_decoder_warnings(def: &ResourceDef, req: &Req, mut error: ApiError) -> ApiError {
    if error.warnings.is_empty() {
        error.warnings = crate::admission::admit::decoded(def, &req.query).unwrap_or_default();
    }
    error
}

/// What the decoder makes of a built-in body's `apiVersion` and `kind` for a resource.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyType {
    /// The resource's own version and kind (or unset: the URL's are used).
    Own,
    /// Another version (or kind) of the resource's own internal Go type: decoded as that
    /// type, with its fields, then refused by the apiVersion check.
    Other {
        /// The body's group (`extensions` for an `extensions/v1beta1` Deployment).
        group: String,
        /// The body's version, `__internal` for the group's internal version.
        version: String,
        /// The body's kind.
        kind: String,
        /// The internal Go type both decode into (`apps.Deployment`).
        go_type: String,
    },
    /// Refused by the decoder (not registered, or another internal type), or a custom
    /// resource's body of another version: nothing of it is decoded as the resource's type.
    Refused,
}

/// What the decoder makes of a body saying `api_version` and `kind` sent to `def`'s resource.
pub fn body_type(def: &ResourceDef, api_version: &str, kind: &str) -> BodyType {
    let own_kind = kind.is_empty() || kind == def.kind;
    if api_version.is_empty() || api_version == def.api_version() {
        return if own_kind {
            BodyType::Own
        } else {
            BodyType::Refused
        };
    }
    if def.custom.is_some() || builtin_type_refusal(def, api_version, kind).is_some() {
        return BodyType::Refused;
    }
    let into = Scheme::of_group(&def.group).internal_type(&def.group, &def.version, &def.kind);
    let short = into.rsplit('.').next().unwrap_or(&def.kind);
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    BodyType::Other {
        group: group.to_string(),
        version: version.to_string(),
        kind: if kind.is_empty() { short } else { kind }.to_string(),
        go_type: into.clone(),
    }
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
