//! `authentication.k8s.io/v1`: the TokenRequest `kubectl create token` sends and the
//! SelfSubjectReview of `kubectl auth whoami`.

use super::authentication_review::USER_INFO;
use super::meta::OBJECT_META;
use super::schema::{Message, Ty, list, ptr, val};

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

/// `TokenRequestStatus`.
pub(super) static TOKEN_REQUEST_STATUS: Message = Message::new(
    "TokenRequestStatus",
    &[
        val(1, "token", Ty::Str),
        val(2, "expirationTimestamp", Ty::Time),
    ],
);

/// `TokenRequest`; a client's `status` is decoded, and replaced by the server's.
pub(super) static TOKEN_REQUEST: Message = Message::new(
    "TokenRequest",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&TOKEN_REQUEST_SPEC)),
        val(3, "status", Ty::Msg(&TOKEN_REQUEST_STATUS)),
    ],
);

/// `SelfSubjectReviewStatus`.
pub(super) static SELF_SUBJECT_REVIEW_STATUS: Message = Message::new(
    "SelfSubjectReviewStatus",
    &[val(1, "userInfo", Ty::Msg(&USER_INFO))],
);

/// `SelfSubjectReview`; a client's `status` is decoded, and replaced by the server's.
pub(super) static SELF_SUBJECT_REVIEW: Message = Message::new(
    "SelfSubjectReview",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "status", Ty::Msg(&SELF_SUBJECT_REVIEW_STATUS)),
    ],
);
