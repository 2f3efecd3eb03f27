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
use super::managers::{self, Sides};
use crate::admission::admit::admit;
use crate::admission::policies;
use crate::admission::webhooks::config::Operation;
use crate::endpoints::body_type::check_type;
use crate::endpoints::dispatch::handle_object;
use crate::endpoints::state::Api;
use crate::endpoints::subresource::{Endpoint, endpoint_of, ns_of};
use crate::registry::stored::as_served;
use crate::storage::conversion::Codec;
use crate::support::meta;
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

/// A body admitted in the requested version and converted to the storage version.
#[derive(Debug)]
pub struct Admitted {
    /// The body after admission, in the requested version.
    pub served: Value,
    /// The same, converted to the storage version and pruned to its schema.
    pub stored: Value,
    /// The warnings of its admission.
    pub warnings: Vec<String>,
}

/// Admits `object` in the requested version (its schema, then the ValidatingAdmissionPolicies
/// that match the write there) and converts it to the storage version.
pub async fn admitted_storage_form(
    api: &Arc<Api>,
    conv: &Codec,
    req: &Req,
    target: &Target,
    mut object: Value,
    old: Option<&Value>,
) -> Result<Admitted, ApiError> {
    let served = conv.served();
    check_type(served, &mut object)?;
    let mut warnings = admit(served, &mut object, old, &req.query)?;
    if !req.query.stops_before_validation() {
        let more = policies_in_served(api, req, conv, target, &object, old)
            .map_err(|e| e.after_warnings(&warnings))?;
        warnings.extend(more);
    }
    let mut stored = conv.to_storage(object.clone()).await?;
    prune_to(conv.storage(), &mut stored);
    Ok(Admitted {
        served: object,
        stored,
        warnings,
    })
}

/// The ValidatingAdmissionPolicies of a write, evaluated on the object in the requested
/// version (the storage version's write then skips them).
fn policies_in_served(
    api: &Arc<Api>,
    req: &Req,
    conv: &Codec,
    target: &Target,
    object: &Value,
    old: Option<&Value>,
) -> Result<Vec<String>, ApiError> {
    let name = target
        .name
        .clone()
        .or_else(|| meta::meta_str(object, "name").map(str::to_string))
        .unwrap_or_default();
    let write = policies::Write {
        def: conv.served(),
        subresource: target.subresource.as_deref(),
        operation: if old.is_some() {
            Operation::Update
        } else {
            Operation::Create
        },
        namespace: ns_of(target),
        name: &name,
        object: Some(object),
        old,
    };
    let cluster = api.lock();
    policies::validate(&cluster.store, &cluster.registry, &write, &req.query)
}

/// The storage form of an update-operation write (create, PUT, non-apply patch) with its
/// managedFields recorded in the requested version ([`managers::record`]), and the inner
/// request that stores it as it is.
pub async fn recorded_write(
    api: &Arc<Api>,
    req: &Req,
    conv: &Codec,
    method: Method,
    endpoint: Endpoint,
    old: Option<Sides<'_>>,
    admitted: &Admitted,
) -> Result<Req, ApiError> {
    if req.query.has_computed_managed_fields() {
        // A replay of the admission chain: its first run recorded the managers.
        return Ok(inner_request(req, method, Some(&admitted.stored)));
    }
    let new = Sides {
        served: &admitted.served,
        stored: &admitted.stored,
    };
    let managers = managers::record(api, req, conv, endpoint, old, new).await?;
    let mut stored = admitted.stored.clone();
    if !managers.entries.is_empty() {
        managers.write_to(&mut stored);
    }
    let mut inner = inner_request(req, method, Some(&stored));
    if !managers.entries.is_empty() {
        inner.query = inner.query.managed_fields_computed();
    }
    Ok(inner)
}

/// The stored object `existing` (as read for the storage version) converted to the storage
/// version, when it was written in an earlier one: the request's version seen as `served`
/// when that is the storage version, otherwise converted by the webhook. `None` when it is
/// in the storage version already.
pub async fn old_in_storage(
    conv: &Codec,
    existing: &Value,
    served: &Value,
) -> Result<Option<Value>, ApiError> {
    let storage = conv.storage().api_version();
    if existing["apiVersion"].as_str() == Some(storage.as_str()) {
        return Ok(None);
    }
    if conv.served().version == conv.storage().version {
        return Ok(Some(served.clone()));
    }
    conv.to_version(existing.clone(), &storage).await.map(Some)
}

/// The inner write carrying the stored object converted to the storage version, which its
/// update compares with (see [`old_in_storage`]).
pub fn with_converted_old(mut inner: Req, stored_old: Option<Value>) -> Req {
    if let Some(old) = stored_old {
        inner.query = inner.query.with_converted_old(old);
    }
    inner
}

/// Adds earlier warnings in front of a reply's own.
pub fn with_warnings(reply: Reply, mut earlier: Vec<String>) -> Reply {
    reply.edit_json(|_, _, _, warnings| {
        earlier.append(warnings);
        *warnings = earlier;
    })
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
    let admitted = admitted_storage_form(api, conv, req, &storage, body, None).await?;
    let inner = recorded_write(
        api,
        req,
        conv,
        Method::POST,
        Endpoint::Main,
        None,
        &admitted,
    )
    .await?;
    let reply = handle_object(api, &inner, storage).await?;
    Ok(with_warnings(
        conv.reply_to_served(reply).await?,
        admitted.warnings,
    ))
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
    let existing = as_served(conv.storage(), &existing);
    let old = conv.to_served(existing.clone()).await?;
    let admitted = admitted_storage_form(api, conv, req, &storage, body, Some(&old)).await?;
    let stored_old = old_in_storage(conv, &existing, &old).await?;
    let sides = Sides {
        served: &old,
        stored: stored_old.as_ref().unwrap_or(&existing),
    };
    let endpoint = endpoint_of(&storage);
    let inner = recorded_write(
        api,
        req,
        conv,
        Method::PUT,
        endpoint,
        Some(sides),
        &admitted,
    )
    .await?;
    let inner = with_converted_old(inner, stored_old);
    let reply = handle_object(api, &inner, storage).await?;
    Ok(with_warnings(
        conv.reply_to_served(reply).await?,
        admitted.warnings,
    ))
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
    let list_kind = storage.def.list_kind();
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
    if code >= 300 || body["kind"] != list_kind.as_str() {
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
