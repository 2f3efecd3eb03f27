//! `autoscaling/v1`: the HorizontalPodAutoscalerSpec `kubectl autoscale` sends (the kind, with its
//! status, is in `autoscaling_kinds`).

use super::schema::{Message, Ty, ptr, val};

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
