//! `rbac.authorization.k8s.io/v1`: the roles and bindings `kubectl create role|clusterrole|
//! rolebinding|clusterrolebinding` and `kubectl auth reconcile` send.

use super::meta::{LABEL_SELECTOR, OBJECT_META};
use super::schema::{Message, Ty, list, ptr, val};

/// `PolicyRule`.
pub(super) static POLICY_RULE: Message = Message::new(
    "PolicyRule",
    &[
        list(1, "verbs", Ty::Str),
        list(2, "apiGroups", Ty::Str),
        list(3, "resources", Ty::Str),
        list(4, "resourceNames", Ty::Str),
        list(5, "nonResourceURLs", Ty::Str),
    ],
);

/// `Role`; its `status` must be unset (the server sets it).
pub(super) static ROLE: Message = Message::new(
    "Role",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        list(2, "rules", Ty::Msg(&POLICY_RULE)),
    ],
);

/// `AggregationRule`.
pub(super) static AGGREGATION_RULE: Message = Message::new(
    "AggregationRule",
    &[list(1, "clusterRoleSelectors", Ty::Msg(&LABEL_SELECTOR))],
);

/// `ClusterRole`; its `status` must be unset (the server sets it).
pub(super) static CLUSTER_ROLE: Message = Message::new(
    "ClusterRole",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        list(2, "rules", Ty::Msg(&POLICY_RULE)),
        ptr(3, "aggregationRule", Ty::Msg(&AGGREGATION_RULE)),
    ],
);

/// `Subject`.
pub(super) static SUBJECT: Message = Message::new(
    "Subject",
    &[
        val(1, "kind", Ty::Str),
        val(2, "apiGroup", Ty::Str),
        val(3, "name", Ty::Str),
        val(4, "namespace", Ty::Str),
    ],
);

/// `RoleRef`.
pub(super) static ROLE_REF: Message = Message::new(
    "RoleRef",
    &[
        val(1, "apiGroup", Ty::Str),
        val(2, "kind", Ty::Str),
        val(3, "name", Ty::Str),
    ],
);

/// `RoleBinding`; its `status` must be unset (the server sets it).
pub(super) static ROLE_BINDING: Message = Message::new(
    "RoleBinding",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        list(2, "subjects", Ty::Msg(&SUBJECT)),
        val(3, "roleRef", Ty::Msg(&ROLE_REF)),
    ],
);

/// `ClusterRoleBinding`; its `status` must be unset (the server sets it).
pub(super) static CLUSTER_ROLE_BINDING: Message = Message::new(
    "ClusterRoleBinding",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        list(2, "subjects", Ty::Msg(&SUBJECT)),
        val(3, "roleRef", Ty::Msg(&ROLE_REF)),
    ],
);
