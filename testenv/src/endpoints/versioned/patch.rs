//! PATCH in a non-storage version, as kube-apiserver does it: the stored object is converted
//! to the requested version, the patch applies there, the result is admitted in that version,
//! converted back and written with a resourceVersion precondition. When the client gave no
//! resourceVersion of its own, a conflict (a concurrent write between the read and the write)
//! is retried on the fresh object.

use std::sync::Arc;

use http::Method;
use serde_json::Value;

use super::inner::inner_request;
use super::managers::Sides;
use super::writes::{
    Admitted, admitted_storage_form, old_in_storage, recorded_write, with_converted_old,
    with_warnings,
};
use crate::endpoints::apply;
use crate::endpoints::dispatch::handle_object;
use crate::endpoints::manager_versions;
use crate::endpoints::patch_types::{PatchType, apply_patch, check_patched, patch_body};
use crate::endpoints::state::Api;
use crate::endpoints::subresource::{Endpoint, endpoint_of, ns_of};
use crate::registry::stored::as_served;
use crate::storage::conversion::Codec;
use crate::support::meta;
use crate::support::request::Target;
use crate::support::request::{Reply, Req};
use crate::support::status::{ApiError, Cause};

/// How many times a patch without a client precondition is retried on conflict.
const ATTEMPTS: usize = 5;

/// PATCH on an object or its status in the requested version.
pub async fn patch(
    api: &Arc<Api>,
    req: &Req,
    target: &Target,
    storage: Target,
    conv: &Codec,
) -> Result<Reply, ApiError> {
    let kind = PatchType::from_content_type(&req.content_type)?;
    let doc = patch_body(req, kind)?;
    let served = conv.served();
    let name = target.name.as_deref().unwrap_or_default();
    let ns = ns_of(target);
    let endpoint = endpoint_of(target);
    let manager = req.query.get("fieldManager").unwrap_or_default();
    let applying = kind == PatchType::Apply;
    if kind == PatchType::Apply && manager.is_empty() {
        return Err(ApiError::invalid(
            served,
            name,
            vec![Cause {
                reason: "FieldValueRequired".into(),
                message: "Required value: is required for apply patch".into(),
                field: "fieldManager".into(),
            }],
        ));
    }
    let retry = !meta::sets_resource_version(&doc);
    let key = conv.storage().storage_key.clone();
    for _ in 0..ATTEMPTS {
        let existing = api.lock().store.get(&key, ns, name);
        let Some(existing) = existing else {
            if applying && endpoint == Endpoint::Main {
                return apply_create(api, req, storage, conv, doc).await;
            }
            return Err(ApiError::not_found(served, name));
        };
        let current_rv = meta::meta_str(&existing, "resourceVersion")
            .unwrap_or_default()
            .to_string();
        let before = conv.to_served(as_served(conv.storage(), &existing)).await?;
        let mut early = Vec::new();
        let mut working = if applying {
            // The apply merges in the requested version; the managers recorded in other
            // versions are compared in theirs. The write stores the managers it computed.
            let versions = {
                let cluster = api.lock();
                manager_versions::crd_defs(&cluster.store, &cluster.registry, served)
            };
            let (mut merged, managed) =
                apply::merge_config_converted(req, target, Some(&before), &doc, conv, versions)
                    .await?;
            managed.write_to(&mut merged);
            merged
        } else {
            let mut working = before.clone();
            apply_patch(served, kind, &mut working, &doc)?;
            early = check_patched(served, kind, req, &doc, (&before, &working))?;
            working
        };
        let patched_rv = meta::meta_str(&working, "resourceVersion").unwrap_or_default();
        if !patched_rv.is_empty() && patched_rv != current_rv {
            return Err(ApiError::conflict(served, name));
        }
        meta::ensure_metadata(&mut working);
        working["metadata"]["resourceVersion"] = Value::String(current_rv);
        let admitted =
            admitted_storage_form(api, conv, req, target, working, Some(&before)).await?;
        let stored = as_served(conv.storage(), &existing);
        let stored_old = old_in_storage(conv, &stored, &before).await?;
        let inner = if applying {
            let mut inner = inner_request(req, Method::PUT, Some(&admitted.stored));
            inner.query = inner.query.managed_fields_computed();
            inner
        } else {
            let old = Sides {
                served: &before,
                stored: stored_old.as_ref().unwrap_or(&stored),
            };
            recorded_write(api, req, conv, Method::PUT, endpoint, Some(old), &admitted).await?
        };
        let inner = with_converted_old(inner, stored_old);
        let warnings: Vec<String> = early.into_iter().chain(admitted.warnings).collect();
        match handle_object(api, &inner, storage.clone()).await {
            Err(e) if e.code == 409 && e.reason == "Conflict" && retry => continue,
            Err(e) => return Err(e),
            Ok(reply) => return Ok(with_warnings(conv.reply_to_served(reply).await?, warnings)),
        }
    }
    Err(ApiError::conflict(served, name))
}

/// An apply patch for an object that does not exist: created from the applied configuration.
async fn apply_create(
    api: &Arc<Api>,
    req: &Req,
    storage: Target,
    conv: &Codec,
    doc: Value,
) -> Result<Reply, ApiError> {
    let name = storage.name.clone().unwrap_or_default();
    let served = Target {
        def: Arc::new(conv.served().clone()),
        ..storage.clone()
    };
    let (mut object, managed) = apply::merge_config(req, &served, None, &doc)?;
    managed.write_to(&mut object);
    meta::ensure_metadata(&mut object);
    object["metadata"]["name"] = Value::String(name.clone());
    let Admitted {
        stored, warnings, ..
    } = admitted_storage_form(api, conv, req, &served, object, None).await?;
    let collection = Target {
        name: None,
        subresource: None,
        ..storage
    };
    let mut inner = inner_request(req, Method::POST, Some(&stored));
    inner.query = inner.query.managed_fields_computed();
    let reply = handle_object(api, &inner, collection).await?;
    Ok(with_warnings(conv.reply_to_served(reply).await?, warnings))
}
