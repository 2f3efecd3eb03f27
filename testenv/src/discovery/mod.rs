//! Discovery as kubectl and kube-rs use it: `/version`, `/api`, `/apis`, per-group and
//! per-version resource lists, aggregated discovery (apidiscovery.k8s.io/v2), OpenAPI.

mod aggregated;
mod groups;
mod openapi;
mod version;

use std::sync::Arc;

use serde_json::{Value, json};

use crate::endpoints::Api;
use crate::registry::Registry;
use crate::support::request::Route;
use crate::support::request::{Reply, Req};
use crate::support::status::ApiError;
use groups::{groups, resources_of};

/// The Kubernetes version the server reports.
pub const KUBERNETES_MINOR: &str = "35";

/// Answers a discovery or OpenAPI route.
pub fn serve(api: &Arc<Api>, req: &Req, route: Route) -> Reply {
    let cluster = api.lock();
    let registry = &cluster.registry;
    match route {
        Route::Version => Reply::json(
            200,
            json!({
                "major": "1", "minor": KUBERNETES_MINOR,
                "emulationMajor": "1", "emulationMinor": KUBERNETES_MINOR,
                "gitVersion": format!("v1.{KUBERNETES_MINOR}.0-kubeforge"), "gitCommit": "kubeforge-testenv",
                "gitTreeState": "clean", "buildDate": "2025-01-01T00:00:00Z", "goVersion": "none",
                "compiler": "rustc", "platform": "linux/amd64",
            }),
        ),
        Route::Health => Reply::json(200, json!("ok")),
        Route::CoreVersions if aggregated::wanted(&req.accept) => aggregated::reply(registry, true),
        Route::Groups if aggregated::wanted(&req.accept) => aggregated::reply(registry, false),
        Route::CoreVersions => Reply::json(
            200,
            json!({
                "kind": "APIVersions", "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}],
            }),
        ),
        Route::Groups => Reply::json(
            200,
            json!({
                "kind": "APIGroupList", "apiVersion": "v1",
                "groups": groups(registry).iter().map(|(g, vs)| group_json(g, vs)).collect::<Vec<_>>(),
            }),
        ),
        Route::Group(g) => match groups(registry).get(&g) {
            Some(vs) => {
                let mut body = group_json(&g, vs);
                body["kind"] = json!("APIGroup");
                body["apiVersion"] = json!("v1");
                Reply::json(200, body)
            }
            None => Reply::error(ApiError::no_route(&req.path)),
        },
        Route::Resources(g, v) => Reply::json(200, resource_list(registry, &g, &v)),
        Route::OpenApiV3 => Reply::json(200, openapi::index(&cluster.store)),
        Route::OpenApiV3GroupVersion(g, v) => {
            match openapi::group_version(&cluster.store, &g, &v) {
                Some(doc) => Reply::json(200, doc),
                None => Reply::error(ApiError::no_route(&req.path)),
            }
        }
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
        resources.push(json!({
            "name": d.plural, "singularName": d.singular, "namespaced": d.namespaced,
            "kind": d.kind, "verbs": d.verbs(), "shortNames": d.short_names, "categories": d.categories,
        }));
        if d.status_subresource {
            resources.push(json!({
                "name": format!("{}/status", d.plural), "singularName": "", "namespaced": d.namespaced,
                "kind": d.kind, "verbs": ["get", "patch", "update"],
            }));
        }
        if d.scale.is_some() {
            resources.push(json!({
                "name": format!("{}/scale", d.plural), "singularName": "", "namespaced": d.namespaced,
                "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"],
            }));
        }
    }
    let gv = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources})
}
