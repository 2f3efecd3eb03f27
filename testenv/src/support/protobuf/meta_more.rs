//! `meta/v1` types beyond ObjectMeta and selectors: the standard `Condition` of statuses.

use super::schema::{Message, Ty, val};

/// `Condition`.
pub(super) static CONDITION: Message = Message::new(
    "Condition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "observedGeneration", Ty::Int),
        val(4, "lastTransitionTime", Ty::Time),
        val(5, "reason", Ty::Str),
        val(6, "message", Ty::Str),
    ],
);
