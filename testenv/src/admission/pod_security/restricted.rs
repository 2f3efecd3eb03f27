//! The checks the Pod Security Standards' restricted level adds to the baseline ones, as
//! kube-apiserver v1.34's PodSecurity plugin runs them: the real server's forbidden reasons
//! and details, and the older forms a namespace's `*-version` label selects (v1.25 exempts
//! Windows pods from the Linux-only rules).

use std::collections::BTreeSet;

use serde_json::Value;

use super::baseline::{allowed_seccomp, explicit_seccomp};
use super::spec::{
    Pod, Violation, container_security, containers_phrase, join_quote, name, pluralize,
};

/// allowPrivilegeEscalation (v1.8+): every container sets it to false.
pub fn allow_privilege_escalation_1_8(pod: Pod) -> Option<Violation> {
    let containers: Vec<&str> = pod
        .containers()
        .filter(|c| {
            container_security(c, &["allowPrivilegeEscalation"]).and_then(Value::as_bool)
                != Some(false)
        })
        .map(name)
        .collect();
    (!containers.is_empty()).then(|| {
        Violation::new(
            "allowPrivilegeEscalation != false",
            format!(
                "{} must set securityContext.allowPrivilegeEscalation=false",
                containers_phrase(&containers)
            ),
        )
    })
}

/// allowPrivilegeEscalation from v1.25: Windows pods are exempt.
pub fn allow_privilege_escalation_1_25(pod: Pod) -> Option<Violation> {
    if pod.is_windows() {
        return None;
    }
    allow_privilege_escalation_1_8(pod)
}

/// Capabilities (v1.22+): every container drops `ALL` and adds nothing but
/// `NET_BIND_SERVICE`.
pub fn capabilities_1_22(pod: Pod) -> Option<Violation> {
    let mut missing_drop = Vec::new();
    let mut adding = Vec::new();
    let mut added = BTreeSet::new();
    for c in pod.containers() {
        let Some(caps) = container_security(c, &["capabilities"]) else {
            missing_drop.push(name(c));
            continue;
        };
        let list = |key: &str| {
            caps[key]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| v.as_str().unwrap_or_default())
                .collect::<Vec<_>>()
        };
        if !list("drop").contains(&"ALL") {
            missing_drop.push(name(c));
        }
        let forbidden: Vec<&str> = list("add")
            .into_iter()
            .filter(|cap| *cap != "NET_BIND_SERVICE")
            .collect();
        if !forbidden.is_empty() {
            adding.push(name(c));
            added.extend(forbidden);
        }
    }
    let mut details = Vec::new();
    if !missing_drop.is_empty() {
        details.push(format!(
            "{} must set securityContext.capabilities.drop=[\"ALL\"]",
            containers_phrase(&missing_drop)
        ));
    }
    if !adding.is_empty() {
        details.push(format!(
            "{} must not include {} in securityContext.capabilities.add",
            containers_phrase(&adding),
            join_quote(added.iter())
        ));
    }
    (!details.is_empty()).then(|| Violation::new("unrestricted capabilities", details.join("; ")))
}

/// Capabilities from v1.25: Windows pods are exempt.
pub fn capabilities_1_25(pod: Pod) -> Option<Violation> {
    if pod.is_windows() {
        return None;
    }
    capabilities_1_22(pod)
}

/// The volume sources a restricted pod may use.
const ALLOWED_VOLUMES: &[&str] = &[
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "image",
    "persistentVolumeClaim",
    "projected",
    "secret",
];

/// The other volume sources, in the order the policy names a volume's type by.
const RESTRICTED_VOLUMES: &[&str] = &[
    "hostPath",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "nfs",
    "iscsi",
    "glusterfs",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "fc",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "storageos",
];

/// Volume types (v1.0+): only the allowed sources (this replaces baseline's hostPath check).
pub fn volumes(pod: Pod) -> Option<Violation> {
    let set = |v: &Value, source: &str| v.get(source).is_some_and(|s| !s.is_null());
    let mut names = Vec::new();
    let mut types = BTreeSet::new();
    for v in pod.spec["volumes"].as_array().into_iter().flatten() {
        if ALLOWED_VOLUMES.iter().any(|s| set(v, s)) {
            continue;
        }
        names.push(name(v));
        let kind = RESTRICTED_VOLUMES.iter().find(|s| set(v, s));
        types.insert(kind.copied().unwrap_or("unknown"));
    }
    (!names.is_empty()).then(|| {
        Violation::new(
            "restricted volume types",
            format!(
                "{} {} {} {} {}",
                pluralize("volume", "volumes", names.len()),
                join_quote(names.iter()),
                pluralize("uses", "use", names.len()),
                pluralize(
                    "restricted volume type",
                    "restricted volume types",
                    types.len()
                ),
                join_quote(types.iter())
            ),
        )
    })
}

/// runAsNonRoot (v1.0+): true at the pod level or in every container, false nowhere.
pub fn run_as_non_root(pod: Pod) -> Option<Violation> {
    let pod_value = pod.security(&["runAsNonRoot"]).and_then(Value::as_bool);
    let pod_bad = pod_value == Some(false);
    let pod_ok = pod_value == Some(true);
    let mut explicit = Vec::new();
    let mut implicit = Vec::new();
    for c in pod.containers() {
        match container_security(c, &["runAsNonRoot"]) {
            Some(v) if v.as_bool() != Some(true) => explicit.push(name(c)),
            None if !pod_ok => implicit.push(name(c)),
            _ => {}
        }
    }
    let mut who = Vec::new();
    if pod_bad {
        who.push("pod".to_string());
    }
    if !explicit.is_empty() {
        who.push(containers_phrase(&explicit));
    }
    if !who.is_empty() {
        return Some(Violation::new(
            "runAsNonRoot != true",
            format!(
                "{} must not set securityContext.runAsNonRoot=false",
                who.join(" and ")
            ),
        ));
    }
    (!implicit.is_empty()).then(|| {
        Violation::new(
            "runAsNonRoot != true",
            format!(
                "pod or {} must set securityContext.runAsNonRoot=true",
                containers_phrase(&implicit)
            ),
        )
    })
}

/// runAsUser (v1.23+): nobody sets `runAsUser: 0`.
pub fn run_as_user(pod: Pod) -> Option<Violation> {
    let root = |v: Option<&Value>| v.and_then(Value::as_i64) == Some(0);
    let mut who = Vec::new();
    if root(pod.security(&["runAsUser"])) {
        who.push("pod".to_string());
    }
    let containers: Vec<&str> = pod
        .containers()
        .filter(|c| root(container_security(c, &["runAsUser"])))
        .map(name)
        .collect();
    if !containers.is_empty() {
        who.push(containers_phrase(&containers));
    }
    (!who.is_empty()).then(|| {
        Violation::new(
            "runAsUser=0",
            format!("{} must not set runAsUser=0", who.join(" and ")),
        )
    })
}

/// Seccomp (v1.19+): no forbidden type anywhere, and a type set at the pod level or in
/// every container (this replaces baseline's seccomp check).
pub fn seccomp_1_19(pod: Pod) -> Option<Violation> {
    if let Some(explicit) = explicit_seccomp(pod) {
        return Some(explicit);
    }
    let pod_set = pod
        .security(&["seccompProfile"])
        .is_some_and(allowed_seccomp);
    if pod_set {
        return None;
    }
    let implicit: Vec<&str> = pod
        .containers()
        .filter(|c| container_security(c, &["seccompProfile"]).is_none())
        .map(name)
        .collect();
    (!implicit.is_empty()).then(|| {
        Violation::new(
            "seccompProfile",
            format!(
                "pod or {} must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\"",
                containers_phrase(&implicit)
            ),
        )
    })
}

/// Seccomp from v1.25: Windows pods are exempt.
pub fn seccomp_1_25(pod: Pod) -> Option<Violation> {
    if pod.is_windows() {
        return None;
    }
    seccomp_1_19(pod)
}
