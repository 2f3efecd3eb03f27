//! Discovery as kubectl and kube-rs use it: `/version`, `/api`, `/apis`, per-group and
//! per-version resource lists, aggregated discovery (apidiscovery.k8s.io/v2), OpenAPI.

mod aggregated;
mod groups;
mod health;
mod modified;
mod openapi;
mod openid;
pub(crate) mod version;

use std::sync::Arc;

use serde_json::{Value, json};

use crate::endpoints::{Api, media_type};
use crate::registry::Registry;
use crate::support::request::Route;
use crate::support::request::{Reply, Req};
use crate::support::status::ApiError;
use groups::{groups, resources_of, versions_of};

/// The Kubernetes version the server reports.
pub const KUBERNETES_MINOR: &str = "34";

/// The oldest minor version the served API stays compatible with (one before
/// [`KUBERNETES_MINOR`]), as `/version` reports it.
const MIN_COMPATIBILITY_MINOR: &str = "33";

/// Answers a discovery or OpenAPI route.
pub fn serve(api: &Arc<Api>, req: &Req, route: Route) -> Reply {
    let cluster = api.lock();
    let registry = &cluster.registry;
    if matches!(route, Route::CoreVersions | Route::Groups)
        && let Some(output) = media_type::aggregated(&req.accept)
    {
        return aggregated::reply(registry, matches!(route, Route::CoreVersions), output);
    }
    match route {
        Route::Version => Reply::json(
            200,
            json!({
                "major": "1", "minor": KUBERNETES_MINOR,
                "emulationMajor": "1", "emulationMinor": KUBERNETES_MINOR,
                "minCompatibilityMajor": "1",
                "minCompatibilityMinor": MIN_COMPATIBILITY_MINOR,
                "gitVersion": format!("v1.{KUBERNETES_MINOR}.0-kubeforge"), "gitCommit": "kubeforge-testenv",
                "gitTreeState": "clean", "buildDate": "2025-01-01T00:00:00Z", "goVersion": "none",
                "compiler": "rustc", "platform": "linux/amd64",
            }),
        ),
        Route::Health => health::serve(&req.path, &req.query),
        Route::OpenIdConfiguration => openid::configuration(api.address.get().copied()),
        Route::Jwks => openid::key_set(api.signer()),
        // The address kube-apiserver advertises, with its secure port.
        Route::CoreVersions => Reply::json(
            200,
            json!({
                "kind": "APIVersions", "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress":
                    api.address.get().map_or_else(|| "127.0.0.1".to_string(), ToString::to_string)}],
            }),
        ),
        Route::Groups => Reply::json(
            200,
            json!({
                "kind": "APIGroupList", "apiVersion": "v1",
                "groups": groups(registry).iter().map(|(g, vs)| group_json(g, vs)).collect::<Vec<_>>(),
            }),
        ),
        Route::Group(g) => match versions_of(registry, &g) {
            Some(vs) => {
                let mut body = group_json(&g, &vs);
                body["kind"] = json!("APIGroup");
                body["apiVersion"] = json!("v1");
                Reply::json(200, body)
            }
            None => Reply::error(ApiError::no_route(&req.path)),
        },
        Route::Resources(g, v) => Reply::json(200, resource_list(registry, &g, &v)),
        Route::OpenApiV3 => openapi::index(&cluster.store),
        Route::OpenApiV3Document(key) => {
            openapi::document(api, &cluster.store, &key, req.query.get("hash"))
        }
        Route::OpenApiV2 => openapi::v2(api, &cluster.store, &req.accept),
        Route::Object(_) => Reply::error(ApiError::no_route(&req.path)),
    }
}

fn group_json(group: &str, versions: &[String]) -> Value {
    let gv = |v: &String| json!({"groupVersion": format!("{group}/{v}"), "version": v});
    json!({
        "name": group,
        "versions": versions.iter().map(gv).collect::<Vec<_>>(),
        "preferredVersion": versions.first().map_or(Value::Null, gv),
    })
}

fn resource_list(registry: &Registry, group: &str, version: &str) -> Value {
    let mut resources = Vec::new();
    for d in resources_of(registry, group, version) {
        let mut r = json!({
            "name": d.plural, "singularName": d.singular, "namespaced": d.namespaced,
            "kind": d.kind, "verbs": d.verbs,
        });
        if !d.short_names.is_empty() {
            r["shortNames"] = json!(d.short_names);
        }
        if !d.categories.is_empty() {
            r["categories"] = json!(d.categories);
        }
        if let Some(hash) = &d.storage_version_hash {
            r["storageVersionHash"] = json!(hash);
        }
        resources.push(r);
        for s in &d.subresources {
            let mut r = json!({
                "name": format!("{}/{}", d.plural, s.name), "singularName": "",
                "namespaced": d.namespaced, "kind": s.kind, "verbs": s.verbs,
            });
            // The kind's group and version are named only when they are not the resource's.
            if !s.group.is_empty() && (s.group != d.group || s.version != d.version) {
                r["group"] = json!(s.group);
                r["version"] = json!(s.version);
            }
            resources.push(r);
        }
    }
    let gv = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    let mut list = json!({"kind": "APIResourceList", "groupVersion": gv, "resources": resources});
    // The real server names no apiVersion in the core group's list.
    if !group.is_empty() {
        list["apiVersion"] = json!("v1");
    }
    list
}
