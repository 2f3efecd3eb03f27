//! The checks kube-apiserver v1.34 makes last in a pod spec that names its OS
//! (`validateOS`, then `validateLinux` or `validateWindows`): the OS is `linux` or `windows`;
//! a Linux pod sets no Windows options; a Windows pod sets none of the Linux-only fields of
//! its security context, host namespaces and containers' security contexts.

use serde_json::Value;

use super::errors::{Errors, child, forbidden, index, not_supported, required};

/// The OS names a pod may give.
const OSES: &[&str] = &["linux", "windows"];
/// The container lists of a pod spec, in the order the real server visits them.
const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];
/// What a Windows pod is told of a Linux-only field.
const WINDOWS: &str = "cannot be set for a windows pod";
/// What a Linux pod is told of Windows options.
const LINUX: &str = "windows options cannot be set for a linux pod";

/// The pod security context fields a Windows pod may not set, in the order they are
/// checked, with the spec's own fields the internal security context holds (`spec.`).
const WINDOWS_POD_FIELDS: &[&str] = &[
    "securityContext.appArmorProfile",
    "securityContext.seLinuxOptions",
    "hostUsers",
    "hostPID",
    "hostIPC",
    "securityContext.seccompProfile",
    "securityContext.fsGroup",
    "securityContext.fsGroupChangePolicy",
    "securityContext.sysctls",
    "shareProcessNamespace",
    "securityContext.runAsUser",
    "securityContext.runAsGroup",
    "securityContext.supplementalGroups",
    "securityContext.supplementalGroupsPolicy",
    "securityContext.seLinuxChangePolicy",
];
/// The container security context fields a Windows pod may not set, in order.
const WINDOWS_CONTAINER_FIELDS: &[&str] = &[
    "appArmorProfile",
    "seLinuxOptions",
    "seccompProfile",
    "capabilities",
    "readOnlyRootFilesystem",
    "privileged",
    "allowPrivilegeEscalation",
    "procMount",
    "runAsUser",
    "runAsGroup",
];

/// The OS checks of the pod spec at `path` (nothing when it names no OS).
pub fn os(spec: &Value, path: &str) -> Errors {
    let os = &spec["os"];
    if os.is_null() {
        return Vec::new();
    }
    let os_path = child(path, "os");
    match os["name"].as_str().unwrap_or_default() {
        "" => vec![required(&child(&os_path, "name"))],
        "linux" => linux(spec, path),
        "windows" => windows(spec, path),
        other => vec![not_supported(&os_path, other, OSES)],
    }
}

/// Each container of `spec` with its path.
fn containers<'a>(spec: &'a Value, path: &str) -> Vec<(&'a Value, String)> {
    CONTAINER_LISTS
        .iter()
        .flat_map(|list| {
            let list_path = child(path, list);
            spec[*list]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
                .map(move |(i, c)| (c, index(&list_path, i)))
        })
        .collect()
}

/// `validateLinux`: no Windows options, on the pod or any container.
fn linux(spec: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    if !spec["securityContext"]["windowsOptions"].is_null() {
        out.push(forbidden(
            &child(path, "securityContext.windowsOptions"),
            LINUX,
        ));
    }
    for (c, at) in containers(spec, path) {
        if !c["securityContext"]["windowsOptions"].is_null() {
            out.push(forbidden(
                &child(&at, "securityContext.windowsOptions"),
                LINUX,
            ));
        }
    }
    out
}

/// Whether a field of the internal pod security context is set: a host namespace flag when
/// true, the sysctls when not empty, anything else when present.
fn pod_field_set(spec: &Value, field: &str) -> bool {
    let value = match field.strip_prefix("securityContext.") {
        Some(name) => &spec["securityContext"][name],
        None => &spec[field],
    };
    match field {
        "hostPID" | "hostIPC" => value.as_bool() == Some(true),
        "securityContext.sysctls" => value.as_array().is_some_and(|s| !s.is_empty()),
        _ => !value.is_null(),
    }
}

/// `validateWindows`: none of the Linux-only fields, on the pod, then on each container.
fn windows(spec: &Value, path: &str) -> Errors {
    let mut out: Errors = WINDOWS_POD_FIELDS
        .iter()
        .filter(|field| pod_field_set(spec, field))
        .map(|field| forbidden(&child(path, field), WINDOWS))
        .collect();
    for (c, at) in containers(spec, path) {
        let context = &c["securityContext"];
        let context_path = child(&at, "securityContext");
        for field in WINDOWS_CONTAINER_FIELDS {
            if !context[*field].is_null() {
                out.push(forbidden(&child(&context_path, field), WINDOWS));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(spec: Value) -> Vec<String> {
        os(&spec, "spec").into_iter().map(|c| c.field).collect()
    }

    #[test]
    fn the_os_name_is_required_and_known() {
        assert_eq!(fields(json!({"os": {}})), ["spec.os.name"]);
        let unknown = os(&json!({"os": {"name": "Windows"}}), "spec");
        assert_eq!(unknown[0].field, "spec.os");
        assert_eq!(
            unknown[0].message,
            "Unsupported value: \"Windows\": supported values: \"linux\", \"windows\""
        );
        assert!(fields(json!({"securityContext": {"runAsUser": 1}})).is_empty());
    }

    #[test]
    fn linux_pods_set_no_windows_options() {
        let spec = json!({"os": {"name": "linux"}, "securityContext": {"windowsOptions": {}},
            "containers": [{"name": "c", "securityContext": {"windowsOptions": {}}}]});
        assert_eq!(
            fields(spec),
            [
                "spec.securityContext.windowsOptions",
                "spec.containers[0].securityContext.windowsOptions"
            ]
        );
    }

    #[test]
    fn windows_pods_set_no_linux_fields() {
        let spec = json!({"os": {"name": "windows"}, "hostPID": false, "hostIPC": true,
            "shareProcessNamespace": false,
            "securityContext": {"runAsUser": 1, "sysctls": [], "fsGroup": 2, "runAsNonRoot": true},
            "initContainers": [{"name": "i", "securityContext": {"privileged": false}}],
            "containers": [{"name": "c", "securityContext": {"runAsGroup": 1, "capabilities": {}}}]});
        assert_eq!(
            fields(spec),
            [
                "spec.hostIPC",
                "spec.securityContext.fsGroup",
                "spec.shareProcessNamespace",
                "spec.securityContext.runAsUser",
                "spec.initContainers[0].securityContext.privileged",
                "spec.containers[0].securityContext.capabilities",
                "spec.containers[0].securityContext.runAsGroup",
            ]
        );
    }
}
