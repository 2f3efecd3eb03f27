//! `autoscaling/v1`: the HorizontalPodAutoscaler `kubectl autoscale` sends.

use super::meta::OBJECT_META;
use super::schema::{Message, Ty, ptr, unset, val};

/// `CrossVersionObjectReference`.
pub(super) static CROSS_VERSION_OBJECT_REFERENCE: Message = Message::new(
    "CrossVersionObjectReference",
    &[
        val(1, "kind", Ty::Str),
        val(2, "name", Ty::Str),
        val(3, "apiVersion", Ty::Str),
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
        ptr(4, "targetCPUUtilizationPercentage", Ty::Int),
    ],
);

/// `HorizontalPodAutoscaler`; its `status` must be unset (the server sets it).
pub(super) static HORIZONTAL_POD_AUTOSCALER: Message = Message::new(
    "HorizontalPodAutoscaler",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&HORIZONTAL_POD_AUTOSCALER_SPEC)),
        unset(3, "status"),
    ],
);
