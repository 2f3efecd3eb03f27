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

pub use crate::builtin_kinds::{BUILTIN_KINDS, BuiltinKind, Scope};

/// Whether `group` names a built-in API group: its short name (`core`, `apps`, `networking`,
/// the module under `k8s_openapi::api`) or its full name (`networking.k8s.io`).
pub fn is_builtin_group(group: &str) -> bool {
    BUILTIN_KINDS.iter().any(|k| names_group(k, group))
}

fn names_group(kind: &BuiltinKind, group: &str) -> bool {
    kind.module == group || (!kind.api_group.is_empty() && kind.api_group == group)
}

/// The built-in kind `group/version kind` as k8s-openapi has it, or the kinds that group and
/// version do have (empty when k8s-openapi has no such group and version).
pub fn builtin_kind(
    group: &str,
    version: &str,
    kind: &str,
) -> Result<&'static BuiltinKind, Vec<&'static str>> {
    let in_version = || {
        BUILTIN_KINDS
            .iter()
            .filter(|k| names_group(k, group) && k.version == version)
    };
    in_version()
        .find(|k| k.kind == kind)
        .ok_or_else(|| in_version().map(|k| k.kind).collect())
}

impl BuiltinKind {
    /// The Rust path of its type (`k8s_openapi::api::apps::v1::Deployment`).
    pub fn type_path(&self) -> String {
        format!(
            "k8s_openapi::api::{}::{}::{}",
            self.module, self.version, self.kind
        )
    }

    /// Whether its objects live in namespaces.
    pub fn namespaced(&self) -> bool {
        self.scope == Scope::Namespaced
    }

    /// Whether k8s-openapi has it for every Kubernetes version kubeforge supports.
    pub fn in_every_supported_version(&self) -> bool {
        self.minors.0 <= *SUPPORTED_MINORS.start() && self.minors.1 >= *SUPPORTED_MINORS.end()
    }
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
    fn builtin_kinds() {
        assert!(is_builtin_group("core") && is_builtin_group("networking.k8s.io"));
        assert!(!is_builtin_group("cache"));
        let deployment = builtin_kind("apps", "v1", "Deployment").unwrap();
        assert_eq!(
            deployment.type_path(),
            "k8s_openapi::api::apps::v1::Deployment"
        );
        assert_eq!(deployment.plural, "deployments");
        assert!(deployment.namespaced() && deployment.in_every_supported_version());
        assert!(
            !builtin_kind("core", "v1", "Namespace")
                .unwrap()
                .namespaced()
        );
        let ingress = builtin_kind("networking.k8s.io", "v1", "Ingress").unwrap();
        assert_eq!(ingress.api_group, "networking.k8s.io");
        assert_eq!(
            builtin_kind("batch", "v1", "Nope").unwrap_err(),
            vec!["CronJob", "Job"]
        );
        assert!(builtin_kind("batch", "v7", "Job").unwrap_err().is_empty());
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
