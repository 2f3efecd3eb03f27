//! Kubernetes facts the scaffolder needs: supported API versions and the built-in kinds a
//! controller can be scaffolded for.

/// The Kubernetes version `init` pins by default.
pub const DEFAULT_VERSION: &str = "1.35";

/// The Kubernetes minor versions k8s-openapi 0.29 supports (its `v1_33` ... `v1_37` features).
pub const SUPPORTED_MINORS: std::ops::RangeInclusive<u32> = 33..=37;

/// `1.35` (or `v1.35`) → the k8s-openapi feature `v1_35`.
pub fn openapi_feature(version: &str) -> Option<String> {
    let version = version.strip_prefix('v').unwrap_or(version);
    let minor: u32 = version.strip_prefix("1.")?.parse().ok()?;
    SUPPORTED_MINORS
        .contains(&minor)
        .then(|| format!("v1_{minor}"))
}

/// A built-in API group: the group users type, its API group name, its k8s-openapi module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinGroup {
    /// Short name (`core`, `apps`, `networking`).
    pub name: &'static str,
    /// The API group (`""` for core, `networking.k8s.io`).
    pub api_group: &'static str,
    /// Module under `k8s_openapi::api`.
    pub module: &'static str,
}

const BUILTIN_GROUPS: &[BuiltinGroup] = &[
    BuiltinGroup {
        name: "core",
        api_group: "",
        module: "core",
    },
    BuiltinGroup {
        name: "apps",
        api_group: "apps",
        module: "apps",
    },
    BuiltinGroup {
        name: "batch",
        api_group: "batch",
        module: "batch",
    },
    BuiltinGroup {
        name: "autoscaling",
        api_group: "autoscaling",
        module: "autoscaling",
    },
    BuiltinGroup {
        name: "policy",
        api_group: "policy",
        module: "policy",
    },
    BuiltinGroup {
        name: "networking",
        api_group: "networking.k8s.io",
        module: "networking",
    },
    BuiltinGroup {
        name: "rbac",
        api_group: "rbac.authorization.k8s.io",
        module: "rbac",
    },
    BuiltinGroup {
        name: "storage",
        api_group: "storage.k8s.io",
        module: "storage",
    },
    BuiltinGroup {
        name: "coordination",
        api_group: "coordination.k8s.io",
        module: "coordination",
    },
    BuiltinGroup {
        name: "discovery",
        api_group: "discovery.k8s.io",
        module: "discovery",
    },
    BuiltinGroup {
        name: "events",
        api_group: "events.k8s.io",
        module: "events",
    },
    BuiltinGroup {
        name: "scheduling",
        api_group: "scheduling.k8s.io",
        module: "scheduling",
    },
    BuiltinGroup {
        name: "node",
        api_group: "node.k8s.io",
        module: "node",
    },
    BuiltinGroup {
        name: "certificates",
        api_group: "certificates.k8s.io",
        module: "certificates",
    },
    BuiltinGroup {
        name: "admissionregistration",
        api_group: "admissionregistration.k8s.io",
        module: "admissionregistration",
    },
];

/// The built-in group named `group` (short name or full API group).
pub fn builtin_group(group: &str) -> Option<BuiltinGroup> {
    BUILTIN_GROUPS
        .iter()
        .find(|g| g.name == group || (!g.api_group.is_empty() && g.api_group == group))
        .copied()
}

/// Built-in kinds that are cluster-scoped.
const CLUSTER_SCOPED: &[&str] = &[
    "Namespace",
    "Node",
    "PersistentVolume",
    "ClusterRole",
    "ClusterRoleBinding",
    "StorageClass",
    "CSIDriver",
    "CSINode",
    "VolumeAttachment",
    "PriorityClass",
    "RuntimeClass",
    "IngressClass",
    "CertificateSigningRequest",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "ComponentStatus",
];

/// Whether a built-in kind lives in namespaces.
pub fn builtin_namespaced(kind: &str) -> bool {
    !CLUSTER_SCOPED.contains(&kind)
}

/// A small valid object of a built-in kind, as JSON, for the controller's generated test.
pub fn example_object(api_version: &str, kind: &str, name: &str) -> String {
    let pod_template = r#""template": {"metadata": {"labels": {"app": "sample"}}, "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}}"#;
    let body = match kind {
        "ConfigMap" => r#", "data": {"greeting": "hello"}"#.to_owned(),
        "Secret" => r#", "stringData": {"token": "sample"}"#.to_owned(),
        "Service" => r#", "spec": {"selector": {"app": "sample"}, "ports": [{"port": 80}]}"#.to_owned(),
        "Pod" => r#", "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}"#.to_owned(),
        "Deployment" | "ReplicaSet" | "DaemonSet" => {
            format!(r#", "spec": {{"selector": {{"matchLabels": {{"app": "sample"}}}}, {pod_template}}}"#)
        }
        "StatefulSet" => format!(
            r#", "spec": {{"serviceName": "sample", "selector": {{"matchLabels": {{"app": "sample"}}}}, {pod_template}}}"#
        ),
        "Job" => r#", "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}}}"#.to_owned(),
        _ => String::new(),
    };
    format!(
        r#"{{"apiVersion": "{api_version}", "kind": "{kind}", "metadata": {{"name": "{name}"}}{body}}}"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features() {
        assert_eq!(openapi_feature("1.35").as_deref(), Some("v1_35"));
        assert_eq!(openapi_feature("v1.33").as_deref(), Some("v1_33"));
        assert_eq!(openapi_feature("1.32"), None);
        assert_eq!(openapi_feature("1.38"), None);
        assert_eq!(openapi_feature("2.0"), None);
        assert_eq!(openapi_feature("latest"), None);
    }

    #[test]
    fn groups() {
        assert_eq!(builtin_group("core").unwrap().api_group, "");
        assert_eq!(
            builtin_group("networking.k8s.io").unwrap().module,
            "networking"
        );
        assert!(builtin_group("cache").is_none());
    }

    #[test]
    fn example_objects_are_json_objects() {
        for kind in ["ConfigMap", "Deployment", "StatefulSet", "Job", "Widget"] {
            let text = example_object("v1", kind, "x");
            assert_eq!(
                text.matches('{').count(),
                text.matches('}').count(),
                "{text}"
            );
        }
    }
}
