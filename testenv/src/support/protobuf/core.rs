//! Core `v1` messages kubectl's typed commands send (the pod spec is in `pod`): ConfigMap, Secret,
//! ServiceAccount, and the specs of Namespace, Service, ResourceQuota and Pod (the kinds with their
//! status are in `core_kinds` and `pod_status`).

use super::meta::OBJECT_META;
use super::pod::POD_SPEC;
use super::pod_volumes::LOCAL_OBJECT_REFERENCE;
use super::schema::{Message, Ty, list, map, ptr, val};

/// `PodTemplateSpec`.
pub(super) static POD_TEMPLATE_SPEC: Message = Message::new(
    "PodTemplateSpec",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&POD_SPEC)),
    ],
);

/// `ServicePort`.
pub(super) static SERVICE_PORT: Message = Message::new(
    "ServicePort",
    &[
        val(1, "name", Ty::Str),
        val(2, "protocol", Ty::Str),
        ptr(6, "appProtocol", Ty::Str),
        val(3, "port", Ty::Int),
        val(4, "targetPort", Ty::IntOrString),
        val(5, "nodePort", Ty::Int),
    ],
);

/// `ClientIPConfig`.
pub(super) static CLIENT_IP_CONFIG: Message =
    Message::new("ClientIPConfig", &[ptr(1, "timeoutSeconds", Ty::Int)]);

/// `SessionAffinityConfig`.
pub(super) static SESSION_AFFINITY_CONFIG: Message = Message::new(
    "SessionAffinityConfig",
    &[ptr(1, "clientIP", Ty::Msg(&CLIENT_IP_CONFIG))],
);

/// `ServiceSpec`.
pub(super) static SERVICE_SPEC: Message = Message::new(
    "ServiceSpec",
    &[
        list(1, "ports", Ty::Msg(&SERVICE_PORT)),
        map(2, "selector", Ty::Str),
        val(3, "clusterIP", Ty::Str),
        list(18, "clusterIPs", Ty::Str),
        val(4, "type", Ty::Str),
        list(5, "externalIPs", Ty::Str),
        val(7, "sessionAffinity", Ty::Str),
        val(8, "loadBalancerIP", Ty::Str),
        list(9, "loadBalancerSourceRanges", Ty::Str),
        val(10, "externalName", Ty::Str),
        val(11, "externalTrafficPolicy", Ty::Str),
        val(12, "healthCheckNodePort", Ty::Int),
        val(13, "publishNotReadyAddresses", Ty::Bool),
        ptr(
            14,
            "sessionAffinityConfig",
            Ty::Msg(&SESSION_AFFINITY_CONFIG),
        ),
        list(19, "ipFamilies", Ty::Str),
        ptr(17, "ipFamilyPolicy", Ty::Str),
        ptr(20, "allocateLoadBalancerNodePorts", Ty::Bool),
        ptr(21, "loadBalancerClass", Ty::Str),
        ptr(22, "internalTrafficPolicy", Ty::Str),
        ptr(23, "trafficDistribution", Ty::Str),
    ],
);

/// `ScopedResourceSelectorRequirement`.
pub(super) static SCOPED_RESOURCE_SELECTOR_REQUIREMENT: Message = Message::new(
    "ScopedResourceSelectorRequirement",
    &[
        val(1, "scopeName", Ty::Str),
        val(2, "operator", Ty::Str),
        list(3, "values", Ty::Str),
    ],
);

/// `ScopeSelector`.
pub(super) static SCOPE_SELECTOR: Message = Message::new(
    "ScopeSelector",
    &[list(
        1,
        "matchExpressions",
        Ty::Msg(&SCOPED_RESOURCE_SELECTOR_REQUIREMENT),
    )],
);

/// `ResourceQuotaSpec`.
pub(super) static RESOURCE_QUOTA_SPEC: Message = Message::new(
    "ResourceQuotaSpec",
    &[
        map(1, "hard", Ty::Quantity),
        list(2, "scopes", Ty::Str),
        ptr(3, "scopeSelector", Ty::Msg(&SCOPE_SELECTOR)),
    ],
);

/// `NamespaceSpec`.
pub(super) static NAMESPACE_SPEC: Message =
    Message::new("NamespaceSpec", &[list(1, "finalizers", Ty::Str)]);

/// `ConfigMap`; its `status` must be unset (the server sets it).
pub(super) static CONFIG_MAP: Message = Message::new(
    "ConfigMap",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        ptr(4, "immutable", Ty::Bool),
        map(2, "data", Ty::Str),
        map(3, "binaryData", Ty::Bytes),
    ],
);

/// `Secret`; its `status` must be unset (the server sets it).
pub(super) static SECRET: Message = Message::new(
    "Secret",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        ptr(5, "immutable", Ty::Bool),
        map(2, "data", Ty::Bytes),
        map(4, "stringData", Ty::Str),
        val(3, "type", Ty::Str),
    ],
);

/// `ObjectReference`.
pub(super) static OBJECT_REFERENCE: Message = Message::new(
    "ObjectReference",
    &[
        val(1, "kind", Ty::Str),
        val(2, "namespace", Ty::Str),
        val(3, "name", Ty::Str),
        val(4, "uid", Ty::Str),
        val(5, "apiVersion", Ty::Str),
        val(6, "resourceVersion", Ty::Str),
        val(7, "fieldPath", Ty::Str),
    ],
);

/// `ServiceAccount`; its `status` must be unset (the server sets it).
pub(super) static SERVICE_ACCOUNT: Message = Message::new(
    "ServiceAccount",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        list(2, "secrets", Ty::Msg(&OBJECT_REFERENCE)),
        list(3, "imagePullSecrets", Ty::Msg(&LOCAL_OBJECT_REFERENCE)),
        ptr(4, "automountServiceAccountToken", Ty::Bool),
    ],
);
