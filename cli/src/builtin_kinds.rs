//! Every built-in Kubernetes kind that k8s-openapi 0.29 has a type for, with the Kubernetes
//! versions (k8s-openapi's `v1_33` to `v1_37` features) that have it. Generated from
//! k8s-openapi's sources; the test `builtin_kinds_are_k8s_openapis` of `cli/tests/cli` derives
//! the table again from the k8s-openapi sources cargo resolved, fails when they differ, and
//! prints the table to paste here.

/// Where objects of a built-in kind live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// In namespaces.
    Namespaced,
    /// In the cluster (no namespace).
    Cluster,
    /// A subresource of another kind (`Eviction` of pods): no collection of its own.
    Subresource,
}

/// One built-in kind at one version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinKind {
    /// The API group (`""` for core, `apps`, `networking.k8s.io`).
    pub api_group: &'static str,
    /// The module under `k8s_openapi::api` (`core`, `apps`, `networking`).
    pub module: &'static str,
    /// The version (`v1`).
    pub version: &'static str,
    /// The kind (`Deployment`).
    pub kind: &'static str,
    /// The resource (`deployments`).
    pub plural: &'static str,
    /// Where its objects live.
    pub scope: Scope,
    /// Whether it can be listed and watched (a controller can be built for it).
    pub listable: bool,
    /// The first and last Kubernetes minor version (1.x) k8s-openapi has it for.
    pub minors: (u32, u32),
}

use Scope::{Cluster as C, Namespaced as N, Subresource as S};

#[allow(clippy::too_many_arguments)]
const fn k(
    api_group: &'static str,
    module: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    scope: Scope,
    listable: bool,
    first: u32,
    last: u32,
) -> BuiltinKind {
    BuiltinKind {
        api_group,
        module,
        version,
        kind,
        plural,
        scope,
        listable,
        minors: (first, last),
    }
}

/// The table, sorted by module, version and kind.
#[rustfmt::skip]
pub const BUILTIN_KINDS: &[BuiltinKind] = &[
    k("admissionregistration.k8s.io", "admissionregistration", "v1", "MutatingAdmissionPolicy", "mutatingadmissionpolicies", C, true, 36, 37),
    k("admissionregistration.k8s.io", "admissionregistration", "v1", "MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings", C, true, 36, 37),
    k("admissionregistration.k8s.io", "admissionregistration", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", C, true, 33, 37),
    k("admissionregistration.k8s.io", "admissionregistration", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", C, true, 33, 37),
    k("admissionregistration.k8s.io", "admissionregistration", "v1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", C, true, 33, 37),
    k("admissionregistration.k8s.io", "admissionregistration", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", C, true, 33, 37),
    k("admissionregistration.k8s.io", "admissionregistration", "v1alpha1", "MutatingAdmissionPolicy", "mutatingadmissionpolicies", C, true, 33, 37),
    k("admissionregistration.k8s.io", "admissionregistration", "v1alpha1", "MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings", C, true, 33, 37),
    k("admissionregistration.k8s.io", "admissionregistration", "v1beta1", "MutatingAdmissionPolicy", "mutatingadmissionpolicies", C, true, 34, 37),
    k("admissionregistration.k8s.io", "admissionregistration", "v1beta1", "MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings", C, true, 34, 37),
    k("admissionregistration.k8s.io", "admissionregistration", "v1beta1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", C, true, 33, 33),
    k("admissionregistration.k8s.io", "admissionregistration", "v1beta1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", C, true, 33, 33),
    k("internal.apiserver.k8s.io", "apiserverinternal", "v1alpha1", "StorageVersion", "storageversions", C, true, 33, 37),
    k("apps", "apps", "v1", "ControllerRevision", "controllerrevisions", N, true, 33, 37),
    k("apps", "apps", "v1", "DaemonSet", "daemonsets", N, true, 33, 37),
    k("apps", "apps", "v1", "Deployment", "deployments", N, true, 33, 37),
    k("apps", "apps", "v1", "ReplicaSet", "replicasets", N, true, 33, 37),
    k("apps", "apps", "v1", "StatefulSet", "statefulsets", N, true, 33, 37),
    k("authentication.k8s.io", "authentication", "v1", "SelfSubjectReview", "selfsubjectreviews", C, false, 33, 37),
    k("authentication.k8s.io", "authentication", "v1", "TokenRequest", "token", S, false, 33, 37),
    k("authentication.k8s.io", "authentication", "v1", "TokenReview", "tokenreviews", C, false, 33, 37),
    k("authorization.k8s.io", "authorization", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews", N, false, 33, 37),
    k("authorization.k8s.io", "authorization", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", C, false, 33, 37),
    k("authorization.k8s.io", "authorization", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", C, false, 33, 37),
    k("authorization.k8s.io", "authorization", "v1", "SubjectAccessReview", "subjectaccessreviews", C, false, 33, 37),
    k("autoscaling", "autoscaling", "v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers", N, true, 33, 37),
    k("autoscaling", "autoscaling", "v1", "Scale", "scale", S, false, 33, 37),
    k("autoscaling", "autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", N, true, 33, 37),
    k("batch", "batch", "v1", "CronJob", "cronjobs", N, true, 33, 37),
    k("batch", "batch", "v1", "Job", "jobs", N, true, 33, 37),
    k("certificates.k8s.io", "certificates", "v1", "CertificateSigningRequest", "certificatesigningrequests", C, true, 33, 37),
    k("certificates.k8s.io", "certificates", "v1", "ClusterTrustBundle", "clustertrustbundles", C, true, 37, 37),
    k("certificates.k8s.io", "certificates", "v1", "PodCertificateRequest", "podcertificaterequests", N, true, 37, 37),
    k("certificates.k8s.io", "certificates", "v1alpha1", "ClusterTrustBundle", "clustertrustbundles", C, true, 33, 36),
    k("certificates.k8s.io", "certificates", "v1alpha1", "PodCertificateRequest", "podcertificaterequests", N, true, 34, 34),
    k("certificates.k8s.io", "certificates", "v1beta1", "ClusterTrustBundle", "clustertrustbundles", C, true, 33, 37),
    k("certificates.k8s.io", "certificates", "v1beta1", "PodCertificateRequest", "podcertificaterequests", N, true, 35, 37),
    k("coordination.k8s.io", "coordination", "v1", "Lease", "leases", N, true, 33, 37),
    k("coordination.k8s.io", "coordination", "v1alpha2", "LeaseCandidate", "leasecandidates", N, true, 33, 37),
    k("coordination.k8s.io", "coordination", "v1beta1", "LeaseCandidate", "leasecandidates", N, true, 33, 37),
    k("", "core", "v1", "Binding", "bindings", N, false, 33, 37),
    k("", "core", "v1", "ComponentStatus", "componentstatuses", C, true, 33, 37),
    k("", "core", "v1", "ConfigMap", "configmaps", N, true, 33, 37),
    k("", "core", "v1", "Endpoints", "endpoints", N, true, 33, 37),
    k("", "core", "v1", "Event", "events", N, true, 33, 37),
    k("", "core", "v1", "LimitRange", "limitranges", N, true, 33, 37),
    k("", "core", "v1", "Namespace", "namespaces", C, true, 33, 37),
    k("", "core", "v1", "Node", "nodes", C, true, 33, 37),
    k("", "core", "v1", "PersistentVolume", "persistentvolumes", C, true, 33, 37),
    k("", "core", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", N, true, 33, 37),
    k("", "core", "v1", "Pod", "pods", N, true, 33, 37),
    k("", "core", "v1", "PodTemplate", "podtemplates", N, true, 33, 37),
    k("", "core", "v1", "ReplicationController", "replicationcontrollers", N, true, 33, 37),
    k("", "core", "v1", "ResourceQuota", "resourcequotas", N, true, 33, 37),
    k("", "core", "v1", "Secret", "secrets", N, true, 33, 37),
    k("", "core", "v1", "Service", "services", N, true, 33, 37),
    k("", "core", "v1", "ServiceAccount", "serviceaccounts", N, true, 33, 37),
    k("discovery.k8s.io", "discovery", "v1", "EndpointSlice", "endpointslices", N, true, 33, 37),
    k("events.k8s.io", "events", "v1", "Event", "events", N, true, 33, 37),
    k("flowcontrol.apiserver.k8s.io", "flowcontrol", "v1", "FlowSchema", "flowschemas", C, true, 33, 37),
    k("flowcontrol.apiserver.k8s.io", "flowcontrol", "v1", "PriorityLevelConfiguration", "prioritylevelconfigurations", C, true, 33, 37),
    k("lifecycle.k8s.io", "lifecycle", "v1alpha1", "Eviction", "evictions", N, true, 37, 37),
    k("lifecycle.k8s.io", "lifecycle", "v1alpha1", "EvictionRequest", "evictionrequests", N, true, 37, 37),
    k("networking.k8s.io", "networking", "v1", "IPAddress", "ipaddresses", C, true, 33, 37),
    k("networking.k8s.io", "networking", "v1", "Ingress", "ingresses", N, true, 33, 37),
    k("networking.k8s.io", "networking", "v1", "IngressClass", "ingressclasses", C, true, 33, 37),
    k("networking.k8s.io", "networking", "v1", "NetworkPolicy", "networkpolicies", N, true, 33, 37),
    k("networking.k8s.io", "networking", "v1", "ServiceCIDR", "servicecidrs", C, true, 33, 37),
    k("networking.k8s.io", "networking", "v1beta1", "IPAddress", "ipaddresses", C, true, 33, 36),
    k("networking.k8s.io", "networking", "v1beta1", "ServiceCIDR", "servicecidrs", C, true, 33, 36),
    k("node.k8s.io", "node", "v1", "RuntimeClass", "runtimeclasses", C, true, 33, 37),
    k("policy", "policy", "v1", "Eviction", "eviction", S, false, 33, 37),
    k("policy", "policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", N, true, 33, 37),
    k("rbac.authorization.k8s.io", "rbac", "v1", "ClusterRole", "clusterroles", C, true, 33, 37),
    k("rbac.authorization.k8s.io", "rbac", "v1", "ClusterRoleBinding", "clusterrolebindings", C, true, 33, 37),
    k("rbac.authorization.k8s.io", "rbac", "v1", "Role", "roles", N, true, 33, 37),
    k("rbac.authorization.k8s.io", "rbac", "v1", "RoleBinding", "rolebindings", N, true, 33, 37),
    k("resource.k8s.io", "resource", "v1", "DeviceClass", "deviceclasses", C, true, 34, 37),
    k("resource.k8s.io", "resource", "v1", "DeviceTaintRule", "devicetaintrules", C, true, 37, 37),
    k("resource.k8s.io", "resource", "v1", "ResourceClaim", "resourceclaims", N, true, 34, 37),
    k("resource.k8s.io", "resource", "v1", "ResourceClaimTemplate", "resourceclaimtemplates", N, true, 34, 37),
    k("resource.k8s.io", "resource", "v1", "ResourceSlice", "resourceslices", C, true, 34, 37),
    k("resource.k8s.io", "resource", "v1alpha3", "DeviceClass", "deviceclasses", C, true, 33, 33),
    k("resource.k8s.io", "resource", "v1alpha3", "DeviceTaintRule", "devicetaintrules", C, true, 33, 37),
    k("resource.k8s.io", "resource", "v1alpha3", "ResourceClaim", "resourceclaims", N, true, 33, 33),
    k("resource.k8s.io", "resource", "v1alpha3", "ResourceClaimTemplate", "resourceclaimtemplates", N, true, 33, 33),
    k("resource.k8s.io", "resource", "v1alpha3", "ResourcePoolStatusRequest", "resourcepoolstatusrequests", C, true, 36, 37),
    k("resource.k8s.io", "resource", "v1alpha3", "ResourceSlice", "resourceslices", C, true, 33, 33),
    k("resource.k8s.io", "resource", "v1beta1", "DeviceClass", "deviceclasses", C, true, 33, 37),
    k("resource.k8s.io", "resource", "v1beta1", "ResourceClaim", "resourceclaims", N, true, 33, 37),
    k("resource.k8s.io", "resource", "v1beta1", "ResourceClaimTemplate", "resourceclaimtemplates", N, true, 33, 37),
    k("resource.k8s.io", "resource", "v1beta1", "ResourceSlice", "resourceslices", C, true, 33, 37),
    k("resource.k8s.io", "resource", "v1beta2", "DeviceClass", "deviceclasses", C, true, 33, 37),
    k("resource.k8s.io", "resource", "v1beta2", "DeviceTaintRule", "devicetaintrules", C, true, 36, 37),
    k("resource.k8s.io", "resource", "v1beta2", "ResourceClaim", "resourceclaims", N, true, 33, 37),
    k("resource.k8s.io", "resource", "v1beta2", "ResourceClaimTemplate", "resourceclaimtemplates", N, true, 33, 37),
    k("resource.k8s.io", "resource", "v1beta2", "ResourceSlice", "resourceslices", C, true, 33, 37),
    k("scheduling.k8s.io", "scheduling", "v1", "PriorityClass", "priorityclasses", C, true, 33, 37),
    k("scheduling.k8s.io", "scheduling", "v1alpha1", "Workload", "workloads", N, true, 35, 35),
    k("scheduling.k8s.io", "scheduling", "v1alpha2", "PodGroup", "podgroups", N, true, 36, 36),
    k("scheduling.k8s.io", "scheduling", "v1alpha2", "Workload", "workloads", N, true, 36, 36),
    k("scheduling.k8s.io", "scheduling", "v1alpha3", "CompositePodGroup", "compositepodgroups", N, true, 37, 37),
    k("scheduling.k8s.io", "scheduling", "v1alpha3", "PodGroup", "podgroups", N, true, 37, 37),
    k("scheduling.k8s.io", "scheduling", "v1alpha3", "Workload", "workloads", N, true, 37, 37),
    k("scheduling.k8s.io", "scheduling", "v1beta1", "PodGroup", "podgroups", N, true, 37, 37),
    k("scheduling.k8s.io", "scheduling", "v1beta1", "Workload", "workloads", N, true, 37, 37),
    k("storage.k8s.io", "storage", "v1", "CSIDriver", "csidrivers", C, true, 33, 37),
    k("storage.k8s.io", "storage", "v1", "CSINode", "csinodes", C, true, 33, 37),
    k("storage.k8s.io", "storage", "v1", "CSIStorageCapacity", "csistoragecapacities", N, true, 33, 37),
    k("storage.k8s.io", "storage", "v1", "StorageClass", "storageclasses", C, true, 33, 37),
    k("storage.k8s.io", "storage", "v1", "VolumeAttachment", "volumeattachments", C, true, 33, 37),
    k("storage.k8s.io", "storage", "v1", "VolumeAttributesClass", "volumeattributesclasses", C, true, 34, 37),
    k("storage.k8s.io", "storage", "v1alpha1", "VolumeAttributesClass", "volumeattributesclasses", C, true, 33, 34),
    k("storage.k8s.io", "storage", "v1beta1", "VolumeAttributesClass", "volumeattributesclasses", C, true, 33, 36),
    k("storagemigration.k8s.io", "storagemigration", "v1", "StorageVersionMigration", "storageversionmigrations", C, true, 37, 37),
    k("storagemigration.k8s.io", "storagemigration", "v1alpha1", "StorageVersionMigration", "storageversionmigrations", C, true, 33, 34),
    k("storagemigration.k8s.io", "storagemigration", "v1beta1", "StorageVersionMigration", "storageversionmigrations", C, true, 35, 37),
];
