//! Security context rules of a pod spec that kube-apiserver v1.34 checks field by field:
//! a `seccompProfile` (of the pod or a container: its type, and a `localhostProfile` with,
//! and only with, the `Localhost` type, relative and never stepping back); the pod's
//! `sysctls` (named as the kernel names them, each once, none of the host's namespaces a
//! pod shares with `hostNetwork` or `hostIPC`); and the Windows host-process options (pod
//! and containers agree, all containers or none, with `hostNetwork`).

use std::collections::HashSet;

use serde_json::Value;

use super::errors::{
    Errors, child, duplicate, index, invalid, invalid_str, invalid_text, not_supported, required,
    required_because,
};

/// The seccomp profile types of the field.
const SECCOMP_TYPES: &[&str] = &["Localhost", "RuntimeDefault", "Unconfined"];
/// The longest sysctl name (`SysctlMaxLength`).
const SYSCTL_MAX_LENGTH: usize = 253;
/// What an invalid sysctl name is told: its length and the regex (`SysctlContainSlashFmt`).
const SYSCTL_FORMAT: &str = "must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$";
/// The container lists of a pod spec, in the order the real server visits them.
const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

/// `validateSeccompProfileField` of `holder`'s (a pod spec's or a container's, at `path`)
/// `securityContext.seccompProfile` (nothing when it is unset).
pub fn seccomp_profile(holder: &Value, path: &str) -> Errors {
    let profile = &holder["securityContext"]["seccompProfile"];
    if profile.is_null() {
        return Vec::new();
    }
    let at = child(&child(path, "securityContext"), "seccompProfile");
    let local_path = child(&at, "localhostProfile");
    let kind = profile["type"].as_str().unwrap_or_default();
    let local = profile["localhostProfile"].as_str();
    let mut out = Vec::new();
    match kind {
        "Localhost" | "RuntimeDefault" | "Unconfined" => {}
        "" => out.push(required_because(
            &child(&at, "type"),
            "type is required when seccompProfile is set",
        )),
        other => out.push(not_supported(&child(&at, "type"), other, SECCOMP_TYPES)),
    }
    match (kind, local) {
        ("Localhost", None) => out.push(required_because(
            &local_path,
            "must be set when seccomp type is Localhost",
        )),
        ("Localhost", Some(name)) => {
            if name.starts_with('/') {
                out.push(invalid_str(&local_path, name, "must be a relative path"));
            }
            if name.split('/').any(|part| part == "..") {
                out.push(invalid_str(&local_path, name, "must not contain '..'"));
            }
        }
        (_, Some(name)) => {
            // The whole internal struct is the value printed.
            let shown = format!(
                "{{\"Type\":{},\"LocalhostProfile\":{}}}",
                Value::String(kind.into()),
                Value::String(name.into())
            );
            out.push(invalid_text(
                &local_path,
                &shown,
                "can only be set when seccomp type is Localhost",
            ));
        }
        (_, None) => {}
    }
    out
}

/// Whether `name` is a sysctl name the real server accepts: dot or slash separated
/// segments of lower-case letters, digits, `-` and `_` (starting and ending alphanumeric).
fn valid_sysctl_name(name: &str) -> bool {
    let segment_ok = |s: &str| {
        let bytes = s.as_bytes();
        let edge = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
        !bytes.is_empty()
            && bytes.first().is_some_and(edge)
            && bytes.last().is_some_and(edge)
            && bytes.iter().all(|b| edge(b) || *b == b'-' || *b == b'_')
    };
    name.len() <= SYSCTL_MAX_LENGTH && name.split(['.', '/']).all(segment_ok)
}

/// The name of a sysctl with dots between its segments: a name whose first separator is a
/// slash has its slashes and dots swapped (`NormalizeName`).
fn normalized(name: &str) -> String {
    match name.find(['.', '/']) {
        Some(i) if name.as_bytes()[i] == b'/' => name
            .chars()
            .map(|c| match c {
                '/' => '.',
                '.' => '/',
                other => other,
            })
            .collect(),
        _ => name.to_string(),
    }
}

/// The host setting a sysctl may not be combined with (`ValidateHostSysctl`), by the
/// kernel namespace its name falls in.
fn host_conflict(name: &str, spec: &Value, host_network: bool) -> Option<&'static str> {
    let name = normalized(name);
    let ipc = name == "kernel.sem"
        || ["kernel.shm", "kernel.msg", "fs.mqueue."]
            .iter()
            .any(|p| name.starts_with(p));
    if host_network && name.starts_with("net.") {
        Some("may not be specified when 'hostNetwork' is true")
    } else if ipc && spec["hostIPC"].as_bool() == Some(true) {
        Some("may not be specified when 'hostIPC' is true")
    } else {
        None
    }
}

/// `validateSysctls` of the pod spec at `path`: each name set, valid and not repeated, and
/// none of a host namespace the pod shares.
pub fn sysctls(spec: &Value, path: &str) -> Errors {
    let list = items(&spec["securityContext"]["sysctls"]);
    let list_path = child(&child(path, "securityContext"), "sysctls");
    let host_network = spec["hostNetwork"].as_bool() == Some(true);
    let mut names = HashSet::new();
    let mut out = Vec::new();
    for (i, s) in list.iter().enumerate() {
        let at = child(&index(&list_path, i), "name");
        let name = s["name"].as_str().unwrap_or_default();
        if name.is_empty() {
            out.push(required(&at));
        } else if !valid_sysctl_name(name) {
            out.push(invalid_str(&at, name, SYSCTL_FORMAT));
        } else if names.contains(name) {
            out.push(duplicate(&at, &Value::String(name.into())));
        }
        if let Some(why) = host_conflict(name, spec, host_network) {
            out.push(invalid_str(&at, name, why));
        }
        names.insert(name);
    }
    out
}

/// The `windowsOptions.hostProcess` of a security context, if set.
fn host_process(holder: &Value) -> Option<bool> {
    holder["securityContext"]["windowsOptions"]["hostProcess"].as_bool()
}

/// `validateWindowsHostProcessPod` of the pod spec at `path`: a container's `hostProcess`
/// is the pod's when both are set; when any container is a host process (its own or the
/// pod's setting), all are, and the pod uses the host's network.
pub fn windows_host_process(spec: &Value, path: &str) -> Errors {
    let pod = host_process(spec);
    let mut out = Vec::new();
    let mut count = 0;
    let mut host_process_count = 0;
    for list in CONTAINER_LISTS {
        for (i, c) in items(&spec[list]).iter().enumerate() {
            count += 1;
            let own = host_process(c);
            if let (Some(p), Some(o)) = (pod, own)
                && p != o
            {
                let at = child(&index(&child(path, list), i), "securityContext");
                out.push(invalid(
                    &child(&child(&at, "windowsOptions"), "hostProcess"),
                    &Value::Bool(o),
                    &format!(
                        "pod hostProcess value must be identical if both are specified, was {p}"
                    ),
                ));
            }
            if own.or(pod) == Some(true) {
                host_process_count += 1;
            }
        }
    }
    if host_process_count == 0 {
        return out;
    }
    if host_process_count != count {
        out.push(invalid_str(
            path,
            "",
            "If pod contains any hostProcess containers then all containers must be HostProcess containers",
        ));
    }
    let host_network = spec["hostNetwork"].as_bool() == Some(true);
    if !host_network {
        out.push(invalid(
            &child(path, "hostNetwork"),
            &Value::Bool(false),
            "hostNetwork must be true if pod contains any hostProcess containers",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shown(errors: Errors) -> Vec<String> {
        errors
            .into_iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    fn seccomp(profile: Value) -> Vec<String> {
        shown(seccomp_profile(
            &json!({"securityContext": {"seccompProfile": profile}}),
            "c",
        ))
    }

    #[test]
    fn a_seccomp_profile_is_checked_by_its_type() {
        let p = "c.securityContext.seccompProfile";
        assert!(seccomp(json!({"type": "Localhost", "localhostProfile": "a/b"})).is_empty());
        assert!(seccomp(json!({"type": "Unconfined"})).is_empty());
        assert_eq!(
            seccomp(json!({"localhostProfile": "/../a"})),
            [
                format!("{p}.type: Required value: type is required when seccompProfile is set"),
                format!(
                    "{p}.localhostProfile: Invalid value: {{\"Type\":\"\",\"LocalhostProfile\":\"/../a\"}}: can only be set when seccomp type is Localhost"
                ),
            ]
        );
        assert_eq!(
            seccomp(json!({"type": "Localhost", "localhostProfile": "/../a"})),
            [
                format!("{p}.localhostProfile: Invalid value: \"/../a\": must be a relative path"),
                format!("{p}.localhostProfile: Invalid value: \"/../a\": must not contain '..'"),
            ]
        );
        assert_eq!(
            seccomp(json!({"type": "Localhost"})),
            [format!(
                "{p}.localhostProfile: Required value: must be set when seccomp type is Localhost"
            )]
        );
        assert_eq!(
            seccomp(json!({"type": "Bogus"})),
            [format!(
                "{p}.type: Unsupported value: \"Bogus\": supported values: \"Localhost\", \"RuntimeDefault\", \"Unconfined\""
            )]
        );
    }

    #[test]
    fn sysctl_names_are_valid_unique_and_not_of_a_shared_host_namespace() {
        let spec = json!({"hostNetwork": true, "hostIPC": true, "securityContext": {"sysctls": [
            {"name": "Bad!"}, {"name": "net/ipv4/ip_forward"}, {"name": "kernel.sem"},
            {"name": "a.b"}, {"name": "a.b"}, {"name": ""}, {"name": "kernel/shm_rmid_forced"},
            {"name": "a..b"}, {"name": "net"},
        ]}});
        let fields: Vec<String> = sysctls(&spec, "spec")
            .into_iter()
            .map(|c| c.field)
            .collect();
        let s = "spec.securityContext.sysctls";
        assert_eq!(
            fields,
            [0, 1, 2, 4, 5, 6, 7].map(|i| format!("{s}[{i}].name"))
        );
        assert_eq!(
            normalized("net/ipv4/conf/eno2.100"),
            "net.ipv4.conf.eno2/100"
        );
    }

    #[test]
    fn host_process_containers_agree_with_the_pod() {
        let spec = json!({"securityContext": {"windowsOptions": {"hostProcess": true}},
            "initContainers": [{"name": "i", "securityContext": {"windowsOptions": {"hostProcess": false}}}],
            "containers": [{"name": "c"}]});
        assert_eq!(
            shown(windows_host_process(&spec, "spec")),
            [
                "spec.initContainers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true",
                "spec: Invalid value: \"\": If pod contains any hostProcess containers then all containers must be HostProcess containers",
                "spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers",
            ]
        );
        let fine = json!({"hostNetwork": true, "containers": [
            {"name": "c", "securityContext": {"windowsOptions": {"hostProcess": true}}}]});
        assert!(windows_host_process(&fine, "spec").is_empty());
    }
}
