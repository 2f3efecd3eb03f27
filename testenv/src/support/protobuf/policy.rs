//! `policy/v1`: the PodDisruptionBudget `kubectl create poddisruptionbudget` sends.

use super::meta::{LABEL_SELECTOR, OBJECT_META};
use super::schema::{Message, Ty, ptr, unset, val};

/// `PodDisruptionBudgetSpec`.
pub(super) static POD_DISRUPTION_BUDGET_SPEC: Message = Message::new(
    "PodDisruptionBudgetSpec",
    &[
        ptr(1, "minAvailable", Ty::IntOrString),
        ptr(2, "selector", Ty::Msg(&LABEL_SELECTOR)),
        ptr(3, "maxUnavailable", Ty::IntOrString),
        ptr(4, "unhealthyPodEvictionPolicy", Ty::Str),
    ],
);

/// `PodDisruptionBudget`; its `status` must be unset (the server sets it).
pub(super) static POD_DISRUPTION_BUDGET: Message = Message::new(
    "PodDisruptionBudget",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&POD_DISRUPTION_BUDGET_SPEC)),
        unset(3, "status"),
    ],
);
