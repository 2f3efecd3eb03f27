//! `scheduling.k8s.io/v1`: the PriorityClass `kubectl create priorityclass` sends.

use super::meta::OBJECT_META;
use super::schema::{Message, Ty, ptr, val};

/// `PriorityClass`; its `status` must be unset (the server sets it).
pub(super) static PRIORITY_CLASS: Message = Message::new(
    "PriorityClass",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "value", Ty::Int),
        val(3, "globalDefault", Ty::Bool),
        val(4, "description", Ty::Str),
        ptr(5, "preemptionPolicy", Ty::Str),
    ],
);
