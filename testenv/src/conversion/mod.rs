//! CRD conversion webhooks (`spec.conversion.strategy: Webhook`), as kube-apiserver calls them.
//!
//! A request to a version other than the CRD's storage version is served by the storage
//! version's handlers, with the objects converted on the way in and out by the CRD's webhook:
//! request bodies are converted to the storage version before they are stored, and every
//! object returned (get, list — one `ConversionReview` per list —, watch events as they are
//! sent, create/update/patch/delete responses) is converted back to the requested version.
//! Patches apply to the object as seen in the requested version. Requests to the storage
//! version and to kinds using the `None` strategy never call a webhook.
//!
//! The conversions run outside the store lock: a slow webhook delays only its own request.

pub mod caller;
mod patch;
pub mod plan;
mod reads;
pub mod review;
mod watch;
mod writes;

use std::sync::Arc;

use bytes::Bytes;
use http::Method;
use serde_json::Value;

use crate::registry::ResourceDef;
use crate::rest::route::Target;
use crate::rest::{Api, Reply, Req, handle_object};
use crate::status::ApiError;
use caller::{Caller, WebhookCaller};
use plan::Plan;
use review::ConversionError;

/// Answers a request to an object, a collection or a subresource: directly when no
/// conversion is involved, otherwise through the CRD's conversion webhook.
pub async fn serve(api: &Arc<Api>, req: &Req, target: Target) -> Result<Reply, ApiError> {
    if target.def.custom.is_none() {
        return handle_object(api, req, target).await;
    }
    let plan = {
        let cluster = api.lock();
        plan::lookup(&cluster, &target.def)
    };
    let Some(plan) = plan else {
        return handle_object(api, req, target).await;
    };
    let caller = WebhookCaller::new(api.clone(), plan.client_config.clone());
    let conv = Arc::new(Converter::new(plan, Box::new(caller)));
    serve_converted(api, req, target, &conv).await
}

/// Serves a request to a non-storage version through `conv`.
async fn serve_converted(
    api: &Arc<Api>,
    req: &Req,
    target: Target,
    conv: &Arc<Converter>,
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
        def: conv.plan.storage.clone(),
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

/// Converts objects between the requested version and the storage version of one CRD.
pub struct Converter {
    plan: Plan,
    caller: Box<dyn Caller>,
}

/// The 500 the real server answers when a conversion fails (no reason, the converter's
/// message).
fn conversion_failed(e: ConversionError) -> ApiError {
    ApiError {
        code: 500,
        reason: "",
        message: e.to_string(),
        details: Value::Null,
    }
}

impl Converter {
    /// A converter for `plan` calling the webhook through `caller`.
    pub fn new(plan: Plan, caller: Box<dyn Caller>) -> Self {
        Converter { plan, caller }
    }

    async fn convert(
        &self,
        source: &Value,
        is_list: bool,
        objects: Vec<Value>,
        desired: &str,
    ) -> Result<Vec<Value>, ApiError> {
        let version = self
            .plan
            .review_version
            .ok_or_else(|| conversion_failed(ConversionError::NoReviewVersion))?;
        review::convert(
            self.caller.as_ref(),
            version,
            source,
            is_list,
            objects,
            desired,
        )
        .await
        .map_err(conversion_failed)
    }

    /// One object in the storage version.
    pub async fn to_storage(&self, object: Value) -> Result<Value, ApiError> {
        let desired = self.plan.storage.api_version();
        let mut out = self
            .convert(&object, false, vec![object.clone()], &desired)
            .await?;
        Ok(out.pop().unwrap_or_default())
    }

    /// One object in the requested version.
    pub async fn to_served(&self, object: Value) -> Result<Value, ApiError> {
        let desired = self.plan.served.api_version();
        let mut out = self
            .convert(&object, false, vec![object.clone()], &desired)
            .await?;
        Ok(out.pop().unwrap_or_default())
    }

    /// A `<Kind>List` in the requested version, converted with one review.
    pub async fn list_to_served(&self, mut list: Value) -> Result<Value, ApiError> {
        let desired = self.plan.served.api_version();
        let items = match list.get_mut("items").map(Value::take) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        let items = self.convert(&list, true, items, &desired).await?;
        list["items"] = Value::Array(items);
        list["apiVersion"] = Value::String(desired);
        Ok(list)
    }

    /// A handler's answer in the requested version: objects of the kind and lists of it are
    /// converted; `Status` objects and errors pass through.
    pub async fn reply_to_served(&self, reply: Reply) -> Result<Reply, ApiError> {
        let Reply::Json {
            code,
            body,
            content_type,
            warnings,
        } = reply
        else {
            return Ok(reply);
        };
        let kind = self.plan.served.kind.as_str();
        let body = if code >= 300 {
            body
        } else if body["kind"].as_str() == Some(kind) {
            self.to_served(body).await?
        } else if body["kind"].as_str() == Some(&format!("{kind}List")) {
            self.list_to_served(body).await?
        } else {
            body
        };
        Ok(Reply::Json {
            code,
            body,
            content_type,
            warnings,
        })
    }

    /// The version the client asked for.
    pub fn served(&self) -> &ResourceDef {
        &self.plan.served
    }

    /// The CRD's storage version.
    pub fn storage(&self) -> &ResourceDef {
        &self.plan.storage
    }
}

/// A request for the storage version's handlers: JSON in and out, same query.
fn inner_request(req: &Req, method: Method, body: Option<&Value>) -> Req {
    Req {
        method,
        path: req.path.clone(),
        query: req.query.clone(),
        accept: "application/json".into(),
        content_type: match body {
            Some(_) => "application/json".into(),
            None => req.content_type.clone(),
        },
        body: body
            .map(|b| Bytes::from(b.to_string()))
            .unwrap_or_else(|| req.body.clone()),
    }
}
