//! The other writable `v1` kinds (Namespace, Service and ResourceQuota with their status, Binding, Endpoints, Event, LimitRange, PodTemplate, ReplicationController).
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, list, map, ptr, val};

/// `Namespace`.
pub(super) static NAMESPACE: Message = Message::new(
    "Namespace",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&super::core::NAMESPACE_SPEC)),
        val(3, "status", Ty::Msg(&NAMESPACE_STATUS)),
    ],
);

/// `NamespaceStatus`.
pub(super) static NAMESPACE_STATUS: Message = Message::new(
    "NamespaceStatus",
    &[
        val(1, "phase", Ty::Str),
        list(2, "conditions", Ty::Msg(&NAMESPACE_CONDITION)),
    ],
);

/// `NamespaceCondition`.
pub(super) static NAMESPACE_CONDITION: Message = Message::new(
    "NamespaceCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(4, "lastTransitionTime", Ty::Time),
        val(5, "reason", Ty::Str),
        val(6, "message", Ty::Str),
    ],
);

/// `Service`.
pub(super) static SERVICE: Message = Message::new(
    "Service",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&super::core::SERVICE_SPEC)),
        val(3, "status", Ty::Msg(&SERVICE_STATUS)),
    ],
);

/// `ServiceStatus`.
pub(super) static SERVICE_STATUS: Message = Message::new(
    "ServiceStatus",
    &[
        val(1, "loadBalancer", Ty::Msg(&LOAD_BALANCER_STATUS)),
        list(2, "conditions", Ty::Msg(&super::meta_more::CONDITION)),
    ],
);

/// `LoadBalancerStatus`.
pub(super) static LOAD_BALANCER_STATUS: Message = Message::new(
    "LoadBalancerStatus",
    &[list(1, "ingress", Ty::Msg(&LOAD_BALANCER_INGRESS))],
);

/// `LoadBalancerIngress`.
pub(super) static LOAD_BALANCER_INGRESS: Message = Message::new(
    "LoadBalancerIngress",
    &[
        val(1, "ip", Ty::Str),
        val(2, "hostname", Ty::Str),
        ptr(3, "ipMode", Ty::Str),
        list(4, "ports", Ty::Msg(&PORT_STATUS)),
    ],
);

/// `PortStatus`.
pub(super) static PORT_STATUS: Message = Message::new(
    "PortStatus",
    &[
        val(1, "port", Ty::Int),
        val(2, "protocol", Ty::Str),
        ptr(3, "error", Ty::Str),
    ],
);

/// `ResourceQuota`.
pub(super) static RESOURCE_QUOTA: Message = Message::new(
    "ResourceQuota",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&super::core::RESOURCE_QUOTA_SPEC)),
        val(3, "status", Ty::Msg(&RESOURCE_QUOTA_STATUS)),
    ],
);

/// `ResourceQuotaStatus`.
pub(super) static RESOURCE_QUOTA_STATUS: Message = Message::new(
    "ResourceQuotaStatus",
    &[map(1, "hard", Ty::Quantity), map(2, "used", Ty::Quantity)],
);

/// `Binding`.
pub(super) static BINDING: Message = Message::new(
    "Binding",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "target", Ty::Msg(&super::core::OBJECT_REFERENCE)),
    ],
);

/// `Endpoints`.
pub(super) static ENDPOINTS: Message = Message::new(
    "Endpoints",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        list(2, "subsets", Ty::Msg(&ENDPOINT_SUBSET)),
    ],
);

/// `EndpointSubset`.
pub(super) static ENDPOINT_SUBSET: Message = Message::new(
    "EndpointSubset",
    &[
        list(1, "addresses", Ty::Msg(&ENDPOINT_ADDRESS)),
        list(2, "notReadyAddresses", Ty::Msg(&ENDPOINT_ADDRESS)),
        list(3, "ports", Ty::Msg(&ENDPOINT_PORT)),
    ],
);

/// `EndpointAddress`.
pub(super) static ENDPOINT_ADDRESS: Message = Message::new(
    "EndpointAddress",
    &[
        val(1, "ip", Ty::Str),
        val(3, "hostname", Ty::Str),
        ptr(4, "nodeName", Ty::Str),
        ptr(2, "targetRef", Ty::Msg(&super::core::OBJECT_REFERENCE)),
    ],
);

/// `EndpointPort`.
pub(super) static ENDPOINT_PORT: Message = Message::new(
    "EndpointPort",
    &[
        val(1, "name", Ty::Str),
        val(2, "port", Ty::Int),
        val(3, "protocol", Ty::Str),
        ptr(4, "appProtocol", Ty::Str),
    ],
);

/// `Event`.
pub(super) static EVENT: Message = Message::new(
    "Event",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "involvedObject", Ty::Msg(&super::core::OBJECT_REFERENCE)),
        val(3, "reason", Ty::Str),
        val(4, "message", Ty::Str),
        val(5, "source", Ty::Msg(&EVENT_SOURCE)),
        val(6, "firstTimestamp", Ty::Time),
        val(7, "lastTimestamp", Ty::Time),
        val(8, "count", Ty::Int),
        val(9, "type", Ty::Str),
        val(10, "eventTime", Ty::MicroTime),
        ptr(11, "series", Ty::Msg(&EVENT_SERIES)),
        val(12, "action", Ty::Str),
        ptr(13, "related", Ty::Msg(&super::core::OBJECT_REFERENCE)),
        val(14, "reportingComponent", Ty::Str),
        val(15, "reportingInstance", Ty::Str),
    ],
);

/// `EventSource`.
pub(super) static EVENT_SOURCE: Message = Message::new(
    "EventSource",
    &[val(1, "component", Ty::Str), val(2, "host", Ty::Str)],
);

/// `EventSeries`.
pub(super) static EVENT_SERIES: Message = Message::new(
    "EventSeries",
    &[
        val(1, "count", Ty::Int),
        val(2, "lastObservedTime", Ty::MicroTime),
    ],
);

/// `LimitRange`.
pub(super) static LIMIT_RANGE: Message = Message::new(
    "LimitRange",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&LIMIT_RANGE_SPEC)),
    ],
);

/// `LimitRangeSpec`.
pub(super) static LIMIT_RANGE_SPEC: Message = Message::new(
    "LimitRangeSpec",
    &[list(1, "limits", Ty::Msg(&LIMIT_RANGE_ITEM))],
);

/// `LimitRangeItem`.
pub(super) static LIMIT_RANGE_ITEM: Message = Message::new(
    "LimitRangeItem",
    &[
        val(1, "type", Ty::Str),
        map(2, "max", Ty::Quantity),
        map(3, "min", Ty::Quantity),
        map(4, "default", Ty::Quantity),
        map(5, "defaultRequest", Ty::Quantity),
        map(6, "maxLimitRequestRatio", Ty::Quantity),
    ],
);

/// `PodTemplate`.
pub(super) static POD_TEMPLATE: Message = Message::new(
    "PodTemplate",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "template", Ty::Msg(&super::core::POD_TEMPLATE_SPEC)),
    ],
);

/// `ReplicationController`.
pub(super) static REPLICATION_CONTROLLER: Message = Message::new(
    "ReplicationController",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&REPLICATION_CONTROLLER_SPEC)),
        val(3, "status", Ty::Msg(&REPLICATION_CONTROLLER_STATUS)),
    ],
);

/// `ReplicationControllerSpec`.
pub(super) static REPLICATION_CONTROLLER_SPEC: Message = Message::new(
    "ReplicationControllerSpec",
    &[
        ptr(1, "replicas", Ty::Int),
        val(4, "minReadySeconds", Ty::Int),
        map(2, "selector", Ty::Str),
        ptr(3, "template", Ty::Msg(&super::core::POD_TEMPLATE_SPEC)),
    ],
);

/// `ReplicationControllerStatus`.
pub(super) static REPLICATION_CONTROLLER_STATUS: Message = Message::new(
    "ReplicationControllerStatus",
    &[
        val(1, "replicas", Ty::Int),
        val(2, "fullyLabeledReplicas", Ty::Int),
        val(4, "readyReplicas", Ty::Int),
        val(5, "availableReplicas", Ty::Int),
        val(3, "observedGeneration", Ty::Int),
        list(6, "conditions", Ty::Msg(&REPLICATION_CONTROLLER_CONDITION)),
    ],
);

/// `ReplicationControllerCondition`.
pub(super) static REPLICATION_CONTROLLER_CONDITION: Message = Message::new(
    "ReplicationControllerCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "lastTransitionTime", Ty::Time),
        val(4, "reason", Ty::Str),
        val(5, "message", Ty::Str),
    ],
);
