//! `authentication.k8s.io/v1`: the TokenReview a webhook authenticator's client sends (its status is
//! set by the server; a client's is decoded and then ignored, as the real server ignores it).

use super::meta::OBJECT_META;
use super::schema::{Message, Ty, list, map, val};

/// `TokenReviewSpec`.
pub(super) static TOKEN_REVIEW_SPEC: Message = Message::new(
    "TokenReviewSpec",
    &[val(1, "token", Ty::Str), list(2, "audiences", Ty::Str)],
);

/// `UserInfo`.
pub(super) static USER_INFO: Message = Message::new(
    "UserInfo",
    &[
        val(1, "username", Ty::Str),
        val(2, "uid", Ty::Str),
        list(3, "groups", Ty::Str),
        map(4, "extra", Ty::Strings),
    ],
);

/// `TokenReviewStatus`.
pub(super) static TOKEN_REVIEW_STATUS: Message = Message::new(
    "TokenReviewStatus",
    &[
        val(1, "authenticated", Ty::Bool),
        val(2, "user", Ty::Msg(&USER_INFO)),
        list(4, "audiences", Ty::Str),
        val(3, "error", Ty::Str),
    ],
);

/// `TokenReview`.
pub(super) static TOKEN_REVIEW: Message = Message::new(
    "TokenReview",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&TOKEN_REVIEW_SPEC)),
        val(3, "status", Ty::Msg(&TOKEN_REVIEW_STATUS)),
    ],
);
