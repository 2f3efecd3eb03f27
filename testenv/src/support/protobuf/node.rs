//! `node.k8s.io/v1`: RuntimeClass.

use super::meta::OBJECT_META;
use super::pod::TOLERATION;
use super::schema::{Message, Ty, list, map, ptr, val};

/// `Overhead`.
pub(super) static OVERHEAD: Message = Message::new("Overhead", &[map(1, "podFixed", Ty::Quantity)]);

/// `Scheduling`.
pub(super) static SCHEDULING: Message = Message::new(
    "Scheduling",
    &[
        map(1, "nodeSelector", Ty::Str),
        list(2, "tolerations", Ty::Msg(&TOLERATION)),
    ],
);

/// `RuntimeClass`.
pub(super) static RUNTIME_CLASS: Message = Message::new(
    "RuntimeClass",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "handler", Ty::Str),
        ptr(3, "overhead", Ty::Msg(&OVERHEAD)),
        ptr(4, "scheduling", Ty::Msg(&SCHEDULING)),
    ],
);
