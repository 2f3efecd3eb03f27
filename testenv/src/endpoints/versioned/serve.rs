//! Which path a request to a custom kind takes: the plain handlers when no conversion is
//! involved, otherwise the conversion-aware handler of its verb.

use std::sync::Arc;

use http::Method;

use super::webhook::WebhookConverter;
use super::{patch, reads, watch, writes};
use crate::endpoints::dispatch::handle_object;
use crate::endpoints::state::Api;
use crate::storage::conversion::Codec;
use crate::support::request::{Reply, Req, Target};
use crate::support::status::ApiError;

/// Answers a request to an object, a collection or a subresource: directly when no
/// conversion is involved, otherwise through the CRD's conversion webhook.
pub async fn serve(api: &Arc<Api>, req: &Req, target: Target) -> Result<Reply, ApiError> {
    if target.def.custom.is_none() {
        return handle_object(api, req, target).await;
    }
    let plan = {
        let cluster = api.lock();
        crate::registry::conversion::lookup(&cluster.store, &cluster.registry, &target.def)
    };
    let Some(plan) = plan else {
        return handle_object(api, req, target).await;
    };
    let converter = WebhookConverter::new(api.clone(), plan.client_config.clone());
    let conv = Arc::new(Codec::new(plan, Box::new(converter)));
    serve_converted(api, req, target, &conv).await
}

/// Serves a request to a non-storage version through `conv`.
async fn serve_converted(
    api: &Arc<Api>,
    req: &Req,
    target: Target,
    conv: &Arc<Codec>,
) -> Result<Reply, ApiError> {
    let sub = target.subresource.as_deref();
    let known_sub = match sub {
        None => true,
        Some("status") => target.def.status_subresource,
        Some("scale") => target.def.scale.is_some(),
        Some(_) => false,
    };
    if !known_sub {
        // The plain handler answers 404 for it, before touching any object.
        return handle_object(api, req, target).await;
    }
    let storage = Target {
        def: conv.plan().storage.clone(),
        ..target.clone()
    };
    let watching = req.query.flag("watch") || target.legacy_watch;
    let named = target.name.is_some();
    match (&req.method, named, sub) {
        // Scale objects are `autoscaling/v1` in every version: read through the storage version.
        (_, _, Some("scale")) => handle_object(api, req, storage).await,
        (&Method::GET, false, _) if watching => watch::start(api, req, storage, conv).await,
        (&Method::GET, false, _) => reads::list(api, req, storage, conv).await,
        (&Method::GET, true, _) => reads::get(api, req, storage, conv).await,
        (&Method::POST, false, None) => writes::create(api, req, storage, conv).await,
        (&Method::PUT, true, _) => writes::update(api, req, storage, conv).await,
        (&Method::PATCH, true, _) => patch::patch(api, req, &target, storage, conv).await,
        (&Method::DELETE, _, None) => writes::delete(api, req, storage, conv).await,
        // Everything else is refused by the plain handler (405) without a conversion.
        _ => handle_object(api, req, target).await,
    }
}
