//! `discovery.k8s.io/v1`: EndpointSlice.
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, list, map, ptr, val};

/// `EndpointSlice`.
pub(super) static ENDPOINT_SLICE: Message = Message::new(
    "EndpointSlice",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(4, "addressType", Ty::Str),
        list(2, "endpoints", Ty::Msg(&ENDPOINT)),
        list(3, "ports", Ty::Msg(&ENDPOINT_PORT)),
    ],
);

/// `Endpoint`.
pub(super) static ENDPOINT: Message = Message::new(
    "Endpoint",
    &[
        list(1, "addresses", Ty::Str),
        val(2, "conditions", Ty::Msg(&ENDPOINT_CONDITIONS)),
        ptr(3, "hostname", Ty::Str),
        ptr(4, "targetRef", Ty::Msg(&super::core::OBJECT_REFERENCE)),
        map(5, "deprecatedTopology", Ty::Str),
        ptr(6, "nodeName", Ty::Str),
        ptr(7, "zone", Ty::Str),
        ptr(8, "hints", Ty::Msg(&ENDPOINT_HINTS)),
    ],
);

/// `EndpointConditions`.
pub(super) static ENDPOINT_CONDITIONS: Message = Message::new(
    "EndpointConditions",
    &[
        ptr(1, "ready", Ty::Bool),
        ptr(2, "serving", Ty::Bool),
        ptr(3, "terminating", Ty::Bool),
    ],
);

/// `EndpointHints`.
pub(super) static ENDPOINT_HINTS: Message = Message::new(
    "EndpointHints",
    &[
        list(1, "forZones", Ty::Msg(&FOR_ZONE)),
        list(2, "forNodes", Ty::Msg(&FOR_NODE)),
    ],
);

/// `ForZone`.
pub(super) static FOR_ZONE: Message = Message::new("ForZone", &[val(1, "name", Ty::Str)]);

/// `ForNode`.
pub(super) static FOR_NODE: Message = Message::new("ForNode", &[val(1, "name", Ty::Str)]);

/// `EndpointPort`.
pub(super) static ENDPOINT_PORT: Message = Message::new(
    "EndpointPort",
    &[
        ptr(1, "name", Ty::Str),
        ptr(2, "protocol", Ty::Str),
        ptr(3, "port", Ty::Int),
        ptr(4, "appProtocol", Ty::Str),
    ],
);
