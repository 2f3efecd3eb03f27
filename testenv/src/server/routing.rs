//! Routing: the path of a request parsed against the served resources, and the request
//! handed to the handlers of what it addresses (an object or collection, or a discovery
//! document).

use std::sync::Arc;

use super::flow_control::{self, Classification, Digest};
use crate::endpoints::Api;
use crate::endpoints::impersonation::Requested;
use crate::endpoints::rbac::Attributes;
use crate::faults::RequestInfo;
use crate::registry::Registry;
use crate::support::request::{Reply, Req, Route, RouteError, Target};
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// A request's answer, and who wrote it.
pub enum Handled {
    /// The answer of a handler (or of the filters before them, other than a refusal).
    Reply(Reply),
    /// The 403 of the authorization or impersonation filter, which the real server writes
    /// with `X-Content-Type-Options: nosniff` (`responsewriters.Forbidden`).
    Refused(Reply),
}

/// A request's answer, and the flow schema priority and fairness classified it into (none
/// for a request refused before, or a long-running one other than a watch).
pub struct Routed {
    /// The answer.
    pub handled: Handled,
    /// What the answer's `X-Kubernetes-PF-*` headers name.
    pub flow: Option<Classification>,
}

/// Answers one request, made as the user its credentials authenticate, or as the user its
/// impersonation headers (`impersonating`) ask for.
pub async fn handle(api: &Arc<Api>, mut req: Req, impersonating: &Requested) -> Routed {
    let requester = match crate::endpoints::authn::authenticate(api, &req.bearer) {
        Ok(user) => user,
        Err(e) => {
            let refusal = Reply::error(e);
            return unclassified(Handled::Reply(crate::endpoints::media_type::answer(
                refusal,
                &req.accept,
                true,
            )));
        }
    };
    req.user = match crate::endpoints::impersonation::act_as(api, &requester, impersonating) {
        Ok(user) => user,
        Err(refused) => {
            let reply = refused.into_reply();
            let forbidden = matches!(reply, Reply::Json { code: 403, .. });
            let reply = crate::endpoints::media_type::answer(reply, &req.accept, true);
            return unclassified(if forbidden {
                Handled::Refused(reply)
            } else {
                Handled::Reply(reply)
            });
        }
    };
    let info = request_info(&req);
    let digest = Digest {
        user: &req.user,
        info: &info,
        path: &req.path,
    };
    let flow = flow_control::classify(api, &digest);
    Routed {
        handled: authorize_and_serve(api, req, &info).await,
        flow,
    }
}

fn unclassified(handled: Handled) -> Routed {
    Routed {
        handled,
        flow: None,
    }
}

/// The request as kube-apiserver's `RequestInfoFactory` parses it.
fn request_info(req: &Req) -> RequestInfo {
    RequestInfo::parse(
        &req.method,
        &req.path,
        req.query.flag("watch"),
        req.query.get("fieldSelector"),
    )
}

/// Authorizes the request (made as `req.user`) and hands it to what its path addresses.
async fn authorize_and_serve(api: &Arc<Api>, mut req: Req, info: &RequestInfo) -> Handled {
    req.query.set_requester(req.user.clone());
    // The route, and the deprecation warning of an object route, under one lock.
    let (route, deprecated) = {
        let cluster = api.lock();
        let route = parse(&req.path, &cluster.registry);
        let deprecated = match &route {
            Ok(Route::Object(target)) => {
                crate::endpoints::deprecation::warning(&cluster.registry, &target.def)
            }
            _ => None,
        };
        (route, deprecated)
    };
    let authorized = match &route {
        Ok(route) => crate::endpoints::authz::authorize(api, &req, route),
        // A path nothing serves is authorized first too: a 404 only for whom may ask.
        Err(_) => crate::endpoints::authz::check(api, &req.user, &unrouted_attributes(&req, info)),
    };
    if let Err(e) = authorized {
        let refusal = Reply::error(e);
        return Handled::Refused(crate::endpoints::media_type::answer(
            refusal,
            &req.accept,
            true,
        ));
    }
    // Aggregated discovery of `/api` is answered before go-restful's route, which takes no
    // wildcard.
    let aggregated = matches!(route, Ok(Route::CoreVersions))
        && crate::endpoints::media_type::aggregated(&req.accept).is_some();
    if let (Ok(route), false) = (&route, aggregated) {
        // go-restful picks the route of a built-in path by method, content type and Accept.
        let built_in = matches!(route, Route::Resources(group, _)
            if api.lock().registry.serves_built_in_group(group));
        if let Err(e) = crate::endpoints::restful::select(
            route,
            built_in,
            &req.method,
            &req.content_type,
            &req.accept,
        ) {
            return Handled::Reply(crate::endpoints::media_type::answer(
                Reply::error(e),
                &req.accept,
                true,
            ));
        }
    }
    Handled::Reply(match route {
        Err(_) if !under_built_in_group(api, &req.path) => not_found_page(),
        Err(_) => crate::endpoints::media_type::answer(
            Reply::error(ApiError::no_route(&req.path)),
            &req.accept,
            true,
        ),
        Ok(Route::Object(target)) => {
            let def = target.def.clone();
            // The media type is negotiated first: what cannot be answered is not done (a
            // connecter answers whatever is accepted).
            if let Some(refusal) = (!crate::endpoints::restful::is_connecter(&target))
                .then(|| crate::endpoints::media_type::refusal(&req.accept, def.custom.is_some()))
                .flatten()
            {
                return Handled::Reply(crate::endpoints::media_type::answer(
                    refusal,
                    &req.accept,
                    true,
                ));
            }
            if def.custom.is_some() {
                // The resource's storage, and its watch cache, exist from its first request.
                api.lock().store.touch(&def.storage_key);
            }
            let mut reply: Reply = crate::endpoints::versioned::serve(api, &req, target)
                .await
                .into();
            if let (Some(warning), Reply::Json { warnings, .. }) = (deprecated, &mut reply) {
                warnings.insert(0, warning);
            }
            let reply = match crate::endpoints::negotiation::requested(&req.accept) {
                Some(want) => crate::endpoints::negotiation::apply(reply, &def, &want),
                None => reply,
            };
            crate::endpoints::media_type::answer(reply, &req.accept, def.custom.is_some())
        }
        Ok(
            route
            @ (Route::CoreVersions | Route::Groups | Route::Group(_) | Route::Resources(_, _)),
        ) => crate::endpoints::media_type::answer_document(
            crate::discovery::serve(api, &req, route),
            &req.accept,
        ),
        Ok(other) => crate::discovery::serve(api, &req, other),
    })
}

/// What the real server authorizes a request for a path no handler serves by: its
/// `RequestInfo`, a resource under `/api/<version>/` or `/apis/<group>/<version>/`, any other
/// path with the lower-cased method as its verb.
fn unrouted_attributes(req: &Req, info: &RequestInfo) -> Attributes {
    if info.resource.is_empty() {
        return Attributes {
            verb: info.verb.clone(),
            path: Some(req.path.clone()),
            ..Attributes::default()
        };
    }
    let (resource, subresource) = info
        .resource
        .split_once('/')
        .map_or((info.resource.as_str(), ""), |(r, s)| (r, s));
    Attributes {
        verb: info.verb.clone(),
        namespace: info.namespace.clone(),
        group: info.group.clone(),
        resource: resource.to_string(),
        subresource: subresource.to_string(),
        name: info.name.clone(),
        path: None,
    }
}

/// Whether `path` is under a built-in group, whose REST container answers an unknown path
/// (any version, resource or subpath) with a JSON `Status`; anything else, custom groups
/// included (the CRD handler passes what it does not serve on), is the plain `404 page not
/// found` of the real server's mux.
fn under_built_in_group(api: &Arc<Api>, path: &str) -> bool {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let registry = &api.lock().registry;
    match segs.as_slice() {
        ["api", _, ..] => registry.serves_built_in_group(""),
        ["apis", g, _, ..] => registry.serves_built_in_group(g),
        _ => false,
    }
}

/// The real server's answer to a path nothing serves.
fn not_found_page() -> Reply {
    Reply::Json {
        code: 404,
        body: serde_json::Value::String("404 page not found\n".into()),
        content_type: "text/plain; charset=utf-8".into(),
        warnings: Vec::new(),
    }
}

/// Parses a path (without query) against the served resources.
pub fn parse(path: &str, registry: &Registry) -> Result<Route, RouteError> {
    let segs: Vec<&str> = path
        .trim_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    match segs.as_slice() {
        ["version"] => Ok(Route::Version),
        ["healthz" | "livez" | "readyz", ..] => Ok(Route::Health),
        [".well-known", "openid-configuration"] => Ok(Route::OpenIdConfiguration),
        ["openid", "v1", "jwks"] => Ok(Route::Jwks),
        ["api"] => Ok(Route::CoreVersions),
        ["apis"] => Ok(Route::Groups),
        ["openapi", "v2"] => Ok(Route::OpenApiV2),
        ["openapi", "v3"] => Ok(Route::OpenApiV3),
        ["openapi", "v3", key @ ..] => Ok(Route::OpenApiV3Document(key.join("/"))),
        ["apis", g] => {
            if registry.all().any(|d| d.group == *g) {
                Ok(Route::Group(g.to_string()))
            } else {
                Err(RouteError::NotFound)
            }
        }
        ["api", v, rest @ ..] => resource_route("", v, rest, registry),
        ["apis", g, v, rest @ ..] => resource_route(g, v, rest, registry),
        _ => Err(RouteError::NotFound),
    }
}

fn resource_route(
    group: &str,
    version: &str,
    rest: &[&str],
    registry: &Registry,
) -> Result<Route, RouteError> {
    if rest.is_empty() {
        return if registry.serves_group_version(group, version) {
            Ok(Route::Resources(group.to_string(), version.to_string()))
        } else {
            Err(RouteError::NotFound)
        };
    }
    let (legacy_watch, rest) = match rest {
        ["watch", tail @ ..] => (true, tail),
        _ => (false, rest),
    };
    let lookup = |plural: &str| {
        registry
            .get(group, version, plural)
            .ok_or(RouteError::NotFound)
    };
    let target =
        |def: Arc<ResourceDef>, namespace: Option<&str>, name: Option<&str>, sub: Option<&str>| {
            Route::Object(Target {
                def,
                namespace: namespace.map(str::to_string),
                name: name.map(str::to_string),
                subresource: sub.map(str::to_string),
                legacy_watch,
            })
        };
    let namespaces_is_resource = group.is_empty();
    match rest {
        // A namespaced resource inside a namespace: /namespaces/<ns>/<plural>[/<name>[/<sub>]]
        ["namespaces", ns, plural, tail @ ..]
            if !(namespaces_is_resource
                && matches!(*plural, "status" | "finalize")
                && tail.is_empty()) =>
        {
            let def = lookup(plural)?;
            if !def.namespaced {
                return Err(RouteError::NotFound);
            }
            match tail {
                [] => Ok(target(def, Some(ns), None, None)),
                [name] => Ok(target(def, Some(ns), Some(name), None)),
                [name, sub] => Ok(target(def, Some(ns), Some(name), Some(sub))),
                // A proxy carries the path to proxy to after it.
                [name, "proxy", ..] => Ok(target(def, Some(ns), Some(name), Some("proxy"))),
                _ => Err(RouteError::NotFound),
            }
        }
        [plural, tail @ ..] => {
            let def = lookup(plural)?;
            match tail {
                [] => Ok(target(def, None, None, None)),
                [_] | [_, _] if def.namespaced => Err(RouteError::NotFound),
                [name] => Ok(target(def, None, Some(name), None)),
                [name, sub] => Ok(target(def, None, Some(name), Some(sub))),
                [name, "proxy", ..] => Ok(target(def, None, Some(name), Some("proxy"))),
                _ => Err(RouteError::NotFound),
            }
        }
        [] => Err(RouteError::NotFound),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(path: &str) -> Target {
        match parse(path, &Registry::with_builtins()) {
            Ok(Route::Object(t)) => t,
            other => panic!("{path}: {other:?}"),
        }
    }

    #[test]
    fn paths() {
        let t = obj("/api/v1/namespaces/default/configmaps/x");
        assert_eq!(
            (
                t.def.plural.as_str(),
                t.namespace.as_deref(),
                t.name.as_deref()
            ),
            ("configmaps", Some("default"), Some("x"))
        );
        let t = obj("/api/v1/namespaces/foo");
        assert_eq!(
            (t.def.plural.as_str(), t.name.as_deref()),
            ("namespaces", Some("foo"))
        );
        let t = obj("/api/v1/namespaces/foo/status");
        assert_eq!(
            (t.name.as_deref(), t.subresource.as_deref()),
            (Some("foo"), Some("status"))
        );
        let t = obj("/apis/apps/v1/namespaces/a/deployments/d/scale");
        assert_eq!(t.subresource.as_deref(), Some("scale"));
        let t = obj("/apis/apps/v1/deployments");
        assert!(t.namespace.is_none() && t.name.is_none());
        assert!(parse("/apis/apps/v1/deployments/x", &Registry::with_builtins()).is_err());
        assert!(parse("/apis/nope/v1/things", &Registry::with_builtins()).is_err());
        let t = obj("/api/v1/watch/namespaces/default/pods");
        assert!(t.legacy_watch);
    }
}
