//! Create, update (main and status) and delete in a non-storage version.
//!
//! As in kube-apiserver, a body is pruned, defaulted and validated against the schema of
//! the version it was sent in, converted to the storage version by the webhook, and stored;
//! what the webhook adds that the storage schema does not know is pruned silently. The
//! stored object is converted back for the response.

use std::sync::Arc;

use http::Method;
use serde_json::Value;

use super::{Converter, inner_request};
use crate::registry::ResourceDef;
use crate::rest::route::Target;
use crate::rest::{Api, Reply, Req, admission, handle_object, json_body};
use crate::status::ApiError;

/// Refuses a body of another apiVersion or kind, with the real server's messages, and
/// fills both in when they are missing.
pub fn check_type(def: &ResourceDef, object: &mut Value) -> Result<(), ApiError> {
    if !object.is_object() {
        return Err(ApiError::bad_request(
            "the request body must be a JSON object",
        ));
    }
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    if !api_version.is_empty() && api_version != def.api_version() {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({})",
            def.api_version()
        )));
    }
    let kind = object["kind"].as_str().unwrap_or_default();
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

/// Drops what the storage schema does not know (the real server prunes converted objects
/// without complaint).
pub fn prune_to(def: &ResourceDef, object: &mut Value) {
    if let Some(schema) = def.custom.as_ref().and_then(|c| c.schema.as_ref()) {
        crate::schema::prune(object, schema);
    }
}

/// A body admitted in the requested version and converted to the storage version, plus the
/// warnings of its admission.
pub async fn admitted_storage_form(
    conv: &Converter,
    req: &Req,
    mut object: Value,
    old: Option<&Value>,
) -> Result<(Value, Vec<String>), ApiError> {
    let served = conv.served();
    check_type(served, &mut object)?;
    let warnings = admission::admit(served, &mut object, old, &req.query)?;
    let mut stored = conv.to_storage(object).await?;
    prune_to(conv.storage(), &mut stored);
    Ok((stored, warnings))
}

/// Adds earlier warnings in front of a reply's own.
pub fn with_warnings(reply: Reply, mut earlier: Vec<String>) -> Reply {
    match reply {
        Reply::Json {
            code,
            body,
            content_type,
            warnings,
        } => {
            earlier.extend(warnings);
            Reply::Json {
                code,
                body,
                content_type,
                warnings: earlier,
            }
        }
        other => other,
    }
}

/// POST on a collection.
pub async fn create(
    api: &Arc<Api>,
    req: &Req,
    storage: Target,
    conv: &Converter,
) -> Result<Reply, ApiError> {
    let body = json_body(req)?;
    let (stored, warnings) = admitted_storage_form(conv, req, body, None).await?;
    let inner = inner_request(req, Method::POST, Some(&stored));
    let reply = handle_object(api, &inner, storage).await?;
    Ok(with_warnings(conv.reply_to_served(reply).await?, warnings))
}

/// PUT on an object or its status.
pub async fn update(
    api: &Arc<Api>,
    req: &Req,
    storage: Target,
    conv: &Converter,
) -> Result<Reply, ApiError> {
    let body = json_body(req)?;
    let (stored, warnings) = admitted_storage_form(conv, req, body, None).await?;
    let inner = inner_request(req, Method::PUT, Some(&stored));
    let reply = handle_object(api, &inner, storage).await?;
    Ok(with_warnings(conv.reply_to_served(reply).await?, warnings))
}

/// DELETE on an object or a collection: the objects returned are converted back.
pub async fn delete(
    api: &Arc<Api>,
    req: &Req,
    storage: Target,
    conv: &Converter,
) -> Result<Reply, ApiError> {
    let inner = inner_request(req, Method::DELETE, None);
    let reply = handle_object(api, &inner, storage).await?;
    conv.reply_to_served(reply).await
}
