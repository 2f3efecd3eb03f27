//! Minimal OpenAPI v3 documents for the built-in group-versions a test server serves.
//!
//! kubectl needs them more than it seems: before `kubectl apply`/`create` with the default
//! `--validate=strict` it looks up the kind's group-version in `/openapi/v3` to learn whether
//! the server supports `fieldValidation`; without a document (and without `/openapi/v2`) it
//! refuses to send the request. These documents carry the REST paths with that parameter,
//! and per kind a schema with `x-kubernetes-group-version-kind`, `apiVersion`, `kind`,
//! `metadata` (ObjectMeta) and free-form `spec`/`status`, which is enough for
//! `kubectl explain <kind>` to answer.
//!
//! The PATCH operations deliberately do not list `application/strategic-merge-patch+json`:
//! kubectl then computes strategic merge patches from its compiled-in Go types (exact
//! merge keys) instead of from these schemas, which do not describe list merge keys.

use serde_json::{Value, json};

/// One built-in resource: group, version, kind, plural, namespaced, has `/status`.
pub type Builtin = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    bool,
    bool,
);

/// The built-in resources described, with their scope and status subresource.
pub const BUILTINS: &[Builtin] = &[
    ("", "v1", "Pod", "pods", true, true),
    ("", "v1", "Service", "services", true, true),
    ("", "v1", "ConfigMap", "configmaps", true, false),
    ("", "v1", "Secret", "secrets", true, false),
    ("", "v1", "Namespace", "namespaces", false, true),
    ("", "v1", "ServiceAccount", "serviceaccounts", true, false),
    (
        "",
        "v1",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        true,
        true,
    ),
    (
        "",
        "v1",
        "PersistentVolume",
        "persistentvolumes",
        false,
        true,
    ),
    ("", "v1", "Event", "events", true, false),
    ("", "v1", "Endpoints", "endpoints", true, false),
    ("", "v1", "Node", "nodes", false, true),
    (
        "",
        "v1",
        "ReplicationController",
        "replicationcontrollers",
        true,
        true,
    ),
    ("", "v1", "PodTemplate", "podtemplates", true, false),
    ("", "v1", "LimitRange", "limitranges", true, false),
    ("", "v1", "ResourceQuota", "resourcequotas", true, true),
    ("apps", "v1", "Deployment", "deployments", true, true),
    ("apps", "v1", "StatefulSet", "statefulsets", true, true),
    ("apps", "v1", "DaemonSet", "daemonsets", true, true),
    ("apps", "v1", "ReplicaSet", "replicasets", true, true),
    (
        "apps",
        "v1",
        "ControllerRevision",
        "controllerrevisions",
        true,
        false,
    ),
    ("batch", "v1", "Job", "jobs", true, true),
    ("batch", "v1", "CronJob", "cronjobs", true, true),
    (
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        true,
        true,
    ),
    (
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        true,
        true,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "Role",
        "roles",
        true,
        false,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "RoleBinding",
        "rolebindings",
        true,
        false,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRole",
        "clusterroles",
        false,
        false,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        false,
        false,
    ),
    ("coordination.k8s.io", "v1", "Lease", "leases", true, false),
    (
        "networking.k8s.io",
        "v1",
        "Ingress",
        "ingresses",
        true,
        true,
    ),
    (
        "networking.k8s.io",
        "v1",
        "IngressClass",
        "ingressclasses",
        false,
        false,
    ),
    (
        "networking.k8s.io",
        "v1",
        "NetworkPolicy",
        "networkpolicies",
        true,
        false,
    ),
    (
        "discovery.k8s.io",
        "v1",
        "EndpointSlice",
        "endpointslices",
        true,
        false,
    ),
    ("events.k8s.io", "v1", "Event", "events", true, false),
    (
        "scheduling.k8s.io",
        "v1",
        "PriorityClass",
        "priorityclasses",
        false,
        false,
    ),
    (
        "storage.k8s.io",
        "v1",
        "StorageClass",
        "storageclasses",
        false,
        false,
    ),
    (
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        false,
        true,
    ),
    (
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        false,
        false,
    ),
    (
        "admissionregistration.k8s.io",
        "v1",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        false,
        false,
    ),
];

/// The component-name prefix the real server uses for a built-in group-version, e.g.
/// `io.k8s.api.apps.v1`, `io.k8s.api.core.v1`,
/// `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1`.
pub fn component_prefix(group: &str, version: &str) -> String {
    match group {
        "" => format!("io.k8s.api.core.{version}"),
        "apiextensions.k8s.io" => {
            format!("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.{version}")
        }
        g => {
            let short = g
                .strip_suffix(".k8s.io")
                .map_or(g, |s| s.split('.').next().unwrap_or(s));
            format!("io.k8s.api.{short}.{version}")
        }
    }
}

/// The `/openapi/v3` index key of a group-version: `api/v1` for core, `apis/<g>/<v>` else.
pub fn index_key(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

/// The minimal schema of a built-in kind (see the module docs).
pub fn kind_schema(group: &str, version: &str, kind: &str) -> Value {
    json!({
        "description": format!("{kind} is a built-in Kubernetes kind; the test API server publishes its shape only, not the full schema."),
        "type": "object",
        "properties": {
            "spec": {"type": "object", "description": format!("The desired state of the {kind}."), "x-kubernetes-preserve-unknown-fields": true},
            "status": {"type": "object", "description": format!("The observed state of the {kind}."), "x-kubernetes-preserve-unknown-fields": true},
        },
        "x-kubernetes-preserve-unknown-fields": true,
        "x-kubernetes-group-version-kind": [{"group": group, "kind": kind, "version": version}],
    })
}

/// The built-in group-versions described, sorted and without duplicates.
pub fn group_versions() -> Vec<(&'static str, &'static str)> {
    let mut gvs: Vec<(&str, &str)> = BUILTINS.iter().map(|b| (b.0, b.1)).collect();
    gvs.sort();
    gvs.dedup();
    gvs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_real_server() {
        assert_eq!(component_prefix("", "v1"), "io.k8s.api.core.v1");
        assert_eq!(component_prefix("apps", "v1"), "io.k8s.api.apps.v1");
        assert_eq!(
            component_prefix("rbac.authorization.k8s.io", "v1"),
            "io.k8s.api.rbac.v1"
        );
        assert_eq!(
            component_prefix("apiextensions.k8s.io", "v1"),
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"
        );
        assert_eq!(index_key("", "v1"), "api/v1");
        assert_eq!(index_key("batch", "v1"), "apis/batch/v1");
        assert!(group_versions().contains(&("apiextensions.k8s.io", "v1")));
    }
}
