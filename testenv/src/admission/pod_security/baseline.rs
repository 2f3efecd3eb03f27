//! The checks of the Pod Security Standards' baseline level, as the PodSecurity admission
//! plugin of kube-apiserver v1.34 runs them (policy `k8s.io/pod-security-admission`): each
//! returns the forbidden reason and detail the real server writes, or nothing when the pod
//! passes. Some have older forms, chosen by a namespace's `*-version` label.

use std::collections::BTreeSet;

use serde_json::Value;

use super::spec::{
    Pod, Violation, container_security, containers_phrase, field, join_quote, name, pluralize, text,
};
use crate::support::go_quote::go_quote;

/// The prefix of the deprecated per-container AppArmor annotations.
const APPARMOR_ANNOTATION: &str = "container.apparmor.security.beta.kubernetes.io/";
/// The deprecated pod-level seccomp annotation.
const SECCOMP_POD_ANNOTATION: &str = "seccomp.security.alpha.kubernetes.io/pod";
/// The prefix of the deprecated per-container seccomp annotations.
const SECCOMP_CONTAINER_ANNOTATION: &str = "container.seccomp.security.alpha.kubernetes.io/";

/// The capabilities a baseline container may add (the container runtime's default set).
const DEFAULT_CAPABILITIES: &[&str] = &[
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
];

/// `pod`, `containers "a", "b"` and the like, joined by ` and `.
fn setters(pod_sets: bool, containers: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    if pod_sets {
        out.push("pod".to_string());
    }
    if !containers.is_empty() {
        out.push(containers_phrase(containers));
    }
    out
}

/// AppArmor (v1.0+): profile types other than `RuntimeDefault` and `Localhost`, and
/// annotations other than `runtime/default` and `localhost/*`.
pub fn app_armor(pod: Pod) -> Option<Violation> {
    let allowed = |t: &str| matches!(t, "RuntimeDefault" | "Localhost");
    let mut bad_values = BTreeSet::new();
    let pod_type = pod
        .security(&["appArmorProfile"])
        .map(|p| text(p, &["type"]));
    let pod_bad = pod_type.is_some_and(|t| !allowed(t));
    if let Some(t) = pod_type.filter(|t| !allowed(t)) {
        bad_values.insert(t.to_string());
    }
    let mut containers = Vec::new();
    for c in pod.containers() {
        if let Some(p) = container_security(c, &["appArmorProfile"]) {
            let t = text(p, &["type"]);
            if !allowed(t) {
                containers.push(name(c));
                bad_values.insert(t.to_string());
            }
        }
    }
    let mut who = setters(pod_bad, &containers);
    let mut values: Vec<String> = bad_values.into_iter().collect();
    let mut annotations: Vec<String> = pod
        .annotations()
        .filter(|(k, v)| {
            k.starts_with(APPARMOR_ANNOTATION)
                && !(v.is_empty() || *v == "runtime/default" || v.starts_with("localhost/"))
        })
        .map(|(k, v)| format!("{k}={}", go_quote(v)))
        .collect();
    if !annotations.is_empty() {
        annotations.sort();
        who.push(pluralize("annotation", "annotations", annotations.len()).to_string());
        values.extend(annotations);
    }
    (!who.is_empty()).then(|| {
        Violation::new(
            pluralize(
                "forbidden AppArmor profile",
                "forbidden AppArmor profiles",
                values.len(),
            ),
            format!(
                "{} must not set AppArmor profile type to {}",
                who.join(" and "),
                join_quote(values.iter())
            ),
        )
    })
}

/// Capabilities (v1.0+): only the default set may be added.
pub fn capabilities(pod: Pod) -> Option<Violation> {
    let mut containers = Vec::new();
    let mut added = BTreeSet::new();
    for c in pod.containers() {
        let mut valid = true;
        let adds = container_security(c, &["capabilities", "add"]);
        for cap in adds.and_then(Value::as_array).into_iter().flatten() {
            let cap = cap.as_str().unwrap_or_default();
            if !DEFAULT_CAPABILITIES.contains(&cap) {
                valid = false;
                added.insert(cap.to_string());
            }
        }
        if !valid {
            containers.push(name(c));
        }
    }
    (!containers.is_empty()).then(|| {
        Violation::new(
            "non-default capabilities",
            format!(
                "{} must not include {} in securityContext.capabilities.add",
                containers_phrase(&containers),
                join_quote(added.iter())
            ),
        )
    })
}

/// Host namespaces (v1.0+): `hostNetwork`, `hostPID`, `hostIPC`.
pub fn host_namespaces(pod: Pod) -> Option<Violation> {
    let set: Vec<String> = ["hostNetwork", "hostPID", "hostIPC"]
        .into_iter()
        .filter(|f| pod.spec[*f].as_bool() == Some(true))
        .map(|f| format!("{f}=true"))
        .collect();
    (!set.is_empty()).then(|| Violation::new("host namespaces", set.join(", ")))
}

/// The volumes of a pod, with their names.
fn volumes<'a>(pod: Pod<'a>) -> impl Iterator<Item = &'a Value> {
    pod.spec["volumes"].as_array().into_iter().flatten()
}

/// HostPath volumes (v1.0+).
pub fn host_path_volumes(pod: Pod) -> Option<Violation> {
    let names: Vec<&str> = volumes(pod)
        .filter(|v| field(v, &["hostPath"]).is_some())
        .map(name)
        .collect();
    (!names.is_empty()).then(|| {
        Violation::new(
            "hostPath volumes",
            format!(
                "{} {}",
                pluralize("volume", "volumes", names.len()),
                join_quote(names.iter())
            ),
        )
    })
}

/// Host ports (v1.0+): any non-zero `hostPort`.
pub fn host_ports(pod: Pod) -> Option<Violation> {
    let mut containers = Vec::new();
    let mut ports = BTreeSet::new();
    for c in pod.containers() {
        let mut valid = true;
        for port in c["ports"].as_array().into_iter().flatten() {
            let host = port["hostPort"].as_i64().unwrap_or(0);
            if host != 0 {
                valid = false;
                ports.insert(host.to_string());
            }
        }
        if !valid {
            containers.push(name(c));
        }
    }
    (!containers.is_empty()).then(|| {
        Violation::new(
            "hostPort",
            format!(
                "{} {} {} {}",
                containers_phrase(&containers),
                pluralize("uses", "use", containers.len()),
                pluralize("hostPort", "hostPorts", ports.len()),
                ports.into_iter().collect::<Vec<_>>().join(", ")
            ),
        )
    })
}

/// The hosts a probe or lifecycle handler sets (`httpGet.host`, `tcpSocket.host`).
fn handler_hosts(handler: &Value) -> impl Iterator<Item = &str> {
    ["httpGet", "tcpSocket"]
        .into_iter()
        .map(|kind| text(handler, &[kind, "host"]))
        .filter(|h| !h.is_empty())
}

/// Probe and lifecycle hosts (v1.34+): probes and lifecycle handlers may not name a host.
pub fn host_probes_and_lifecycle(pod: Pod) -> Option<Violation> {
    let mut containers = BTreeSet::new();
    let mut hosts = BTreeSet::new();
    for c in pod.containers() {
        let handlers = ["livenessProbe", "readinessProbe", "startupProbe"]
            .into_iter()
            .map(|p| &c[p])
            .chain(["postStart", "preStop"].map(|h| &c["lifecycle"][h]));
        for handler in handlers {
            for host in handler_hosts(handler) {
                containers.insert(name(c));
                hosts.insert(host);
            }
        }
    }
    (!containers.is_empty()).then(|| {
        Violation::new(
            "probe or lifecycle host",
            format!(
                "{} {} {} {}",
                containers_phrase(&containers.iter().collect::<Vec<_>>()),
                pluralize("uses", "use", containers.len()),
                pluralize(
                    "probe or lifecycle host",
                    "probe or lifecycle hosts",
                    hosts.len()
                ),
                join_quote(hosts.iter())
            ),
        )
    })
}

/// Privileged containers (v1.0+).
pub fn privileged(pod: Pod) -> Option<Violation> {
    let containers: Vec<&str> = pod
        .containers()
        .filter(|c| container_security(c, &["privileged"]).and_then(Value::as_bool) == Some(true))
        .map(name)
        .collect();
    (!containers.is_empty()).then(|| {
        Violation::new(
            "privileged",
            format!(
                "{} must not set securityContext.privileged=true",
                containers_phrase(&containers)
            ),
        )
    })
}

/// /proc mount (v1.0+): only the `Default` mask.
pub fn proc_mount(pod: Pod) -> Option<Violation> {
    let mut containers = Vec::new();
    let mut types = BTreeSet::new();
    for c in pod.containers() {
        if let Some(mount) = container_security(c, &["procMount"]) {
            let mount = mount.as_str().unwrap_or_default();
            if mount != "Default" {
                containers.push(name(c));
                types.insert(mount);
            }
        }
    }
    (!containers.is_empty()).then(|| {
        Violation::new(
            "procMount",
            format!(
                "{} must not set securityContext.procMount to {}",
                containers_phrase(&containers),
                join_quote(types.iter())
            ),
        )
    })
}

/// The SELinux types a pod may set before v1.31.
const SELINUX_TYPES_1_0: &[&str] = &["", "container_t", "container_init_t", "container_kvm_t"];
/// The SELinux types a pod may set from v1.31.
const SELINUX_TYPES_1_31: &[&str] = &[
    "",
    "container_t",
    "container_init_t",
    "container_kvm_t",
    "container_engine_t",
];

/// SELinux options (v1.0+; v1.31 allows `container_engine_t`): no other type, no user,
/// no role.
fn se_linux(pod: Pod, allowed: &[&str]) -> Option<Violation> {
    let mut types = BTreeSet::new();
    let (mut user, mut role) = (false, false);
    let mut valid = |options: &Value| {
        let t = text(options, &["type"]);
        let mut ok = true;
        if !allowed.contains(&t) {
            ok = false;
            types.insert(t.to_string());
        }
        if !text(options, &["user"]).is_empty() {
            ok = false;
            user = true;
        }
        if !text(options, &["role"]).is_empty() {
            ok = false;
            role = true;
        }
        ok
    };
    let pod_bad = pod.security(&["seLinuxOptions"]).is_some_and(|o| !valid(o));
    let mut containers = Vec::new();
    for c in pod.containers() {
        if let Some(o) = container_security(c, &["seLinuxOptions"])
            && !valid(o)
        {
            containers.push(name(c));
        }
    }
    let who = setters(pod_bad, &containers);
    if who.is_empty() {
        return None;
    }
    let mut what = Vec::new();
    if !types.is_empty() {
        what.push(format!(
            "{} {}",
            pluralize("type", "types", types.len()),
            join_quote(types.iter())
        ));
    }
    if user {
        what.push("user may not be set".to_string());
    }
    if role {
        what.push("role may not be set".to_string());
    }
    Some(Violation::new(
        "seLinuxOptions",
        format!(
            "{} set forbidden securityContext.seLinuxOptions: {}",
            who.join(" and "),
            what.join("; ")
        ),
    ))
}

/// SELinux options before v1.31.
pub fn se_linux_1_0(pod: Pod) -> Option<Violation> {
    se_linux(pod, SELINUX_TYPES_1_0)
}

/// SELinux options from v1.31.
pub fn se_linux_1_31(pod: Pod) -> Option<Violation> {
    se_linux(pod, SELINUX_TYPES_1_31)
}

/// Whether a seccomp profile type is allowed (`RuntimeDefault`, `Localhost`).
pub fn allowed_seccomp(profile: &Value) -> bool {
    matches!(text(profile, &["type"]), "RuntimeDefault" | "Localhost")
}

/// Seccomp before v1.19: the deprecated annotations, other than `runtime/default`,
/// `docker/default` and `localhost/*`.
pub fn seccomp_annotations(pod: Pod) -> Option<Violation> {
    let allowed =
        |v: &str| v == "runtime/default" || v == "docker/default" || v.starts_with("localhost/");
    let mut forbidden = BTreeSet::new();
    if let Some(v) = pod
        .annotation(SECCOMP_POD_ANNOTATION)
        .filter(|v| !allowed(v))
    {
        forbidden.insert(format!("{SECCOMP_POD_ANNOTATION}={}", go_quote(v)));
    }
    for c in pod.containers() {
        let key = format!("{SECCOMP_CONTAINER_ANNOTATION}{}", name(c));
        if let Some(v) = pod.annotation(&key).filter(|v| !allowed(v)) {
            forbidden.insert(format!("{key}={}", go_quote(v)));
        }
    }
    (!forbidden.is_empty()).then(|| {
        Violation::new(
            "seccompProfile",
            format!(
                "forbidden {} {}",
                pluralize("annotation", "annotations", forbidden.len()),
                forbidden.into_iter().collect::<Vec<_>>().join(", ")
            ),
        )
    })
}

/// The pod and the containers that set a forbidden seccomp profile type, with the types:
/// `pod and container "c" must not set securityContext.seccompProfile.type to "Unconfined"`.
pub fn explicit_seccomp(pod: Pod) -> Option<Violation> {
    let mut values = BTreeSet::new();
    let pod_profile = pod.security(&["seccompProfile"]);
    let pod_bad = pod_profile.is_some_and(|p| !allowed_seccomp(p));
    if let Some(p) = pod_profile.filter(|p| !allowed_seccomp(p)) {
        values.insert(text(p, &["type"]));
    }
    let mut containers = Vec::new();
    for c in pod.containers() {
        if let Some(p) = container_security(c, &["seccompProfile"]).filter(|p| !allowed_seccomp(p))
        {
            containers.push(name(c));
            values.insert(text(p, &["type"]));
        }
    }
    let who = setters(pod_bad, &containers);
    (!who.is_empty()).then(|| {
        Violation::new(
            "seccompProfile",
            format!(
                "{} must not set securityContext.seccompProfile.type to {}",
                who.join(" and "),
                join_quote(values.iter())
            ),
        )
    })
}

/// The sysctls a pod may set from v1.0.
const SYSCTLS_1_0: &[&str] = &[
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
];
/// Added in v1.27.
const SYSCTLS_1_27: &[&str] = &["net.ipv4.ip_local_reserved_ports"];
/// Added in v1.29.
const SYSCTLS_1_29: &[&str] = &[
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
];
/// Added in v1.32.
const SYSCTLS_1_32: &[&str] = &["net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"];

/// Sysctls: only the safe set of the version, in the pod's order.
fn sysctls(pod: Pod, allowed: &[&[&str]]) -> Option<Violation> {
    let forbidden: Vec<&str> = pod
        .security(&["sysctls"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|s| text(s, &["name"]))
        .filter(|n| !allowed.iter().any(|set| set.contains(n)))
        .collect();
    (!forbidden.is_empty()).then(|| Violation::new("forbidden sysctls", forbidden.join(", ")))
}

/// Sysctls from v1.0.
pub fn sysctls_1_0(pod: Pod) -> Option<Violation> {
    sysctls(pod, &[SYSCTLS_1_0])
}

/// Sysctls from v1.27.
pub fn sysctls_1_27(pod: Pod) -> Option<Violation> {
    sysctls(pod, &[SYSCTLS_1_0, SYSCTLS_1_27])
}

/// Sysctls from v1.29.
pub fn sysctls_1_29(pod: Pod) -> Option<Violation> {
    sysctls(pod, &[SYSCTLS_1_0, SYSCTLS_1_27, SYSCTLS_1_29])
}

/// Sysctls from v1.32.
pub fn sysctls_1_32(pod: Pod) -> Option<Violation> {
    sysctls(
        pod,
        &[SYSCTLS_1_0, SYSCTLS_1_27, SYSCTLS_1_29, SYSCTLS_1_32],
    )
}

/// Windows host process (v1.0+): `windowsOptions.hostProcess=true` anywhere.
pub fn windows_host_process(pod: Pod) -> Option<Violation> {
    let host_process = |v: Option<&Value>| v.and_then(Value::as_bool) == Some(true);
    let containers: Vec<&str> = pod
        .containers()
        .filter(|c| host_process(container_security(c, &["windowsOptions", "hostProcess"])))
        .map(name)
        .collect();
    let pod_bad = host_process(pod.security(&["windowsOptions", "hostProcess"]));
    let who = setters(pod_bad, &containers);
    (!who.is_empty()).then(|| {
        Violation::new(
            "hostProcess",
            format!(
                "{} must not set securityContext.windowsOptions.hostProcess=true",
                who.join(" and ")
            ),
        )
    })
}
