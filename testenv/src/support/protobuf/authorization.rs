//! `authorization.k8s.io/v1`: the SelfSubjectAccessReview of `kubectl auth can-i` and the
//! SelfSubjectRulesReview of `kubectl auth can-i --list`.

use super::meta::{FIELD_SELECTOR_REQUIREMENT, LABEL_SELECTOR_REQUIREMENT, OBJECT_META};
use super::schema::{Message, Ty, list, ptr, unset, val};

/// `FieldSelectorAttributes`.
pub(super) static FIELD_SELECTOR_ATTRIBUTES: Message = Message::new(
    "FieldSelectorAttributes",
    &[
        val(1, "rawSelector", Ty::Str),
        list(2, "requirements", Ty::Msg(&FIELD_SELECTOR_REQUIREMENT)),
    ],
);

/// `LabelSelectorAttributes`.
pub(super) static LABEL_SELECTOR_ATTRIBUTES: Message = Message::new(
    "LabelSelectorAttributes",
    &[
        val(1, "rawSelector", Ty::Str),
        list(2, "requirements", Ty::Msg(&LABEL_SELECTOR_REQUIREMENT)),
    ],
);

/// `ResourceAttributes`.
pub(super) static RESOURCE_ATTRIBUTES: Message = Message::new(
    "ResourceAttributes",
    &[
        val(1, "namespace", Ty::Str),
        val(2, "verb", Ty::Str),
        val(3, "group", Ty::Str),
        val(4, "version", Ty::Str),
        val(5, "resource", Ty::Str),
        val(6, "subresource", Ty::Str),
        val(7, "name", Ty::Str),
        ptr(8, "fieldSelector", Ty::Msg(&FIELD_SELECTOR_ATTRIBUTES)),
        ptr(9, "labelSelector", Ty::Msg(&LABEL_SELECTOR_ATTRIBUTES)),
    ],
);

/// `NonResourceAttributes`.
pub(super) static NON_RESOURCE_ATTRIBUTES: Message = Message::new(
    "NonResourceAttributes",
    &[val(1, "path", Ty::Str), val(2, "verb", Ty::Str)],
);

/// `SelfSubjectAccessReviewSpec`.
pub(super) static SELF_SUBJECT_ACCESS_REVIEW_SPEC: Message = Message::new(
    "SelfSubjectAccessReviewSpec",
    &[
        ptr(1, "resourceAttributes", Ty::Msg(&RESOURCE_ATTRIBUTES)),
        ptr(
            2,
            "nonResourceAttributes",
            Ty::Msg(&NON_RESOURCE_ATTRIBUTES),
        ),
    ],
);

/// `SelfSubjectAccessReview`; its `status` must be unset (the server sets it).
pub(super) static SELF_SUBJECT_ACCESS_REVIEW: Message = Message::new(
    "SelfSubjectAccessReview",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&SELF_SUBJECT_ACCESS_REVIEW_SPEC)),
        unset(3, "status"),
    ],
);

/// `SelfSubjectRulesReviewSpec`.
pub(super) static SELF_SUBJECT_RULES_REVIEW_SPEC: Message = Message::new(
    "SelfSubjectRulesReviewSpec",
    &[val(1, "namespace", Ty::Str)],
);

/// `SelfSubjectRulesReview`; its `status` must be unset (the server sets it).
pub(super) static SELF_SUBJECT_RULES_REVIEW: Message = Message::new(
    "SelfSubjectRulesReview",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&SELF_SUBJECT_RULES_REVIEW_SPEC)),
        unset(3, "status"),
    ],
);
