//! `autoscaling/v1`: HorizontalPodAutoscaler with its status, and Scale.
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, ptr, val};

/// `HorizontalPodAutoscaler`.
pub(super) static HORIZONTAL_POD_AUTOSCALER: Message = Message::new(
    "HorizontalPodAutoscaler",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(
            2,
            "spec",
            Ty::Msg(&super::autoscaling::HORIZONTAL_POD_AUTOSCALER_SPEC),
        ),
        val(3, "status", Ty::Msg(&HORIZONTAL_POD_AUTOSCALER_STATUS)),
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
        ptr(5, "currentCPUUtilizationPercentage", Ty::Int),
    ],
);

/// `Scale`.
pub(super) static SCALE: Message = Message::new(
    "Scale",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&SCALE_SPEC)),
        val(3, "status", Ty::Msg(&SCALE_STATUS)),
    ],
);

/// `ScaleSpec`.
pub(super) static SCALE_SPEC: Message = Message::new("ScaleSpec", &[val(1, "replicas", Ty::Int)]);

/// `ScaleStatus`.
pub(super) static SCALE_STATUS: Message = Message::new(
    "ScaleStatus",
    &[val(1, "replicas", Ty::Int), val(2, "selector", Ty::Str)],
);
