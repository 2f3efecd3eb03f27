//! `policy/v1`: the PodDisruptionBudgetSpec `kubectl create poddisruptionbudget` sends (the kind,
//! with its status, is in `policy_kinds`).

use super::meta::LABEL_SELECTOR;
use super::schema::{Message, Ty, ptr};

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
