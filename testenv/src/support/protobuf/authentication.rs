//! `authentication.k8s.io/v1`: the TokenRequest `kubectl create token` sends and the
//! SelfSubjectReview of `kubectl auth whoami`.

use super::meta::OBJECT_META;
use super::schema::{Message, Ty, list, ptr, unset, val};

/// `BoundObjectReference`.
pub(super) static BOUND_OBJECT_REFERENCE: Message = Message::new(
    "BoundObjectReference",
    &[
        val(1, "kind", Ty::Str),
        val(2, "apiVersion", Ty::Str),
        val(3, "name", Ty::Str),
        val(4, "uid", Ty::Str),
    ],
);

/// `TokenRequestSpec`.
pub(super) static TOKEN_REQUEST_SPEC: Message = Message::new(
    "TokenRequestSpec",
    &[
        list(1, "audiences", Ty::Str),
        ptr(4, "expirationSeconds", Ty::Int),
        ptr(3, "boundObjectRef", Ty::Msg(&BOUND_OBJECT_REFERENCE)),
    ],
);

/// `TokenRequest`; its `status` must be unset (the server sets it).
pub(super) static TOKEN_REQUEST: Message = Message::new(
    "TokenRequest",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&TOKEN_REQUEST_SPEC)),
        unset(3, "status"),
    ],
);

/// `SelfSubjectReview`; its `status` must be unset (the server sets it).
pub(super) static SELF_SUBJECT_REVIEW: Message = Message::new(
    "SelfSubjectReview",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        unset(2, "status"),
    ],
);
