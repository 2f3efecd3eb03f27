//! The built-in kinds, with the scope, names and subresources of the real kube-apiserver.

use crate::support::resource::{ResourceDef, ScaleSpec};

/// A compact description of one built-in resource.
struct Builtin {
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    short_names: &'static [&'static str],
    namespaced: bool,
    status: bool,
    scale: bool,
    generation: bool,
    create_only: bool,
    categories: &'static [&'static str],
}

const fn b(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    short_names: &'static [&'static str],
    namespaced: bool,
) -> Builtin {
    Builtin {
        group,
        version,
        kind,
        plural,
        short_names,
        namespaced,
        status: false,
        scale: false,
        generation: false,
        create_only: false,
        categories: &[],
    }
}

impl Builtin {
    const fn status(mut self) -> Self {
        self.status = true;
        self
    }
    const fn scale(mut self) -> Self {
        self.scale = true;
        self
    }
    const fn generation(mut self) -> Self {
        self.generation = true;
        self
    }
    const fn create_only(mut self) -> Self {
        self.create_only = true;
        self
    }
    const fn all(mut self) -> Self {
        self.categories = &["all"];
        self
    }
}

const BUILTINS: &[Builtin] = &[
    b("", "v1", "Namespace", "namespaces", &["ns"], false).status(),
    b("", "v1", "ConfigMap", "configmaps", &["cm"], true),
    b("", "v1", "Secret", "secrets", &[], true),
    b("", "v1", "Service", "services", &["svc"], true)
        .status()
        .all(),
    b("", "v1", "ServiceAccount", "serviceaccounts", &["sa"], true),
    // Pods track their generation (PodObservedGenerationTracking, on since 1.33).
    b("", "v1", "Pod", "pods", &["po"], true)
        .status()
        .generation()
        .all(),
    b("", "v1", "Event", "events", &["ev"], true),
    b("", "v1", "Endpoints", "endpoints", &["ep"], true),
    b(
        "",
        "v1",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        &["pvc"],
        true,
    )
    .status(),
    b(
        "",
        "v1",
        "PersistentVolume",
        "persistentvolumes",
        &["pv"],
        false,
    )
    .status(),
    b("", "v1", "Node", "nodes", &["no"], false).status(),
    b(
        "",
        "v1",
        "ReplicationController",
        "replicationcontrollers",
        &["rc"],
        true,
    )
    .status()
    .scale()
    .generation()
    .all(),
    b("apps", "v1", "Deployment", "deployments", &["deploy"], true)
        .status()
        .scale()
        .generation()
        .all(),
    b("apps", "v1", "StatefulSet", "statefulsets", &["sts"], true)
        .status()
        .scale()
        .generation()
        .all(),
    b("apps", "v1", "DaemonSet", "daemonsets", &["ds"], true)
        .status()
        .generation()
        .all(),
    b("apps", "v1", "ReplicaSet", "replicasets", &["rs"], true)
        .status()
        .scale()
        .generation()
        .all(),
    b(
        "apps",
        "v1",
        "ControllerRevision",
        "controllerrevisions",
        &[],
        true,
    ),
    b("batch", "v1", "Job", "jobs", &[], true)
        .status()
        .generation()
        .all(),
    b("batch", "v1", "CronJob", "cronjobs", &["cj"], true)
        .status()
        .generation()
        .all(),
    b("coordination.k8s.io", "v1", "Lease", "leases", &[], true),
    b("events.k8s.io", "v1", "Event", "events", &["ev"], true),
    b(
        "rbac.authorization.k8s.io",
        "v1",
        "Role",
        "roles",
        &[],
        true,
    ),
    b(
        "rbac.authorization.k8s.io",
        "v1",
        "RoleBinding",
        "rolebindings",
        &[],
        true,
    ),
    b(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRole",
        "clusterroles",
        &[],
        false,
    ),
    b(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        &[],
        false,
    ),
    b(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        &["crd", "crds"],
        false,
    )
    .status()
    .generation(),
    b(
        "admissionregistration.k8s.io",
        "v1",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        &[],
        false,
    )
    .generation(),
    b(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        &[],
        false,
    )
    .generation(),
    b(
        "networking.k8s.io",
        "v1",
        "Ingress",
        "ingresses",
        &["ing"],
        true,
    )
    .status(),
    b(
        "networking.k8s.io",
        "v1",
        "NetworkPolicy",
        "networkpolicies",
        &["netpol"],
        true,
    )
    .generation(),
    b(
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        &["pdb"],
        true,
    )
    .status()
    .generation(),
    b(
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        &["hpa"],
        true,
    )
    .status()
    .all(),
    b(
        "authentication.k8s.io",
        "v1",
        "TokenReview",
        "tokenreviews",
        &[],
        false,
    )
    .create_only(),
    b(
        "authorization.k8s.io",
        "v1",
        "SubjectAccessReview",
        "subjectaccessreviews",
        &[],
        false,
    )
    .create_only(),
    b(
        "authorization.k8s.io",
        "v1",
        "SelfSubjectAccessReview",
        "selfsubjectaccessreviews",
        &[],
        false,
    )
    .create_only(),
    b(
        "authorization.k8s.io",
        "v1",
        "LocalSubjectAccessReview",
        "localsubjectaccessreviews",
        &[],
        true,
    )
    .create_only(),
];

/// Every built-in resource as a [`ResourceDef`].
pub fn builtin_resources() -> Vec<ResourceDef> {
    BUILTINS
        .iter()
        .map(|x| ResourceDef {
            group: x.group.to_string(),
            version: x.version.to_string(),
            kind: x.kind.to_string(),
            plural: x.plural.to_string(),
            singular: x.kind.to_ascii_lowercase(),
            short_names: x
                .short_names
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
            categories: x
                .categories
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
            namespaced: x.namespaced,
            status_subresource: x.status,
            scale: x.scale.then(|| ScaleSpec {
                spec_replicas_path: ".spec.replicas".into(),
                status_replicas_path: ".status.replicas".into(),
                label_selector_path: Some(".status.selector".into()),
            }),
            tracks_generation: x.generation,
            allow_unconditional_update: true,
            create_only: x.create_only,
            // events.k8s.io Events share the core Events' storage (converted on the way).
            storage_key: if x.group == "events.k8s.io" {
                "/events".to_string()
            } else {
                format!("{}/{}", x.group, x.plural)
            },
            custom: None,
        })
        .collect()
}
