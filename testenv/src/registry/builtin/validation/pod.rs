//! Pods (`validatePodMetadataAndSpec`) and pod specs (`ValidatePodSpec`), for Pods and for
//! the pod templates of the workload kinds: volumes ([`super::pod_volume_sources`]),
//! containers and init containers, restart and DNS policies, security contexts and host users
//! ([`super::pod_security_context`]), affinity and topology spread
//! ([`super::pod_scheduling`]), DNS configuration, readiness gates and host aliases
//! ([`super::pod_dns`]), the service account, `activeDeadlineSeconds`, host and subdomain
//! names, tolerations, then the OS checks of [`super::pod_os`]; a Pod's specific annotations
//! are [`super::pod_annotations`]'s, the seccomp, sysctl and Windows host-process rules
//! [`super::security_context`]'s.

use std::collections::HashSet;

use serde_json::Value;

use super::errors::{
    Errors, check_dns1123_label, check_labels, child, dns1123_subdomain, duplicate, forbidden,
    index, invalid, invalid_str, not_supported, port_name, port_num, required,
};
use super::pod_container::{self, Probe};
use super::resources;
use super::security_context;
use super::service::PROTOCOLS;
pub use super::tolerations::tolerations;

const RESTART_POLICIES: &[&str] = &["Always", "OnFailure", "Never"];
const DNS_POLICIES: &[&str] = &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const PULL_POLICIES: &[&str] = &["Always", "IfNotPresent", "Never"];
const MESSAGE_POLICIES: &[&str] = &["File", "FallbackToLogsOnError"];

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

fn ports(container: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let mut names = HashSet::new();
    for (i, port) in items(&container["ports"]).iter().enumerate() {
        let at = index(path, i);
        let name = text(port, "name");
        if !name.is_empty() {
            let why = port_name(name);
            if !why.is_empty() {
                for w in why {
                    out.push(invalid_str(&child(&at, "name"), name, &w));
                }
            } else if !names.insert(name.to_string()) {
                out.push(duplicate(&child(&at, "name"), &Value::String(name.into())));
            }
        }
        match port["containerPort"].as_i64().unwrap_or(0) {
            0 => out.push(required(&child(&at, "containerPort"))),
            n => {
                for w in port_num(n) {
                    out.push(invalid(&child(&at, "containerPort"), &Value::from(n), &w));
                }
            }
        }
        if let Some(n) = port["hostPort"].as_i64().filter(|n| *n != 0) {
            for w in port_num(n) {
                out.push(invalid(&child(&at, "hostPort"), &Value::from(n), &w));
            }
        }
        match text(port, "protocol") {
            "" => out.push(required(&child(&at, "protocol"))),
            p if !PROTOCOLS.contains(&p) => {
                out.push(not_supported(&child(&at, "protocol"), p, PROTOCOLS));
            }
            _ => {}
        }
    }
    out
}

/// `ValidateEnv`: each variable's name, then its source.
fn env(container: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for (i, var) in items(&container["env"]).iter().enumerate() {
        let at = index(path, i);
        let name_path = child(&at, "name");
        match &var["name"] {
            Value::String(s) if s.is_empty() => out.push(required(&name_path)),
            Value::String(s) => {
                if let Some(why) = pod_container::env_name_error(s) {
                    out.push(invalid_str(&name_path, s, why));
                }
            }
            // A name of another JSON type is refused when the body is decoded.
            _ => {}
        }
        out.extend(pod_container::value_from(var, &child(&at, "valueFrom")));
    }
    out
}

/// What the pod around a container decides for it: its volumes, host users, resource claims,
/// restart policy and termination grace period.
struct PodContext {
    volumes: HashSet<String>,
    /// Whether the pod uses the host's users (`hostUsers` unset or true).
    host_users: bool,
    claims: HashSet<String>,
    restart: String,
    grace: i64,
}

/// The checks every kind of container shares (`validateContainerCommon`).
fn container(c: &Value, pod: &PodContext, path: &str) -> Errors {
    let mut out = Vec::new();
    let name = text(c, "name");
    let name_path = child(path, "name");
    if name.is_empty() {
        out.push(required(&name_path));
    } else {
        out.extend(check_dns1123_label(&name_path, name));
    }
    if text(c, "image").is_empty() {
        out.push(required(&child(path, "image")));
    }
    let policy_path = child(path, "terminationMessagePolicy");
    match text(c, "terminationMessagePolicy") {
        "" => out.push(required(&policy_path)),
        p if !MESSAGE_POLICIES.contains(&p) => {
            out.push(not_supported(&policy_path, p, MESSAGE_POLICIES));
        }
        _ => {}
    }
    out.extend(ports(c, &child(path, "ports")));
    out.extend(env(c, &child(path, "env")));
    out.extend(pod_container::env_from(c, &child(path, "envFrom")));
    out.extend(pod_container::volume_mounts(
        c,
        &pod.volumes,
        &child(path, "volumeMounts"),
    ));
    if let Some(p) = c["imagePullPolicy"].as_str()
        && !PULL_POLICIES.contains(&p)
    {
        out.push(not_supported(
            &child(path, "imagePullPolicy"),
            p,
            PULL_POLICIES,
        ));
    }
    out.extend(resources::requirements(
        &c["resources"],
        &child(path, "resources"),
        Some(&pod.claims),
    ));
    out.extend(pod_container::resize_policy(
        c,
        &child(path, "resizePolicy"),
        &pod.restart,
    ));
    out.extend(super::pod_security_context::container(
        c,
        path,
        pod.host_users,
    ));
    out
}

/// A container's lifecycle hooks and probes (a regular container's, or a sidecar's).
fn hooks_and_probes(c: &Value, pod: &PodContext, path: &str) -> Errors {
    let mut out = Vec::new();
    if c["lifecycle"].is_object() {
        out.extend(pod_container::lifecycle(
            &c["lifecycle"],
            &child(path, "lifecycle"),
            pod.grace,
        ));
    }
    for (field, which) in [
        ("livenessProbe", Probe::Liveness),
        ("readinessProbe", Probe::Readiness),
        ("startupProbe", Probe::Startup),
    ] {
        out.extend(pod_container::probe(
            &c[field],
            &child(path, field),
            pod.grace,
            which,
        ));
    }
    out
}

/// A Pod's `ValidatePodSpecificAnnotations` (see [`super::pod_annotations::specific`]).
pub fn specific_annotations(pod: &Value) -> Errors {
    super::pod_annotations::specific(&pod["metadata"], &pod["spec"], "metadata.annotations")
}

/// A Pod's own checks (`validatePodMetadataAndSpec` past the object meta): its specific
/// annotations, its spec, then what only a pod's containers must satisfy (an image without
/// surrounding whitespace).
pub fn pod(pod: &Value) -> Errors {
    let mut out = specific_annotations(pod);
    let name = pod["metadata"]["name"].as_str();
    out.extend(spec_of(&pod["spec"], "spec", name));
    for (list, path) in [
        ("containers", "spec.containers"),
        ("initContainers", "spec.initContainers"),
    ] {
        for (i, c) in items(&pod["spec"][list]).iter().enumerate() {
            let image = text(c, "image");
            if image.trim() != image {
                out.push(invalid_str(
                    &child(&index(path, i), "image"),
                    image,
                    "must not have leading or trailing whitespace",
                ));
            }
        }
    }
    out
}

/// `ValidatePodSpec` of the spec at `path` (`spec.template.spec`, ...) of a pod template.
pub fn pod_spec(spec: &Value, path: &str) -> Errors {
    spec_of(spec, path, None)
}

/// `ValidatePodSpec` of the spec at `path` of the pod named `pod_name` (none for a template:
/// the claims of its ephemeral volumes have no name yet).
fn spec_of(spec: &Value, path: &str, pod_name: Option<&str>) -> Errors {
    let (mut out, volumes) =
        super::pod_volume_sources::volumes(spec, &child(path, "volumes"), pod_name);
    let pod = PodContext {
        volumes,
        host_users: spec["hostUsers"] != false,
        claims: items(&spec["resourceClaims"])
            .iter()
            .map(|c| text(c, "name").to_string())
            .collect(),
        restart: text(spec, "restartPolicy").to_string(),
        grace: spec["terminationGracePeriodSeconds"].as_i64().unwrap_or(30),
    };
    let containers = items(&spec["containers"]);
    let mut names = HashSet::new();
    let containers_path = child(path, "containers");
    if containers.is_empty() {
        out.push(required(&containers_path));
    }
    for (i, c) in containers.iter().enumerate() {
        let at = index(&containers_path, i);
        out.extend(container(c, &pod, &at));
        let name = text(c, "name");
        if !names.insert(name.to_string()) {
            out.push(duplicate(&child(&at, "name"), &Value::String(name.into())));
        }
        out.extend(hooks_and_probes(c, &pod, &at));
    }
    let init_path = child(path, "initContainers");
    for (i, c) in items(&spec["initContainers"]).iter().enumerate() {
        let at = index(&init_path, i);
        out.extend(container(c, &pod, &at));
        let name = text(c, "name");
        if !name.is_empty() && !names.insert(name.to_string()) {
            out.push(duplicate(&child(&at, "name"), &Value::String(name.into())));
        }
        if c["restartPolicy"] == "Always" {
            out.extend(hooks_and_probes(c, &pod, &at));
            continue;
        }
        // Only a sidecar (an init container that always restarts) may have these.
        for field in [
            "lifecycle",
            "livenessProbe",
            "readinessProbe",
            "startupProbe",
        ] {
            if !c[field].is_null() {
                out.push(forbidden(
                    &child(&at, field),
                    "may not be set for init containers without restartPolicy=Always",
                ));
            }
        }
    }
    let restart = text(spec, "restartPolicy");
    if !RESTART_POLICIES.contains(&restart) {
        let field = child(path, "restartPolicy");
        out.push(if restart.is_empty() {
            required(&field)
        } else {
            not_supported(&field, restart, RESTART_POLICIES)
        });
    }
    let dns = text(spec, "dnsPolicy");
    if !DNS_POLICIES.contains(&dns) {
        let field = child(path, "dnsPolicy");
        out.push(if dns.is_empty() {
            required(&field)
        } else {
            not_supported(&field, dns, DNS_POLICIES)
        });
    }
    out.extend(check_labels(
        &child(path, "nodeSelector"),
        spec["nodeSelector"].as_object(),
    ));
    out.extend(super::pod_security_context::pod(spec, path));
    if spec["affinity"].is_object() {
        let at = child(path, "affinity");
        out.extend(super::pod_scheduling::affinity(&spec["affinity"], &at));
    }
    out.extend(super::pod_dns::dns_config(spec, &child(path, "dnsConfig")));
    out.extend(super::pod_dns::readiness_gates(
        spec,
        &child(path, "readinessGates"),
    ));
    out.extend(super::pod_scheduling::topology_spread(
        &spec["topologySpreadConstraints"],
        &child(path, "topologySpreadConstraints"),
    ));
    out.extend(security_context::windows_host_process(spec, path));
    out.extend(super::pod_security_context::host_users(spec, path));
    let account = text(spec, "serviceAccountName");
    if !account.is_empty() {
        for why in dns1123_subdomain(account) {
            out.push(invalid_str(
                &child(path, "serviceAccountName"),
                account,
                &why,
            ));
        }
    }
    let node = text(spec, "nodeName");
    if !node.is_empty() {
        for why in dns1123_subdomain(node) {
            out.push(invalid_str(&child(path, "nodeName"), node, &why));
        }
    }
    if let Some(n) = spec["activeDeadlineSeconds"].as_i64()
        && !(1..=2_147_483_647).contains(&n)
    {
        out.push(invalid(
            &child(path, "activeDeadlineSeconds"),
            &Value::from(n),
            "must be between 1 and 2147483647, inclusive",
        ));
    }
    for f in ["hostname", "subdomain"] {
        let v = text(spec, f);
        if !v.is_empty() {
            out.extend(check_dns1123_label(&child(path, f), v));
        }
    }
    out.extend(tolerations(
        &spec["tolerations"],
        &child(path, "tolerations"),
    ));
    out.extend(super::pod_dns::host_aliases(
        spec,
        &child(path, "hostAliases"),
    ));
    out.extend(super::pod_os::os(spec, path));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn containers_required_and_unique() {
        let base = json!({"restartPolicy": "Always", "dnsPolicy": "ClusterFirst"});
        let mut none = base.clone();
        none["containers"] = json!([]);
        assert_eq!(pod_spec(&none, "spec")[0].field, "spec.containers");
        let mut twice = base;
        twice["containers"] = json!([{"name": "c", "image": "a", "terminationMessagePolicy": "File"}, {"name": "c", "image": "b", "terminationMessagePolicy": "File"}]);
        let errs = pod_spec(&twice, "spec");
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "spec.containers[1].name");
        assert_eq!(errs[0].message, "Duplicate value: \"c\"");
    }

    #[test]
    fn a_pod_checks_its_mirror_annotation_and_image_spaces() {
        let object = json!({"metadata": {"annotations": {"kubernetes.io/config.mirror": "m"}},
            "spec": {"restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
                "containers": [{"name": "c", "image": " x", "terminationMessagePolicy": "File"}]}});
        let fields: Vec<String> = pod(&object).into_iter().map(|c| c.field).collect();
        assert_eq!(
            fields,
            [
                "metadata.annotations[kubernetes.io/config.mirror]",
                "spec.containers[0].image"
            ]
        );
    }
}
