//! `authorization.k8s.io/v1`: the SelfSubjectAccessReview of `kubectl auth can-i` and the
//! SelfSubjectRulesReview of `kubectl auth can-i --list`.

use super::meta::{FIELD_SELECTOR_REQUIREMENT, LABEL_SELECTOR_REQUIREMENT, OBJECT_META};
use super::schema::{Message, Ty, list, ptr, val};

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

/// `SubjectAccessReviewStatus`.
pub(super) static SUBJECT_ACCESS_REVIEW_STATUS: Message = Message::new(
    "SubjectAccessReviewStatus",
    &[
        val(1, "allowed", Ty::Bool),
        val(4, "denied", Ty::Bool),
        val(2, "reason", Ty::Str),
        val(3, "evaluationError", Ty::Str),
    ],
);

/// `SelfSubjectAccessReview`; a client's `status` is decoded, and replaced by the server's.
pub(super) static SELF_SUBJECT_ACCESS_REVIEW: Message = Message::new(
    "SelfSubjectAccessReview",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&SELF_SUBJECT_ACCESS_REVIEW_SPEC)),
        val(3, "status", Ty::Msg(&SUBJECT_ACCESS_REVIEW_STATUS)),
    ],
);

/// `SelfSubjectRulesReviewSpec`.
pub(super) static SELF_SUBJECT_RULES_REVIEW_SPEC: Message = Message::new(
    "SelfSubjectRulesReviewSpec",
    &[val(1, "namespace", Ty::Str)],
);

/// `ResourceRule`.
pub(super) static RESOURCE_RULE: Message = Message::new(
    "ResourceRule",
    &[
        list(1, "verbs", Ty::Str),
        list(2, "apiGroups", Ty::Str),
        list(3, "resources", Ty::Str),
        list(4, "resourceNames", Ty::Str),
    ],
);

/// `NonResourceRule`.
pub(super) static NON_RESOURCE_RULE: Message = Message::new(
    "NonResourceRule",
    &[
        list(1, "verbs", Ty::Str),
        list(2, "nonResourceURLs", Ty::Str),
    ],
);

/// `SubjectRulesReviewStatus`.
pub(super) static SUBJECT_RULES_REVIEW_STATUS: Message = Message::new(
    "SubjectRulesReviewStatus",
    &[
        list(1, "resourceRules", Ty::Msg(&RESOURCE_RULE)),
        list(2, "nonResourceRules", Ty::Msg(&NON_RESOURCE_RULE)),
        val(3, "incomplete", Ty::Bool),
        val(4, "evaluationError", Ty::Str),
    ],
);

/// `SelfSubjectRulesReview`; a client's `status` is decoded, and replaced by the server's.
pub(super) static SELF_SUBJECT_RULES_REVIEW: Message = Message::new(
    "SelfSubjectRulesReview",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&SELF_SUBJECT_RULES_REVIEW_SPEC)),
        val(3, "status", Ty::Msg(&SUBJECT_RULES_REVIEW_STATUS)),
    ],
);
