//! Which handler answers a request to an object, a collection or a subresource, with the
//! admission webhook chain around the writes that have webhooks.

use std::sync::Arc;

use futures::future::BoxFuture;
use http::Method;
use serde_json::Value;

use super::state::Api;
use super::{
    binding, component_status, connect, create, delete, eviction, patch, read, replace, review,
    scale, token, watch,
};
use crate::admission::policies::rbac::Snapshot;
use crate::admission::webhooks::review::Decider;
use crate::admission::webhooks::{self, chain};
use crate::support::request::{Reply, Req, Target};
use crate::support::status::ApiError;
use crate::support::webhook_client::Transport;

/// Answers a request to an object, a collection or a subresource, as stored (no conversion).
pub(crate) async fn handle_object(
    api: &Arc<Api>,
    req: &Req,
    target: Target,
) -> Result<Reply, ApiError> {
    let not_allowed = || {
        ApiError::method_not_allowed(
            "the server does not allow this method on the requested resource",
        )
    };
    if let Some(s) = target.subresource.as_deref() {
        let Some(listed) = target.def.subresource(s) else {
            return Err(ApiError::no_route(&req.path));
        };
        let verb = match req.method {
            Method::GET | Method::HEAD | Method::OPTIONS => "get",
            Method::POST => "create",
            Method::PUT => "update",
            Method::PATCH => "patch",
            Method::DELETE => "delete",
            _ => "",
        };
        if !listed.verbs.contains(&verb) || target.name.is_none() {
            return Err(not_allowed());
        }
        match s {
            "log" => return connect::log(api, req, &target),
            "exec" | "attach" | "portforward" => {
                return connect::stream(api, req, &target).await;
            }
            "proxy" => return connect::proxy(api, req, &target).await,
            "binding" => return binding::create(api, req, &target),
            "eviction" => return eviction::create(api, req, &target),
            "token" => return token::create(api, req, &target),
            _ => {}
        }
    }
    let def = &target.def;
    if def.storage_version_hash.is_none() && def.custom.is_none() {
        // Answered by the server, never stored.
        return match (def.kind.as_str(), &req.method) {
            ("Binding", &Method::POST) if target.name.is_none() => {
                binding::create(api, req, &target)
            }
            ("ComponentStatus", &Method::GET) => component_status::get(req, &target),
            (_, &Method::POST) if def.create_only && target.name.is_none() => {
                review::create(api, req, &target)
            }
            _ => Err(not_allowed()),
        };
    }
    let plan = if chain::may_apply(req, &target) && !req.query.has_run_webhooks() {
        let cluster = api.lock();
        chain::plan(&cluster.store, &cluster.registry, req, &target)
    } else {
        None
    };
    if let Some(plan) = plan {
        return chain::run(&Handlers(api), req, &target, plan).await;
    }
    dispatch(api, req, &target)
}

/// The handlers as the admission webhook chain sees them.
pub(crate) struct Handlers<'a>(pub(crate) &'a Arc<Api>);

impl chain::Backend for Handlers<'_> {
    fn handle<'a>(
        &'a self,
        req: &'a Req,
        target: &'a Target,
    ) -> BoxFuture<'a, Result<Reply, ApiError>> {
        Box::pin(async move { dispatch(self.0, req, target) })
    }

    fn namespace(&self, name: &str) -> Option<Arc<Value>> {
        self.0.lock().store.get("/namespaces", "", name)
    }

    fn transport(&self) -> &Transport {
        self.0.transport()
    }

    fn authorizer(&self) -> Decider {
        Decider(Arc::new(Snapshot::of(&self.0.lock().store)))
    }

    fn versions(&self) -> &dyn webhooks::dispatch::Convert {
        &webhooks::dispatch::Relabel
    }
}

/// Runs the handler of a request on an object or collection (no admission webhooks).
pub fn dispatch(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let target = target.clone();
    let sub = target.subresource.as_deref();
    let watching = req.query.flag("watch") || target.legacy_watch;
    match (&req.method, target.name.as_deref(), sub) {
        (&Method::GET, None, _) if watching => watch::start(api, req, &target),
        (&Method::GET, None, _) => read::list(api, req, &target),
        (&Method::GET, Some(_), Some("scale")) => scale::get(api, req, &target),
        (&Method::GET, Some(_), _) => read::get(api, req, &target),
        (&Method::POST, None, None) => create::create(api, req, &target),
        (&Method::PUT, Some(_), Some("scale")) => scale::update(api, req, &target),
        (&Method::PUT, Some(_), _) => replace::replace(api, req, &target),
        (&Method::PATCH, Some(_), Some("scale")) => scale::patch(api, req, &target),
        (&Method::PATCH, Some(_), _) => patch::patch(api, req, &target),
        (&Method::DELETE, Some(_), None) => delete::delete(api, req, &target),
        (&Method::DELETE, None, None) => delete::delete_collection(api, req, &target),
        _ => Err(ApiError::method_not_allowed(
            "the server does not allow this method on the requested resource",
        )),
    }
}
