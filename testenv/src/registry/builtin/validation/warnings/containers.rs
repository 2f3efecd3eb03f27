//! The warnings of a pod's containers (init containers, containers, then ephemeral
//! containers), in the order kube-apiserver v1.34 sends them: per container its seccomp
//! (and, in a template, AppArmor) annotation without the field, fractional memory and
//! ephemeral storage, environment variables hiding an earlier one; then, across all
//! containers, ports with a host IP but no host port and ports defined twice, overlapping
//! or ambiguously. A Pod's own AppArmor warnings, sent before all others, are here too.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::support::quantity::Quantity;

const SECCOMP_CONTAINER: &str = "container.seccomp.security.alpha.kubernetes.io/";
const APPARMOR_CONTAINER: &str = "container.apparmor.security.beta.kubernetes.io/";

/// The containers of a pod spec with their paths (below `prefix`).
fn containers<'a>(prefix: &str, spec: &'a Value) -> Vec<(String, &'a Value)> {
    let mut out = Vec::new();
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for (i, c) in spec[list].as_array().into_iter().flatten().enumerate() {
            out.push((format!("{prefix}spec.{list}[{i}]"), c));
        }
    }
    out
}

/// The warning of a `resource` of `map` (under `owner.map`) that is no whole number of
/// bytes.
pub fn fractional(owner: &str, map: &str, of: &Value, resource: &str) -> Option<String> {
    let sent = &of[map][resource];
    let value = Quantity::from_json(sent)?;
    let milli =
        value.nanos.div_euclid(1_000_000) + i128::from(value.nanos.rem_euclid(1_000_000) != 0);
    // Printed as Go's String() gives it: the text as written back (kept or canonical).
    let shown = sent
        .as_str()
        .map_or_else(|| value.to_string(), str::to_string);
    (milli % 1000 != 0).then(|| {
        format!(
            "{owner}.{map}[{resource}]: fractional byte value \"{shown}\" is invalid, must be an integer"
        )
    })
}

/// The per-container warnings, then the ports' warnings, of `pod` (a template when
/// `template`).
pub fn warnings(prefix: &str, pod: &Value, template: bool) -> Vec<String> {
    let spec = &pod["spec"];
    let annotations = &pod["metadata"]["annotations"];
    let pod_app_armor = !spec["securityContext"]["appArmorProfile"].is_null();
    let all = containers(prefix, spec);
    let mut out = Vec::new();
    for (path, c) in &all {
        let name = c["name"].as_str().unwrap_or_default();
        let context = &c["securityContext"];
        let key = format!("{SECCOMP_CONTAINER}{name}");
        if context["seccompProfile"].is_null() && annotations.get(&key).is_some() {
            out.push(format!(
                "{prefix}metadata.annotations[{key}]: non-functional in v1.27+; use the \"seccompProfile\" field instead"
            ));
        }
        let key = format!("{APPARMOR_CONTAINER}{name}");
        let has_field = pod_app_armor || !context["appArmorProfile"].is_null();
        if template && !has_field && annotations.get(&key).is_some() {
            out.push(app_armor(prefix, &key));
        }
        let resources = format!("{path}.resources");
        for resource in ["memory", "ephemeral-storage"] {
            for map in ["limits", "requests"] {
                out.extend(fractional(&resources, map, &c["resources"], resource));
            }
        }
        out.extend(hidden_env(path, c));
    }
    out.extend(ports(&all));
    out
}

fn app_armor(prefix: &str, key: &str) -> String {
    format!(
        "{prefix}metadata.annotations[{key}]: deprecated since v1.30; use the \"appArmorProfile\" field instead"
    )
}

/// A created Pod's AppArmor annotations that its containers' fields do not replace: those
/// of a container without the field, unless the pod's profile says the same.
pub fn pod_app_armor(pod: &Value) -> Vec<String> {
    let spec = &pod["spec"];
    if spec["os"]["name"] == "windows" {
        return Vec::new();
    }
    let annotations = &pod["metadata"]["annotations"];
    let pod_profile = &spec["securityContext"]["appArmorProfile"];
    let mut out = Vec::new();
    for (_, c) in containers("", spec) {
        let key = format!(
            "{APPARMOR_CONTAINER}{}",
            c["name"].as_str().unwrap_or_default()
        );
        let Some(annotation) = annotations[&key].as_str() else {
            continue;
        };
        if !c["securityContext"]["appArmorProfile"].is_null() {
            continue;
        }
        let field = match annotation {
            "runtime/default" => Some(serde_json::json!({"type": "RuntimeDefault"})),
            "unconfined" => Some(serde_json::json!({"type": "Unconfined"})),
            other => other
                .strip_prefix("localhost/")
                .filter(|name| !name.trim().is_empty())
                .map(|name| serde_json::json!({"type": "Localhost", "localhostProfile": name})),
        };
        if field.as_ref() != Some(pod_profile) {
            out.push(app_armor("", &key));
        }
    }
    out
}

/// Environment variables defined again in a way that hides the earlier definition.
fn hidden_env(path: &str, c: &Value) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, var) in c["env"].as_array().into_iter().flatten().enumerate() {
        let name = var["name"].as_str().unwrap_or_default();
        if seen.insert(name) {
            continue;
        }
        let value = var["value"].as_str().unwrap_or_default();
        let reference = format!("$({name})");
        if !var["valueFrom"].is_null() || value == reference || !value.contains(&reference) {
            out.push(format!(
                "{path}.env[{i}]: hides previous definition of \"{name}\", which may be dropped when using apply"
            ));
        }
    }
    out
}

/// A container port as kube-apiserver prints it.
struct Port<'a> {
    path: String,
    name: &'a str,
    host_port: i64,
    container_port: i64,
    protocol: &'a str,
    host_ip: &'a str,
}

fn ports(all: &[(String, &Value)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: HashMap<String, Vec<Port>> = HashMap::new();
    for (path, c) in all {
        for (i, p) in c["ports"].as_array().into_iter().flatten().enumerate() {
            let port = Port {
                path: format!("{path}.ports[{i}]"),
                name: p["name"].as_str().unwrap_or_default(),
                host_port: p["hostPort"].as_i64().unwrap_or_default(),
                container_port: p["containerPort"].as_i64().unwrap_or_default(),
                protocol: p["protocol"].as_str().unwrap_or("TCP"),
                host_ip: p["hostIP"].as_str().unwrap_or_default(),
            };
            if !port.host_ip.is_empty() && port.host_port == 0 {
                out.push(format!(
                    "{}: hostIP set without hostPort: {{Name:{} HostPort:0 ContainerPort:{} Protocol:{} HostIP:{}}}",
                    port.path, port.name, port.container_port, port.protocol, port.host_ip
                ));
            }
            let key = format!("{}/{}", port.container_port, port.protocol);
            let others = seen.entry(key).or_default();
            for other in others.iter() {
                let (a, b) = (port.host_ip.is_empty(), other.host_ip.is_empty());
                let how = if port.host_ip == other.host_ip && port.host_port == other.host_port {
                    "duplicate"
                } else if port.host_port == 0 || other.host_port == 0 {
                    "overlapping"
                } else if port.host_port == other.host_port && a != b {
                    "dangerously ambiguous"
                } else {
                    continue;
                };
                out.push(format!(
                    "{}: {how} port definition with {}",
                    port.path, other.path
                ));
            }
            others.push(port);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn containers_then_ports() {
        let pod = json!({"metadata": {"annotations": {
            "container.seccomp.security.alpha.kubernetes.io/c": "runtime/default",
            "container.apparmor.security.beta.kubernetes.io/c": "runtime/default"}},
            "spec": {
            "initContainers": [{"name": "i", "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "resources": {"requests": {"memory": "100m"}}}],
            "containers": [{"name": "c",
                "env": [{"name": "A", "value": "1"}, {"name": "A", "value": "$(A)x"},
                    {"name": "A", "value": "2"}],
                "ports": [{"containerPort": 80, "protocol": "TCP", "hostIP": "1.2.3.4", "name": "web"},
                    {"containerPort": 81, "protocol": "TCP", "hostPort": 81},
                    {"containerPort": 81, "protocol": "TCP", "hostPort": 81, "hostIP": "10.0.0.1"}],
                "resources": {"limits": {"memory": "1536", "ephemeral-storage": "100m"}}}]}});
        assert_eq!(
            warnings("", &pod, true),
            [
                "spec.initContainers[0].resources.requests[memory]: fractional byte value \"100m\" is invalid, must be an integer",
                "metadata.annotations[container.seccomp.security.alpha.kubernetes.io/c]: non-functional in v1.27+; use the \"seccompProfile\" field instead",
                "metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the \"appArmorProfile\" field instead",
                "spec.containers[0].resources.limits[ephemeral-storage]: fractional byte value \"100m\" is invalid, must be an integer",
                "spec.containers[0].env[2]: hides previous definition of \"A\", which may be dropped when using apply",
                "spec.containers[0].ports[0]: hostIP set without hostPort: {Name:web HostPort:0 ContainerPort:80 Protocol:TCP HostIP:1.2.3.4}",
                "spec.containers[0].ports[0]: overlapping port definition with spec.initContainers[0].ports[0]",
                "spec.containers[0].ports[2]: dangerously ambiguous port definition with spec.containers[0].ports[1]",
            ]
        );
        // A Pod's AppArmor annotation is its own warning, unless a field says the same.
        assert_eq!(pod_app_armor(&pod).len(), 1);
        let mut same = pod.clone();
        same["spec"]["securityContext"] = json!({"appArmorProfile": {"type": "RuntimeDefault"}});
        assert!(pod_app_armor(&same).is_empty());
    }
}
