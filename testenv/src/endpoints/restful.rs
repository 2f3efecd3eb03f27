//! The route selection of kube-apiserver's go-restful container, which serves the built-in API
//! (`/version`, `/api`, each built-in group version's resource list, every built-in resource
//! and subresource, and the service account issuer's OpenID discovery documents): among the routes of a path, go-restful keeps those of the
//! request's method (405 when none), then those consuming its `Content-Type` (415), then those
//! producing a media type its `Accept` names (406, listing what they produce), all before a
//! handler runs. Custom resources, `/apis` and `/apis/<group>` are served outside it and
//! negotiate in their handlers only (`super::media_type`).
//!
//! go-restful compares each `Accept` clause's media type, parameters and quality dropped, with
//! a route's produced types exactly: only `*/*` is a wildcard (`application/*` is not), and a
//! clause's transformation (`;as=Table`) is the handler's business.

use http::Method;
use serde_json::json;

use crate::support::request::{Route, Target};
use crate::support::status::ApiError;

/// What the built-in serializers write (CBOR is off by default in v1.34).
const MEDIA: [&str; 3] = [
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
];

/// What a list or watch route also streams.
const STREAMS: [&str; 2] = [
    "application/json;stream=watch",
    "application/vnd.kubernetes.protobuf;stream=watch",
];

/// What a list route produces: the media types and the watch streams.
const LISTING: [&str; 5] = [MEDIA[0], MEDIA[1], MEDIA[2], STREAMS[0], STREAMS[1]];

/// What a pod's log route produces.
const LOG: [&str; 4] = ["text/plain", MEDIA[0], MEDIA[1], MEDIA[2]];

/// What a connecter produces.
const ANYTHING: [&str; 1] = ["*/*"];

/// What a built-in resource's patch route consumes.
const PATCHES: [&str; 4] = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
];

/// One go-restful route of a path.
struct Candidate {
    method: Method,
    produces: &'static [&'static str],
    /// Whether it consumes only the patch types (other routes consume `*/*`).
    patch: bool,
}

impl Candidate {
    fn new(method: Method, produces: &'static [&'static str]) -> Self {
        Candidate {
            patch: method == Method::PATCH,
            method,
            produces,
        }
    }

    /// go-restful's `matchesContentType`.
    fn consumes(&self, content_type: &str) -> bool {
        if !self.patch {
            return true;
        }
        // No content type is read as `application/octet-stream`.
        content_type.split(',').any(|clause| {
            let media = clause.split(';').next().unwrap_or_default().trim();
            media == "*/*" || PATCHES.contains(&media)
        })
    }

    /// go-restful's `matchesAccept`.
    fn produces_any(&self, accept: &str) -> bool {
        if self.produces.contains(&"*/*") {
            return true;
        }
        accept.split(',').any(|clause| {
            let media = clause.split(';').next().unwrap_or_default().trim();
            media == "*/*" || self.produces.contains(&media)
        })
    }
}

/// The go-restful routes of what `route` addresses, empty for a path go-restful does not serve
/// (`built_in` says whether a resource list's group is built in).
fn candidates(route: &Route, built_in: bool) -> Vec<Candidate> {
    match route {
        Route::Version | Route::OpenIdConfiguration => {
            vec![Candidate::new(Method::GET, &["application/json"])]
        }
        Route::Jwks => vec![Candidate::new(Method::GET, &["application/jwk-set+json"])],
        Route::CoreVersions => vec![Candidate::new(Method::GET, &MEDIA)],
        Route::Resources(..) if built_in => vec![Candidate::new(Method::GET, &MEDIA)],
        Route::Object(target) if target.def.custom.is_none() => object_candidates(target),
        _ => Vec::new(),
    }
}

/// The routes kube-apiserver's installer registers for a built-in resource's path, by the
/// verbs its storage serves.
fn object_candidates(target: &Target) -> Vec<Candidate> {
    let def = &target.def;
    if target.legacy_watch {
        return if def.verbs.contains(&"watch") {
            vec![Candidate::new(Method::GET, &LISTING)]
        } else {
            Vec::new()
        };
    }
    let by_verb = |verbs: &[&str], produces: &'static [&'static str]| -> Vec<Candidate> {
        [
            ("get", Method::GET),
            ("create", Method::POST),
            ("update", Method::PUT),
            ("patch", Method::PATCH),
            ("delete", Method::DELETE),
        ]
        .into_iter()
        .filter(|(verb, _)| verbs.contains(verb))
        .map(|(_, method)| Candidate::new(method, produces))
        .collect()
    };
    match (target.name.as_deref(), target.subresource.as_deref()) {
        (Some(_), Some(sub)) => {
            let Some(listed) = def.subresource(sub) else {
                return Vec::new();
            };
            match sub {
                // Connecters produce anything and consume anything.
                "exec" | "attach" | "portforward" | "proxy" => by_verb(listed.verbs, &ANYTHING)
                    .into_iter()
                    .map(|c| Candidate { patch: false, ..c })
                    .collect(),
                "log" => by_verb(listed.verbs, &LOG),
                _ => by_verb(listed.verbs, &MEDIA),
            }
        }
        (Some(_), None) => by_verb(def.verbs, &MEDIA),
        (None, None) => {
            let mut routes = Vec::new();
            if def.verbs.contains(&"list") {
                routes.push(Candidate::new(Method::GET, &LISTING));
            }
            if def.verbs.contains(&"create") {
                routes.push(Candidate::new(Method::POST, &MEDIA));
            }
            if def.verbs.contains(&"deletecollection") {
                routes.push(Candidate::new(Method::DELETE, &MEDIA));
            }
            routes
        }
        (None, Some(_)) => Vec::new(),
    }
}

fn refused(code: u16, reason: &'static str, message: String) -> ApiError {
    let mut e = ApiError::new(code, reason, message);
    e.details = json!({});
    e
}

/// go-restful's answer to a request before any handler: `Err` with its 405, 415 or 406 when no
/// route of the path takes the request's method, content type and `Accept`; `Ok` when one
/// does, or when go-restful does not serve the path (or the method is `HEAD` or `OPTIONS` on
/// a resource's path, which its handlers answer). go-restful serves no `HEAD` or `OPTIONS`
/// route: `/version`, `/api`, a group version and the OpenID documents answer them 405.
pub fn select(
    route: &Route,
    built_in: bool,
    method: &Method,
    content_type: &str,
    accept: &str,
) -> Result<(), ApiError> {
    if matches!(*method, Method::HEAD | Method::OPTIONS) && matches!(route, Route::Object(_)) {
        return Ok(());
    }
    let routes = candidates(route, built_in);
    if routes.is_empty() {
        return Ok(());
    }
    let routes: Vec<&Candidate> = routes.iter().filter(|c| c.method == method).collect();
    if routes.is_empty() {
        return Err(ApiError::method_not_allowed(
            "the server does not allow this method on the requested resource",
        ));
    }
    let routes: Vec<&Candidate> = routes
        .into_iter()
        .filter(|c| c.consumes(content_type))
        .collect();
    if routes.is_empty() {
        return Err(refused(
            415,
            "UnsupportedMediaType",
            "415: Unsupported Media Type".into(),
        ));
    }
    let accept = if accept.trim().is_empty() {
        "*/*"
    } else {
        accept
    };
    if routes.iter().any(|c| c.produces_any(accept)) {
        return Ok(());
    }
    let available: Vec<&str> = routes
        .iter()
        .flat_map(|c| c.produces.iter().copied())
        .collect();
    Err(refused(
        406,
        "NotAcceptable",
        format!(
            "406: Not Acceptable\n\nAvailable representations: {}",
            available.join(", ")
        ),
    ))
}

/// Whether `target` is a connecter (`exec`, `attach`, `portforward`, a proxy), whose handler
/// answers whatever the client accepts.
pub fn is_connecter(target: &Target) -> bool {
    matches!(
        target.subresource.as_deref(),
        Some("exec" | "attach" | "portforward" | "proxy")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;

    /// A core/v1 object, collection or subresource in `default`.
    fn core(plural: &str, name: Option<&str>, sub: Option<&str>) -> Route {
        let registry = Registry::with_builtins();
        Route::Object(Target {
            def: registry.get("", "v1", plural).expect("a core resource"),
            namespace: Some("default".into()),
            name: name.map(str::to_string),
            subresource: sub.map(str::to_string),
            legacy_watch: false,
        })
    }

    fn code(route: &Route, method: Method, content_type: &str, accept: &str) -> Option<u16> {
        select(route, true, &method, content_type, accept)
            .err()
            .map(|e| e.code)
    }

    #[test]
    fn only_a_star_wildcard_and_exact_types_are_accepted() {
        let cm = core("configmaps", Some("x"), None);
        assert_eq!(code(&cm, Method::GET, "", ""), None);
        assert_eq!(code(&cm, Method::GET, "", "text/html, */*"), None);
        assert_eq!(code(&cm, Method::GET, "", "application/json;as=Foo"), None);
        assert_eq!(code(&cm, Method::GET, "", "application/*"), Some(406));
        assert_eq!(code(&cm, Method::GET, "", "text/plain"), Some(406));
        let log = core("pods", Some("p"), Some("log"));
        assert_eq!(code(&log, Method::GET, "", "text/plain"), None);
        let exec = core("pods", Some("p"), Some("exec"));
        assert_eq!(code(&exec, Method::GET, "", "text/plain"), None);
        assert_eq!(
            code(&Route::Version, Method::GET, "", "application/yaml"),
            Some(406)
        );
        assert_eq!(code(&Route::Groups, Method::GET, "", "text/plain"), None);
    }

    #[test]
    fn the_method_then_the_content_type_then_accept() {
        let token = core("serviceaccounts", Some("default"), Some("token"));
        assert_eq!(code(&token, Method::GET, "", "text/plain"), Some(405));
        let cm = core("configmaps", Some("x"), None);
        assert_eq!(
            code(&cm, Method::PATCH, "application/json", "text/plain"),
            Some(415)
        );
        assert_eq!(
            code(
                &cm,
                Method::PATCH,
                "application/merge-patch+json",
                "text/plain"
            ),
            Some(406)
        );
        let list = core("configmaps", None, None);
        let e = select(&list, true, &Method::GET, "", "application/xml").unwrap_err();
        assert_eq!(
            e.message,
            "406: Not Acceptable\n\nAvailable representations: application/json, \
             application/yaml, application/vnd.kubernetes.protobuf, \
             application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"
        );
    }
}
