//! The subresources that reach a node or a pod's network: `pods/log`, `pods/exec`,
//! `pods/attach`, `pods/portforward`, and the `pods`, `services` and `nodes` proxies. A test
//! server has no kubelets and no pod network, so each answers what kube-apiserver answers
//! when there is nothing to reach: the same checks in the same order (object, container,
//! assigned node, the node's addresses) and then the error of the connection it would make.
//!
//! Every one but `log` is a CONNECT, admitted first as kube-apiserver's connect handler
//! admits it: `dryRun` is refused, the options are read from the query ([`options`]), then
//! mutating webhooks, validating admission policies and validating webhooks see them
//! (`admission::webhooks::connect`); the checks run on the options admission let through.

mod options;

use std::sync::Arc;

use serde_json::Value;

use super::state::Api;
use crate::admission::policies;
use crate::admission::policies::rbac::Snapshot;
use crate::admission::webhooks::connect::{self as admission, Admitted, Plan, Request, Steps};
use crate::admission::webhooks::review::{Attributes, Decider};
use crate::support::request::{Reply, Req, Target};
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// The admission of a CONNECT request: its options, as admission let them through, and
/// the warnings it earned; or why it was refused.
async fn admit(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Admitted, ApiError> {
    if req.query.get("dryRun").is_some() {
        return Err(ApiError::bad_request("dryRun is not supported"));
    }
    let options = options::options(req, target)?;
    let kind = options["kind"].as_str().unwrap_or_default().to_string();
    let subresource = target.subresource.clone().unwrap_or_default();
    let plan = Plan::load(&api.lock().store, &target.def, &subresource);
    let request = Request {
        def: target.def.clone(),
        subresource,
        namespace: target.namespace.clone().unwrap_or_default(),
        name: target.name.clone().unwrap_or_default(),
        options,
        user: req.user.clone(),
        authorizer: Some(Decider(Arc::new(Snapshot::of(&api.lock().store)))),
    };
    let namespaces = |ns: &str| api.lock().store.get("/namespaces", "", ns);
    let validate_policies = |attrs: &Attributes| {
        let cluster = api.lock();
        let write = policies::Write {
            def: &attrs.def,
            subresource: attrs.subresource.as_deref(),
            operation: attrs.operation,
            namespace: &attrs.namespace,
            name: &attrs.name,
            object: attrs.object.as_ref(),
            old: None,
        };
        policies::validate(&cluster.store, &cluster.registry, &write, &req.query)
    };
    let decode = |options: &Value| options::decode(options, &kind);
    admission::admit(
        &plan,
        request,
        &namespaces,
        api.transport(),
        Steps {
            decode,
            policies: validate_policies,
        },
    )
    .await
}

/// The connect handler's own error, sent with the warnings admission earned.
fn with_warnings(mut e: ApiError, mut warnings: Vec<String>) -> ApiError {
    warnings.append(&mut e.warnings);
    e.warnings = warnings;
    e
}

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

/// `pods/<name>/exec`, `attach` and `portforward` (GET or POST): admitted, then 400 for a
/// pod not on a node.
pub async fn stream(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let admitted = admit(api, req, target).await?;
    let container = admitted.options["container"].as_str();
    connect_stream(api, target, container).map_err(|e| with_warnings(e, admitted.warnings))
}

/// What a stream connection meets once admitted: the pod, its container (the one the
/// options name), its node.
fn connect_stream(
    api: &Arc<Api>,
    target: &Target,
    asked_container: Option<&str>,
) -> Result<Reply, ApiError> {
    let name = target.name.as_deref().unwrap_or_default();
    let pod = object(api, target, name)?;
    if target.subresource.as_deref() != Some("portforward") {
        container(&pod, name, asked_container)?;
    }
    match pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        None => Err(ApiError::bad_request(format!(
            "pod {name} does not have a host assigned"
        ))),
        Some(node) => Err(unreachable_node(api, node)),
    }
}

/// The name and port of a proxy request's `<name>`, `<name>:<port>` or
/// `<scheme>:<name>:<port>` (scheme `http` or `https`), as the real server splits it;
/// `None` for anything else (no name, another scheme, more parts).
fn split_scheme_name_port(raw: &str) -> Option<(&str, &str)> {
    let parts: Vec<&str> = raw.split(':').collect();
    let (scheme, name, port) = match parts.as_slice() {
        [name] => ("", *name, ""),
        [name, port] => ("", *name, *port),
        [scheme, name, port] => (*scheme, *name, *port),
        _ => return None,
    };
    (!name.is_empty() && matches!(scheme, "" | "http" | "https")).then_some((name, port))
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

/// Any method on a `pods`, `services` or `nodes` proxy: admitted, then what the proxy
/// meets.
pub async fn proxy(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let admitted = admit(api, req, target).await?;
    connect_proxy(api, target).map_err(|e| with_warnings(e, admitted.warnings))
}

/// Where a proxy connection would go, and the error of reaching it.
fn connect_proxy(api: &Arc<Api>, target: &Target) -> Result<Reply, ApiError> {
    let raw = target.name.as_deref().unwrap_or_default();
    let def: &ResourceDef = &target.def;
    let Some((name, port)) = split_scheme_name_port(raw) else {
        return Err(ApiError::bad_request(format!(
            "invalid {} request \"{raw}\"",
            def.kind.to_lowercase()
        )));
    };
    let object = object(api, target, name)?;
    match def.plural.as_str() {
        "nodes" => Err(unreachable_node(api, name)),
        "services" => {
            let ns = target.namespace.as_deref().unwrap_or_default();
            // A port number must be one of the service's ports.
            if let Ok(number) = port.parse::<i64>()
                && !object["spec"]["ports"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|p| p["port"].as_i64() == Some(number))
            {
                return Err(ApiError::new(
                    503,
                    "ServiceUnavailable",
                    format!("no service port {number} found for service \"{name}\""),
                ));
            }
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
            Some(ip) => {
                let port = if port.is_empty() { "80" } else { port };
                Err(ApiError::new(
                    503,
                    "ServiceUnavailable",
                    format!(
                        "error trying to reach service: dial tcp {ip}:{port}: connect: connection refused"
                    ),
                ))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_names_split_as_the_real_server_splits_them() {
        assert_eq!(split_scheme_name_port("p"), Some(("p", "")));
        assert_eq!(split_scheme_name_port("p:8080"), Some(("p", "8080")));
        assert_eq!(split_scheme_name_port("https:s:443"), Some(("s", "443")));
        assert_eq!(split_scheme_name_port(":s:web"), Some(("s", "web")));
        for invalid in ["ftp:p:80", ":80", "a:b:c:d", "", "http::80"] {
            assert_eq!(split_scheme_name_port(invalid), None, "{invalid}");
        }
    }
}
