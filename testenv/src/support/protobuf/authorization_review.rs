//! `authorization.k8s.io/v1`: the SubjectAccessReview and LocalSubjectAccessReview a webhook
//! authorizer's client or a controller checking another user's access sends (their status is set by
//! the server; a client's is decoded and then ignored, as the real server ignores it).

use super::authorization::{
    NON_RESOURCE_ATTRIBUTES, RESOURCE_ATTRIBUTES, SUBJECT_ACCESS_REVIEW_STATUS,
};
use super::meta::OBJECT_META;
use super::schema::{Message, Ty, list, map, ptr, val};

/// `SubjectAccessReviewSpec`.
pub(super) static SUBJECT_ACCESS_REVIEW_SPEC: Message = Message::new(
    "SubjectAccessReviewSpec",
    &[
        ptr(1, "resourceAttributes", Ty::Msg(&RESOURCE_ATTRIBUTES)),
        ptr(
            2,
            "nonResourceAttributes",
            Ty::Msg(&NON_RESOURCE_ATTRIBUTES),
        ),
        val(3, "user", Ty::Str),
        list(4, "groups", Ty::Str),
        map(5, "extra", Ty::Strings),
        val(6, "uid", Ty::Str),
    ],
);

/// `SubjectAccessReview`.
pub(super) static SUBJECT_ACCESS_REVIEW: Message = Message::new(
    "SubjectAccessReview",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&SUBJECT_ACCESS_REVIEW_SPEC)),
        val(3, "status", Ty::Msg(&SUBJECT_ACCESS_REVIEW_STATUS)),
    ],
);

/// `LocalSubjectAccessReview`.
pub(super) static LOCAL_SUBJECT_ACCESS_REVIEW: Message = Message::new(
    "LocalSubjectAccessReview",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&SUBJECT_ACCESS_REVIEW_SPEC)),
        val(3, "status", Ty::Msg(&SUBJECT_ACCESS_REVIEW_STATUS)),
    ],
);
