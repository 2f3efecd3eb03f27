//! The message of each kind a client may send as protobuf: the kinds of kubectl's typed
//! commands, written by hand here, and the recorded tables of `kinds_core` and `kinds_more`.

use super::schema::Message;
use super::{
    authentication, authorization, certificates, core, kinds_core, kinds_more, policy_kinds, rbac,
    scheduling,
};

/// The message of each kind kubectl's typed commands send as protobuf, besides those of
/// `kinds_core`: apiVersion, kind, message.
pub(super) static KINDS: &[(&str, &str, &Message)] = &[
    ("v1", "ConfigMap", &core::CONFIG_MAP),
    ("v1", "Secret", &core::SECRET),
    ("v1", "ServiceAccount", &core::SERVICE_ACCOUNT),
    ("rbac.authorization.k8s.io/v1", "Role", &rbac::ROLE),
    (
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        &rbac::CLUSTER_ROLE,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "RoleBinding",
        &rbac::ROLE_BINDING,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "ClusterRoleBinding",
        &rbac::CLUSTER_ROLE_BINDING,
    ),
    (
        "scheduling.k8s.io/v1",
        "PriorityClass",
        &scheduling::PRIORITY_CLASS,
    ),
    (
        "authentication.k8s.io/v1",
        "TokenRequest",
        &authentication::TOKEN_REQUEST,
    ),
    (
        "authorization.k8s.io/v1",
        "SelfSubjectAccessReview",
        &authorization::SELF_SUBJECT_ACCESS_REVIEW,
    ),
    (
        "authorization.k8s.io/v1",
        "SelfSubjectRulesReview",
        &authorization::SELF_SUBJECT_RULES_REVIEW,
    ),
    (
        "authentication.k8s.io/v1",
        "SelfSubjectReview",
        &authentication::SELF_SUBJECT_REVIEW,
    ),
    (
        "certificates.k8s.io/v1",
        "CertificateSigningRequest",
        &certificates::CERTIFICATE_SIGNING_REQUEST,
    ),
];

/// The message of each kind a client may send as protobuf, by apiVersion and kind.
pub(super) fn message_of(api_version: &str, kind: &str) -> Option<&'static Message> {
    if kind == "DeleteOptions" {
        // The body of a delete, registered in every group version.
        return Some(&policy_kinds::DELETE_OPTIONS);
    }
    KINDS
        .iter()
        .chain(kinds_core::KINDS)
        .chain(kinds_more::KINDS_MORE)
        .find(|(a, k, _)| *a == api_version && *k == kind)
        .map(|(_, _, message)| *message)
}
