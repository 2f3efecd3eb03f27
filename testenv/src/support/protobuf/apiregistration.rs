//! `apiregistration.k8s.io/v1`: APIService, with its status (the availability conditions the
//! aggregator's controller puts to `/status`).

use super::meta::OBJECT_META;
use super::schema::{Message, Ty, list, ptr, val};

/// `ServiceReference`.
pub(super) static SERVICE_REFERENCE: Message = Message::new(
    "ServiceReference",
    &[
        val(1, "namespace", Ty::Str),
        val(2, "name", Ty::Str),
        ptr(3, "port", Ty::Int),
    ],
);

/// `APIServiceSpec`.
pub(super) static API_SERVICE_SPEC: Message = Message::new(
    "APIServiceSpec",
    &[
        ptr(1, "service", Ty::Msg(&SERVICE_REFERENCE)),
        val(2, "group", Ty::Str),
        val(3, "version", Ty::Str),
        val(4, "insecureSkipTLSVerify", Ty::Bool),
        val(5, "caBundle", Ty::Bytes),
        val(7, "groupPriorityMinimum", Ty::Int),
        val(8, "versionPriority", Ty::Int),
    ],
);

/// `APIServiceCondition`.
pub(super) static API_SERVICE_CONDITION: Message = Message::new(
    "APIServiceCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "lastTransitionTime", Ty::Time),
        val(4, "reason", Ty::Str),
        val(5, "message", Ty::Str),
    ],
);

/// `APIServiceStatus`.
pub(super) static API_SERVICE_STATUS: Message = Message::new(
    "APIServiceStatus",
    &[list(1, "conditions", Ty::Msg(&API_SERVICE_CONDITION))],
);

/// `APIService`.
pub(super) static API_SERVICE: Message = Message::new(
    "APIService",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&API_SERVICE_SPEC)),
        val(3, "status", Ty::Msg(&API_SERVICE_STATUS)),
    ],
);
