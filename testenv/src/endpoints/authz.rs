//! Authorization of requests: the request's attributes (verb, group, resource, subresource,
//! namespace, name, or a non-resource path) decided by the [`Policy`](super::policy::Policy),
//! 403 with the real server's message when denied. `system:masters` is always allowed;
//! [`Policy::allow_all`](super::policy::Policy::allow_all) allows everything and is not asked.

use http::Method;

use super::policy::Authorizer;
use super::rbac::{Attributes, forbidden_message};
use super::review::{decide, spec_of};
use super::state::Api;
use crate::support::request::{Req, Route, Target};
use crate::support::status::ApiError;
use crate::support::user::User;

/// The attributes of a request to `target`.
pub fn attributes(req: &Req, target: &Target) -> Attributes {
    let named = target.name.is_some();
    let verb = match (&req.method, named) {
        (&Method::GET | &Method::HEAD, _) if target.subresource.is_some() => "get",
        (&Method::GET | &Method::HEAD, false) if req.query.flag("watch") || target.legacy_watch => {
            "watch"
        }
        (&Method::GET | &Method::HEAD, true) if target.legacy_watch => "watch",
        (&Method::GET | &Method::HEAD, true) => "get",
        (&Method::GET | &Method::HEAD, false) => "list",
        (&Method::POST, _) => "create",
        (&Method::PUT, _) => "update",
        (&Method::PATCH, _) => "patch",
        (&Method::DELETE, true) => "delete",
        (&Method::DELETE, false) => "deletecollection",
        _ => "get",
    };
    let def = &target.def;
    // A Namespace is its own namespace.
    let namespace = if def.group.is_empty() && def.plural == "namespaces" {
        target.name.clone().unwrap_or_default()
    } else {
        target.namespace.clone().unwrap_or_default()
    };
    Attributes {
        verb: verb.into(),
        namespace,
        group: def.group.clone(),
        resource: def.plural.clone(),
        subresource: target.subresource.clone().unwrap_or_default(),
        name: target.name.clone().unwrap_or_default(),
        path: None,
    }
}

/// Whether the requester may make this request; 403 when not.
pub fn authorize(api: &Api, req: &Req, route: &Route) -> Result<(), ApiError> {
    if !api.options.policy.checks_requests() || req.user.in_group("system:masters") {
        return Ok(());
    }
    let a = match route {
        Route::Object(target) => attributes(req, target),
        _ => Attributes {
            verb: "get".into(),
            path: Some(req.path.clone()),
            ..Attributes::default()
        },
    };
    check(api, &req.user, &a)
}

/// Whether `user` may do what `a` describes (a request, or a part of one such as
/// impersonating a user): `system:masters` is always allowed, and everyone under
/// [`Policy::allow_all`](super::policy::Policy::allow_all); 403 with the real server's
/// message when denied.
pub fn check(api: &Api, user: &User, a: &Attributes) -> Result<(), ApiError> {
    if !api.options.policy.checks_requests() || user.in_group("system:masters") {
        return Ok(());
    }
    let (allowed, reason) = decide(api, &spec_of(user, a));
    if allowed {
        return Ok(());
    }
    // RBAC's reason ends the message, as the real server's authorization filter writes it.
    let reason = match api.options.policy.authorizer() {
        Authorizer::Rbac => reason,
        _ => String::new(),
    };
    let mut e = ApiError::new(403, "Forbidden", forbidden_message(user, a, &reason));
    // A path's refusal names no resource: its details are empty, but present.
    e.details = serde_json::json!({});
    if a.path.is_none() {
        let mut details = serde_json::json!({"kind": a.resource});
        if !a.group.is_empty() {
            details["group"] = serde_json::json!(a.group);
        }
        if !a.name.is_empty() {
            details["name"] = serde_json::json!(a.name);
        }
        e.details = details;
    }
    Err(e)
}
