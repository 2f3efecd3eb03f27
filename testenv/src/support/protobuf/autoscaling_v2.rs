//! `autoscaling/v2`: HorizontalPodAutoscaler, with its status.
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, list, ptr, val};

/// `HorizontalPodAutoscaler`.
pub(super) static HORIZONTAL_POD_AUTOSCALER: Message = Message::new(
    "HorizontalPodAutoscaler",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&HORIZONTAL_POD_AUTOSCALER_SPEC)),
        val(3, "status", Ty::Msg(&HORIZONTAL_POD_AUTOSCALER_STATUS)),
    ],
);

/// `HorizontalPodAutoscalerSpec`.
pub(super) static HORIZONTAL_POD_AUTOSCALER_SPEC: Message = Message::new(
    "HorizontalPodAutoscalerSpec",
    &[
        val(
            1,
            "scaleTargetRef",
            Ty::Msg(&CROSS_VERSION_OBJECT_REFERENCE),
        ),
        ptr(2, "minReplicas", Ty::Int),
        val(3, "maxReplicas", Ty::Int),
        list(4, "metrics", Ty::Msg(&METRIC_SPEC)),
        ptr(5, "behavior", Ty::Msg(&HORIZONTAL_POD_AUTOSCALER_BEHAVIOR)),
    ],
);

/// `CrossVersionObjectReference`.
pub(super) static CROSS_VERSION_OBJECT_REFERENCE: Message = Message::new(
    "CrossVersionObjectReference",
    &[
        val(1, "kind", Ty::Str),
        val(2, "name", Ty::Str),
        val(3, "apiVersion", Ty::Str),
    ],
);

/// `MetricSpec`.
pub(super) static METRIC_SPEC: Message = Message::new(
    "MetricSpec",
    &[
        val(1, "type", Ty::Str),
        ptr(2, "object", Ty::Msg(&OBJECT_METRIC_SOURCE)),
        ptr(3, "pods", Ty::Msg(&PODS_METRIC_SOURCE)),
        ptr(4, "resource", Ty::Msg(&RESOURCE_METRIC_SOURCE)),
        ptr(
            7,
            "containerResource",
            Ty::Msg(&CONTAINER_RESOURCE_METRIC_SOURCE),
        ),
        ptr(5, "external", Ty::Msg(&EXTERNAL_METRIC_SOURCE)),
    ],
);

/// `ObjectMetricSource`.
pub(super) static OBJECT_METRIC_SOURCE: Message = Message::new(
    "ObjectMetricSource",
    &[
        val(
            1,
            "describedObject",
            Ty::Msg(&CROSS_VERSION_OBJECT_REFERENCE),
        ),
        val(2, "target", Ty::Msg(&METRIC_TARGET)),
        val(3, "metric", Ty::Msg(&METRIC_IDENTIFIER)),
    ],
);

/// `MetricTarget`.
pub(super) static METRIC_TARGET: Message = Message::new(
    "MetricTarget",
    &[
        val(1, "type", Ty::Str),
        ptr(2, "value", Ty::Quantity),
        ptr(3, "averageValue", Ty::Quantity),
        ptr(4, "averageUtilization", Ty::Int),
    ],
);

/// `MetricIdentifier`.
pub(super) static METRIC_IDENTIFIER: Message = Message::new(
    "MetricIdentifier",
    &[
        val(1, "name", Ty::Str),
        ptr(2, "selector", Ty::Msg(&super::meta::LABEL_SELECTOR)),
    ],
);

/// `PodsMetricSource`.
pub(super) static PODS_METRIC_SOURCE: Message = Message::new(
    "PodsMetricSource",
    &[
        val(1, "metric", Ty::Msg(&METRIC_IDENTIFIER)),
        val(2, "target", Ty::Msg(&METRIC_TARGET)),
    ],
);

/// `ResourceMetricSource`.
pub(super) static RESOURCE_METRIC_SOURCE: Message = Message::new(
    "ResourceMetricSource",
    &[
        val(1, "name", Ty::Str),
        val(2, "target", Ty::Msg(&METRIC_TARGET)),
    ],
);

/// `ContainerResourceMetricSource`.
pub(super) static CONTAINER_RESOURCE_METRIC_SOURCE: Message = Message::new(
    "ContainerResourceMetricSource",
    &[
        val(1, "name", Ty::Str),
        val(2, "target", Ty::Msg(&METRIC_TARGET)),
        val(3, "container", Ty::Str),
    ],
);

/// `ExternalMetricSource`.
pub(super) static EXTERNAL_METRIC_SOURCE: Message = Message::new(
    "ExternalMetricSource",
    &[
        val(1, "metric", Ty::Msg(&METRIC_IDENTIFIER)),
        val(2, "target", Ty::Msg(&METRIC_TARGET)),
    ],
);

/// `HorizontalPodAutoscalerBehavior`.
pub(super) static HORIZONTAL_POD_AUTOSCALER_BEHAVIOR: Message = Message::new(
    "HorizontalPodAutoscalerBehavior",
    &[
        ptr(1, "scaleUp", Ty::Msg(&HPA_SCALING_RULES)),
        ptr(2, "scaleDown", Ty::Msg(&HPA_SCALING_RULES)),
    ],
);

/// `HPAScalingRules`.
pub(super) static HPA_SCALING_RULES: Message = Message::new(
    "HPAScalingRules",
    &[
        ptr(3, "stabilizationWindowSeconds", Ty::Int),
        ptr(1, "selectPolicy", Ty::Str),
        list(2, "policies", Ty::Msg(&HPA_SCALING_POLICY)),
        ptr(4, "tolerance", Ty::Quantity),
    ],
);

/// `HPAScalingPolicy`.
pub(super) static HPA_SCALING_POLICY: Message = Message::new(
    "HPAScalingPolicy",
    &[
        val(1, "type", Ty::Str),
        val(2, "value", Ty::Int),
        val(3, "periodSeconds", Ty::Int),
    ],
);

/// `HorizontalPodAutoscalerStatus`.
pub(super) static HORIZONTAL_POD_AUTOSCALER_STATUS: Message = Message::new(
    "HorizontalPodAutoscalerStatus",
    &[
        ptr(1, "observedGeneration", Ty::Int),
        ptr(2, "lastScaleTime", Ty::Time),
        val(3, "currentReplicas", Ty::Int),
        val(4, "desiredReplicas", Ty::Int),
        list(5, "currentMetrics", Ty::Msg(&METRIC_STATUS)),
        list(
            6,
            "conditions",
            Ty::Msg(&HORIZONTAL_POD_AUTOSCALER_CONDITION),
        ),
    ],
);

/// `MetricStatus`.
pub(super) static METRIC_STATUS: Message = Message::new(
    "MetricStatus",
    &[
        val(1, "type", Ty::Str),
        ptr(2, "object", Ty::Msg(&OBJECT_METRIC_STATUS)),
        ptr(3, "pods", Ty::Msg(&PODS_METRIC_STATUS)),
        ptr(4, "resource", Ty::Msg(&RESOURCE_METRIC_STATUS)),
        ptr(
            7,
            "containerResource",
            Ty::Msg(&CONTAINER_RESOURCE_METRIC_STATUS),
        ),
        ptr(5, "external", Ty::Msg(&EXTERNAL_METRIC_STATUS)),
    ],
);

/// `ObjectMetricStatus`.
pub(super) static OBJECT_METRIC_STATUS: Message = Message::new(
    "ObjectMetricStatus",
    &[
        val(1, "metric", Ty::Msg(&METRIC_IDENTIFIER)),
        val(2, "current", Ty::Msg(&METRIC_VALUE_STATUS)),
        val(
            3,
            "describedObject",
            Ty::Msg(&CROSS_VERSION_OBJECT_REFERENCE),
        ),
    ],
);

/// `MetricValueStatus`.
pub(super) static METRIC_VALUE_STATUS: Message = Message::new(
    "MetricValueStatus",
    &[
        ptr(1, "value", Ty::Quantity),
        ptr(2, "averageValue", Ty::Quantity),
        ptr(3, "averageUtilization", Ty::Int),
    ],
);

/// `PodsMetricStatus`.
pub(super) static PODS_METRIC_STATUS: Message = Message::new(
    "PodsMetricStatus",
    &[
        val(1, "metric", Ty::Msg(&METRIC_IDENTIFIER)),
        val(2, "current", Ty::Msg(&METRIC_VALUE_STATUS)),
    ],
);

/// `ResourceMetricStatus`.
pub(super) static RESOURCE_METRIC_STATUS: Message = Message::new(
    "ResourceMetricStatus",
    &[
        val(1, "name", Ty::Str),
        val(2, "current", Ty::Msg(&METRIC_VALUE_STATUS)),
    ],
);

/// `ContainerResourceMetricStatus`.
pub(super) static CONTAINER_RESOURCE_METRIC_STATUS: Message = Message::new(
    "ContainerResourceMetricStatus",
    &[
        val(1, "name", Ty::Str),
        val(2, "current", Ty::Msg(&METRIC_VALUE_STATUS)),
        val(3, "container", Ty::Str),
    ],
);

/// `ExternalMetricStatus`.
pub(super) static EXTERNAL_METRIC_STATUS: Message = Message::new(
    "ExternalMetricStatus",
    &[
        val(1, "metric", Ty::Msg(&METRIC_IDENTIFIER)),
        val(2, "current", Ty::Msg(&METRIC_VALUE_STATUS)),
    ],
);

/// `HorizontalPodAutoscalerCondition`.
pub(super) static HORIZONTAL_POD_AUTOSCALER_CONDITION: Message = Message::new(
    "HorizontalPodAutoscalerCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "lastTransitionTime", Ty::Time),
        val(4, "reason", Ty::Str),
        val(5, "message", Ty::Str),
    ],
);
