//! `events.k8s.io/v1`: Event.
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, ptr, val};

/// `Event`.
pub(super) static EVENT: Message = Message::new(
    "Event",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "eventTime", Ty::MicroTime),
        ptr(3, "series", Ty::Msg(&EVENT_SERIES)),
        val(4, "reportingController", Ty::Str),
        val(5, "reportingInstance", Ty::Str),
        val(6, "action", Ty::Str),
        val(7, "reason", Ty::Str),
        val(8, "regarding", Ty::Msg(&super::core::OBJECT_REFERENCE)),
        ptr(9, "related", Ty::Msg(&super::core::OBJECT_REFERENCE)),
        val(10, "note", Ty::Str),
        val(11, "type", Ty::Str),
        val(
            12,
            "deprecatedSource",
            Ty::Msg(&super::core_kinds::EVENT_SOURCE),
        ),
        val(13, "deprecatedFirstTimestamp", Ty::Time),
        val(14, "deprecatedLastTimestamp", Ty::Time),
        val(15, "deprecatedCount", Ty::Int),
    ],
);

/// `EventSeries`.
pub(super) static EVENT_SERIES: Message = Message::new(
    "EventSeries",
    &[
        val(1, "count", Ty::Int),
        val(2, "lastObservedTime", Ty::MicroTime),
    ],
);
