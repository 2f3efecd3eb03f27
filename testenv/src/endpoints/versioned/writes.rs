//! Create, update (main and status) and delete in a non-storage version.
//!
//! As in kube-apiserver, a body is pruned, defaulted and validated against the schema of
//! the version it was sent in, converted to the storage version by the webhook, and stored;
//! what the webhook adds that the storage schema does not know is pruned silently. The
//! stored object is converted back for the response.

use std::sync::Arc;

use http::Method;
use serde_json::Value;

use super::inner::inner_request;
use crate::admission::admit::admit;
use crate::endpoints::create::check_type;
use crate::endpoints::dispatch::handle_object;
use crate::endpoints::state::Api;
use crate::endpoints::subresource::ns_of;
use crate::storage::conversion::Codec;
use crate::storage::conversion::builtin::as_version;
use crate::support::request::Target;
use crate::support::request::{Reply, Req, json_body};
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// Drops what the storage schema does not know (the real server prunes converted objects
/// without complaint).
pub fn prune_to(def: &ResourceDef, object: &mut Value) {
    if let Some(schema) = def.custom.as_ref().and_then(|c| c.schema.as_ref()) {
        crate::registry::schema::prune(object, schema);
    }
}

/// A body admitted in the requested version and converted to the storage version, plus the
/// warnings of its admission.
pub async fn admitted_storage_form(
    conv: &Codec,
    req: &Req,
    mut object: Value,
    old: Option<&Value>,
) -> Result<(Value, Vec<String>), ApiError> {
    let served = conv.served();
    check_type(served, &mut object)?;
    let warnings = admit(served, &mut object, old, &req.query)?;
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

/// POST on a collection. A dry run converts too (to the storage version and back, as the
/// real server encodes the object it would store) but stores nothing.
pub async fn create(
    api: &Arc<Api>,
    req: &Req,
    storage: Target,
    conv: &Codec,
) -> Result<Reply, ApiError> {
    let body = json_body(req)?;
    let (stored, warnings) = admitted_storage_form(conv, req, body, None).await?;
    let inner = inner_request(req, Method::POST, Some(&stored));
    let reply = handle_object(api, &inner, storage).await?;
    Ok(with_warnings(conv.reply_to_served(reply).await?, warnings))
}

/// PUT on an object or its status. The stored object is converted to the requested version
/// first, as the real server decodes it, so that validation ratchets and transition rules
/// compare like with like.
pub async fn update(
    api: &Arc<Api>,
    req: &Req,
    storage: Target,
    conv: &Codec,
) -> Result<Reply, ApiError> {
    let body = json_body(req)?;
    let name = storage.name.as_deref().unwrap_or_default();
    let existing = api
        .lock()
        .store
        .get(&conv.storage().storage_key, ns_of(&storage), name);
    let Some(existing) = existing else {
        // The storage version's handler answers 404 (or its own error) without converting.
        let inner = inner_request(req, Method::PUT, None);
        return handle_object(api, &inner, storage).await;
    };
    let old = conv
        .to_served(as_version(conv.storage(), &existing))
        .await?;
    let (stored, warnings) = admitted_storage_form(conv, req, body, Some(&old)).await?;
    let inner = inner_request(req, Method::PUT, Some(&stored));
    let reply = handle_object(api, &inner, storage).await?;
    Ok(with_warnings(conv.reply_to_served(reply).await?, warnings))
}

/// DELETE on an object or a collection: the objects returned are converted back, one
/// review per object (a collection is deleted object by object, as on the real server).
pub async fn delete(
    api: &Arc<Api>,
    req: &Req,
    storage: Target,
    conv: &Codec,
) -> Result<Reply, ApiError> {
    let inner = inner_request(req, Method::DELETE, None);
    let reply = handle_object(api, &inner, storage).await?;
    let Reply::Json {
        code,
        mut body,
        content_type,
        warnings,
    } = reply
    else {
        return Ok(reply);
    };
    if code >= 300 || !body["kind"].as_str().is_some_and(|k| k.ends_with("List")) {
        return conv
            .reply_to_served(Reply::Json {
                code,
                body,
                content_type,
                warnings,
            })
            .await;
    }
    if let Some(items) = body.get_mut("items").and_then(Value::as_array_mut) {
        for item in items.iter_mut() {
            *item = conv.to_served(std::mem::take(item)).await?;
        }
    }
    body["apiVersion"] = Value::String(conv.served().api_version());
    Ok(Reply::Json {
        code,
        body,
        content_type,
        warnings,
    })
}
