//! The warnings of a pod's metadata and pod-level fields, in the order kube-apiserver v1.34 sends
//! them between the node-label warnings and the containers' ones: deprecated annotations,
//! deprecated volume plugins (and the fractional storage of an ephemeral volume's claim),
//! the paths of volumes' files ([`super::volume_paths`]), duplicate host aliases and image pull secrets, empty
//! image pull secret names, a fractional overhead and the pod seccomp annotation without its field.

use std::collections::HashSet;

use serde_json::Value;

use super::containers::fractional;

/// Annotations that no longer do anything, and what to use instead.
const DEPRECATED_ANNOTATIONS: &[(&str, &str)] = &[
    (
        "scheduler.alpha.kubernetes.io/critical-pod",
        "non-functional in v1.16+; use the \"priorityClassName\" field instead",
    ),
    (
        "security.alpha.kubernetes.io/sysctls",
        "non-functional in v1.11+; use the \"sysctls\" field instead",
    ),
    (
        "security.alpha.kubernetes.io/unsafe-sysctls",
        "non-functional in v1.11+; use the \"sysctls\" field instead",
    ),
];

/// Deprecated volume plugins, in the order they are checked, and what is said of them.
const DEPRECATED_VOLUMES: &[(&str, &str)] = &[
    (
        "photonPersistentDisk",
        "deprecated in v1.11, non-functional in v1.16+",
    ),
    (
        "gitRepo",
        "deprecated in v1.11, and disabled by default in v1.33+",
    ),
    ("scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "deprecated in v1.22, non-functional in v1.25+"),
    ("storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("ephemeral", ""),
    ("cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("rbd", "deprecated in v1.28, non-functional in v1.31+"),
];

/// The pod seccomp annotation the `seccompProfile` field replaced.
const SECCOMP_POD: &str = "seccomp.security.alpha.kubernetes.io/pod";

/// The warnings of the metadata and pod-level fields of `pod`, named from `prefix`.
pub fn warnings(prefix: &str, pod: &Value) -> Vec<String> {
    let spec = &pod["spec"];
    let annotations = &pod["metadata"]["annotations"];
    let mut out = Vec::new();
    for (key, message) in DEPRECATED_ANNOTATIONS {
        if annotations.get(*key).is_some() {
            out.push(format!("{prefix}metadata.annotations[{key}]: {message}"));
        }
    }
    for (i, volume) in items(&spec["volumes"]).enumerate() {
        let path = format!("{prefix}spec.volumes[{i}]");
        for (plugin, message) in DEPRECATED_VOLUMES {
            // The message names StorageOS as the Go field does; its v1 key is lower case.
            let key = if *plugin == "storageOS" {
                "storageos"
            } else {
                plugin
            };
            let source = &volume[key];
            if source.is_null() {
                continue;
            }
            if *plugin == "ephemeral" {
                let claim = &source["volumeClaimTemplate"];
                if !claim.is_null() {
                    let path = format!("{path}.ephemeral.volumeClaimTemplate.spec.resources");
                    let resources = &claim["spec"]["resources"];
                    for list in ["requests", "limits"] {
                        out.extend(fractional(&path, list, resources, "storage"));
                    }
                }
            } else {
                out.push(format!("{path}.{plugin}: {message}"));
            }
        }
    }
    out.extend(super::volume_paths::warnings(spec));
    out.extend(duplicates(prefix, spec, "hostAliases", "ip"));
    out.extend(duplicates(prefix, spec, "imagePullSecrets", "name"));
    for (i, secret) in items(&spec["imagePullSecrets"]).enumerate() {
        if secret["name"].as_str().unwrap_or_default().is_empty() {
            out.push(format!(
                "{prefix}spec.imagePullSecrets[{i}].name: invalid empty name \"\""
            ));
        }
    }
    let overhead = format!("{prefix}spec");
    for resource in ["memory", "ephemeral-storage"] {
        out.extend(fractional(&overhead, "overhead", spec, resource));
    }
    let context = &spec["securityContext"];
    if context["seccompProfile"].is_null() && annotations.get(SECCOMP_POD).is_some() {
        out.push(format!(
            "{prefix}metadata.annotations[{SECCOMP_POD}]: non-functional in v1.27+; use the \"seccompProfile\" field instead"
        ));
    }
    out
}

/// The entries of a list whose `key` an earlier entry has already.
fn duplicates(prefix: &str, spec: &Value, list: &str, key: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, entry) in items(&spec[list]).enumerate() {
        let value = entry[key].as_str().unwrap_or_default();
        if !seen.insert(value) {
            out.push(format!(
                "{prefix}spec.{list}[{i}].{key}: duplicate {key} \"{value}\""
            ));
        }
    }
    out
}

fn items(list: &Value) -> impl Iterator<Item = &Value> {
    list.as_array().into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pod_fields_in_order() {
        let pod = json!({"metadata": {"annotations": {
            "security.alpha.kubernetes.io/sysctls": "a", SECCOMP_POD: "runtime/default"}},
            "spec": {"volumes": [
                {"name": "g", "gitRepo": {"repository": "r"}},
                {"name": "t", "projected": {"sources": [{"serviceAccountToken": {"path": "tok"}}]}},
                {"name": "s", "projected": {"sources": [{"secret": {"items": [
                    {"key": "a", "path": "x"}, {"key": "b", "path": "tok"}]}}]}}],
            // kube-apiserver v1.34 says nothing of a projected path shared with a token.
            "hostAliases": [{"ip": "1.2.3.4"}, {"ip": "1.2.3.4"}],
            "imagePullSecrets": [{"name": "s"}, {"name": "s"}, {}],
            "overhead": {"memory": "1500m"}}});
        assert_eq!(
            warnings("spec.template.", &pod),
            [
                "spec.template.metadata.annotations[security.alpha.kubernetes.io/sysctls]: non-functional in v1.11+; use the \"sysctls\" field instead",
                "spec.template.spec.volumes[0].gitRepo: deprecated in v1.11, and disabled by default in v1.33+",
                "spec.template.spec.hostAliases[1].ip: duplicate ip \"1.2.3.4\"",
                "spec.template.spec.imagePullSecrets[1].name: duplicate name \"s\"",
                "spec.template.spec.imagePullSecrets[2].name: invalid empty name \"\"",
                "spec.template.spec.overhead[memory]: fractional byte value \"1500m\" is invalid, must be an integer",
                "spec.template.metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the \"seccompProfile\" field instead",
            ]
        );
    }
}
