//! The subresources that reach a node or a pod's network: `pods/log`, `pods/exec`,
//! `pods/attach`, `pods/portforward`, and the `pods`, `services` and `nodes` proxies. A test
//! server has no kubelets and no pod network, so each answers what kube-apiserver answers
//! when there is nothing to reach: the same checks in the same order (object, container,
//! assigned node, the node's addresses) and then the error of the connection it would make.

use std::sync::Arc;

use serde_json::Value;

use super::state::Api;
use crate::support::request::{Reply, Req, Target};
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// The object a connect request names (`name:port` for proxies), or 404.
fn object(api: &Api, target: &Target, name: &str) -> Result<Arc<Value>, ApiError> {
    let ns = target.namespace.as_deref().unwrap_or_default();
    api.lock()
        .store
        .get(&target.def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(&target.def, name))
}

/// The container a log or exec request addresses: the one named, else the only one.
fn container(pod: &Value, name: &str, asked: Option<&str>) -> Result<(), ApiError> {
    let names: Vec<&str> = pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(
            pod["spec"]["initContainers"]
                .as_array()
                .into_iter()
                .flatten(),
        )
        .chain(
            pod["spec"]["ephemeralContainers"]
                .as_array()
                .into_iter()
                .flatten(),
        )
        .filter_map(|c| c["name"].as_str())
        .collect();
    match asked.filter(|c| !c.is_empty()) {
        Some(c) if names.contains(&c) => Ok(()),
        Some(c) => Err(ApiError::bad_request(format!(
            "container {c} is not valid for pod {name}"
        ))),
        None => {
            let regular: Vec<&str> = pod["spec"]["containers"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c["name"].as_str())
                .collect();
            if regular.len() == 1 {
                Ok(())
            } else {
                Err(ApiError::bad_request(format!(
                    "a container name must be specified for pod {name}, choose one of: [{}]",
                    regular.join(" ")
                )))
            }
        }
    }
}

/// The kubelet of `node` cannot be reached: the node is missing (the real server reports it
/// as a missing pod), has no address, or refuses the connection.
fn unreachable_node(api: &Api, node: &str) -> ApiError {
    let Some(n) = api.lock().store.get("/nodes", "", node) else {
        let mut e = ApiError::new(404, "NotFound", format!("pods \"{node}\" not found"));
        e.details = serde_json::json!({"name": node, "kind": "pods"});
        return e;
    };
    let addresses: Vec<(String, String)> = n["status"]["addresses"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            (
                a["type"].as_str().unwrap_or_default().to_string(),
                a["address"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let preferred = [
        "Hostname",
        "InternalDNS",
        "InternalIP",
        "ExternalDNS",
        "ExternalIP",
    ]
    .iter()
    .find_map(|t| addresses.iter().find(|(ty, _)| ty == t));
    match preferred {
        None => ApiError::new(
            500,
            "",
            format!(
                "no preferred addresses found; known addresses: [{}]",
                addresses
                    .iter()
                    .map(|(t, a)| format!("{{{t} {a}}}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        ),
        Some((_, address)) => {
            let port = n["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"]
                .as_i64()
                .unwrap_or(10250);
            ApiError::new(
                500,
                "",
                format!(
                    "error dialing backend: dial tcp {address}:{port}: connect: connection refused"
                ),
            )
        }
    }
}

/// GET `pods/<name>/log`: 204 for a pod not on a node (there is no log yet).
pub fn log(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let name = target.name.as_deref().unwrap_or_default();
    let pod = object(api, target, name)?;
    container(&pod, name, req.query.get("container"))?;
    match pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        None => Ok(Reply::empty(204)),
        Some(node) => Err(unreachable_node(api, node)),
    }
}

/// `pods/<name>/exec`, `attach` and `portforward` (GET or POST): 400 for a pod not on a
/// node.
pub fn stream(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let name = target.name.as_deref().unwrap_or_default();
    let pod = object(api, target, name)?;
    if target.subresource.as_deref() != Some("portforward") {
        container(&pod, name, req.query.get("container"))?;
    }
    match pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        None => Err(ApiError::bad_request(format!(
            "pod {name} does not have a host assigned"
        ))),
        Some(node) => Err(unreachable_node(api, node)),
    }
}

/// The `<name>` of a proxy request's `<name>[:<port>]` (or `<scheme>:<name>:<port>`).
fn proxied_name(raw: &str) -> &str {
    let parts: Vec<&str> = raw.split(':').collect();
    match parts.as_slice() {
        [scheme, name, _] if matches!(*scheme, "http" | "https") => name,
        [name, ..] => name,
        [] => raw,
    }
}

/// The addresses of a service's Endpoints object (kept by the endpoints controller for
/// services with a selector, or written by hand); `None` without one.
fn service_endpoints(api: &Api, ns: &str, name: &str) -> Option<usize> {
    let endpoints = api.lock().store.get("/endpoints", ns, name)?;
    Some(
        endpoints["subsets"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| s["addresses"].as_array().map_or(0, Vec::len))
            .sum(),
    )
}

/// Any method on a `pods`, `services` or `nodes` proxy.
pub fn proxy(api: &Arc<Api>, _req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let raw = target.name.as_deref().unwrap_or_default();
    let name = proxied_name(raw);
    let object = object(api, target, name)?;
    let def: &ResourceDef = &target.def;
    match def.plural.as_str() {
        "nodes" => Err(unreachable_node(api, name)),
        "services" => {
            let ns = target.namespace.as_deref().unwrap_or_default();
            // The proxy goes where the service's Endpoints say: none is a missing service.
            match service_endpoints(api, ns, name) {
                None => Err(ApiError::not_found(def, name)),
                Some(0) => Err(ApiError::new(
                    503,
                    "ServiceUnavailable",
                    format!("no endpoints available for service \"{name}\""),
                )),
                Some(_) => Err(ApiError::new(
                    503,
                    "ServiceUnavailable",
                    "error trying to reach service: dial tcp: connect: connection refused",
                )),
            }
        }
        _ => match object["status"]["podIP"]
            .as_str()
            .filter(|ip| !ip.is_empty())
        {
            None => Err(ApiError::bad_request("address not allowed")),
            Some(ip) => Err(ApiError::new(
                503,
                "ServiceUnavailable",
                format!(
                    "error trying to reach service: dial tcp {ip}:80: connect: connection refused"
                ),
            )),
        },
    }
}
