//! `policy/v1`: PodDisruptionBudget with its status, and Eviction.
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, list, map, ptr, val};

/// `PodDisruptionBudget`.
pub(super) static POD_DISRUPTION_BUDGET: Message = Message::new(
    "PodDisruptionBudget",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(
            2,
            "spec",
            Ty::Msg(&super::policy::POD_DISRUPTION_BUDGET_SPEC),
        ),
        val(3, "status", Ty::Msg(&POD_DISRUPTION_BUDGET_STATUS)),
    ],
);

/// `PodDisruptionBudgetStatus`.
pub(super) static POD_DISRUPTION_BUDGET_STATUS: Message = Message::new(
    "PodDisruptionBudgetStatus",
    &[
        val(1, "observedGeneration", Ty::Int),
        map(2, "disruptedPods", Ty::Time),
        val(3, "disruptionsAllowed", Ty::Int),
        val(4, "currentHealthy", Ty::Int),
        val(5, "desiredHealthy", Ty::Int),
        val(6, "expectedPods", Ty::Int),
        list(7, "conditions", Ty::Msg(&super::meta_more::CONDITION)),
    ],
);

/// `Eviction`.
pub(super) static EVICTION: Message = Message::new(
    "Eviction",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        ptr(2, "deleteOptions", Ty::Msg(&DELETE_OPTIONS)),
    ],
);

/// `DeleteOptions`.
pub(super) static DELETE_OPTIONS: Message = Message::new(
    "DeleteOptions",
    &[
        ptr(1, "gracePeriodSeconds", Ty::Int),
        ptr(2, "preconditions", Ty::Msg(&PRECONDITIONS)),
        ptr(3, "orphanDependents", Ty::Bool),
        ptr(4, "propagationPolicy", Ty::Str),
        list(5, "dryRun", Ty::Str),
        ptr(
            6,
            "ignoreStoreReadErrorWithClusterBreakingPotential",
            Ty::Bool,
        ),
    ],
);

/// `Preconditions`.
pub(super) static PRECONDITIONS: Message = Message::new(
    "Preconditions",
    &[ptr(1, "uid", Ty::Str), ptr(2, "resourceVersion", Ty::Str)],
);
