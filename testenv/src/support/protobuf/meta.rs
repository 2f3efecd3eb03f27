//! `meta/v1`: ObjectMeta, owner references and label selectors, shared by every kind.

use super::schema::{Message, Ty, list, map, ptr, val};

/// `OwnerReference`.
pub(super) static OWNER_REFERENCE: Message = Message::new(
    "OwnerReference",
    &[
        val(5, "apiVersion", Ty::Str),
        val(1, "kind", Ty::Str),
        val(3, "name", Ty::Str),
        val(4, "uid", Ty::Str),
        ptr(6, "controller", Ty::Bool),
        ptr(7, "blockOwnerDeletion", Ty::Bool),
    ],
);

/// `ManagedFieldsEntry`.
pub(super) static MANAGED_FIELDS_ENTRY: Message = Message::new(
    "ManagedFieldsEntry",
    &[
        val(1, "manager", Ty::Str),
        val(2, "operation", Ty::Str),
        val(3, "apiVersion", Ty::Str),
        ptr(4, "time", Ty::Time),
        val(6, "fieldsType", Ty::Str),
        ptr(7, "fieldsV1", Ty::FieldsV1),
        val(8, "subresource", Ty::Str),
    ],
);

/// `ObjectMeta`.
pub(super) static OBJECT_META: Message = Message::new(
    "ObjectMeta",
    &[
        val(1, "name", Ty::Str),
        val(2, "generateName", Ty::Str),
        val(3, "namespace", Ty::Str),
        val(4, "selfLink", Ty::Str),
        val(5, "uid", Ty::Str),
        val(6, "resourceVersion", Ty::Str),
        val(7, "generation", Ty::Int),
        val(8, "creationTimestamp", Ty::Time),
        ptr(9, "deletionTimestamp", Ty::Time),
        ptr(10, "deletionGracePeriodSeconds", Ty::Int),
        map(11, "labels", Ty::Str),
        map(12, "annotations", Ty::Str),
        list(13, "ownerReferences", Ty::Msg(&OWNER_REFERENCE)),
        list(14, "finalizers", Ty::Str),
        list(17, "managedFields", Ty::Msg(&MANAGED_FIELDS_ENTRY)),
    ],
);

/// `LabelSelectorRequirement`.
pub(super) static LABEL_SELECTOR_REQUIREMENT: Message = Message::new(
    "LabelSelectorRequirement",
    &[
        val(1, "key", Ty::Str),
        val(2, "operator", Ty::Str),
        list(3, "values", Ty::Str),
    ],
);

/// `LabelSelector`.
pub(super) static LABEL_SELECTOR: Message = Message::new(
    "LabelSelector",
    &[
        map(1, "matchLabels", Ty::Str),
        list(2, "matchExpressions", Ty::Msg(&LABEL_SELECTOR_REQUIREMENT)),
    ],
);

/// `FieldSelectorRequirement`.
pub(super) static FIELD_SELECTOR_REQUIREMENT: Message = Message::new(
    "FieldSelectorRequirement",
    &[
        val(1, "key", Ty::Str),
        val(2, "operator", Ty::Str),
        list(3, "values", Ty::Str),
    ],
);
