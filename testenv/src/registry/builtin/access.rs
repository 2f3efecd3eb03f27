//! authentication, authorization, RBAC, certificates, admission registration, API extensions
//! and registration, flow control.

use super::table::{Builtin, CREATE, STATUS, Sub, b};
use crate::support::resource::GET_PATCH_UPDATE;

const API_EXTENSIONS: &[&str] = &["api-extensions"];
const AUTHN: &str = "authentication.k8s.io";
const AUTHZ: &str = "authorization.k8s.io";
const RBAC: &str = "rbac.authorization.k8s.io";
const ADMISSION: &str = "admissionregistration.k8s.io";
const FLOW: &str = "flowcontrol.apiserver.k8s.io";

pub(super) const RESOURCES: &[Builtin] = &[
    b(
        "apiregistration.k8s.io",
        "v1",
        "APIService",
        "apiservices",
        &[],
        false,
    )
    .subs(&[STATUS])
    .categories(API_EXTENSIONS),
    b(
        AUTHN,
        "v1",
        "SelfSubjectReview",
        "selfsubjectreviews",
        &[],
        false,
    )
    .virtual_with(CREATE),
    b(AUTHN, "v1", "TokenReview", "tokenreviews", &[], false).virtual_with(CREATE),
    b(
        AUTHZ,
        "v1",
        "LocalSubjectAccessReview",
        "localsubjectaccessreviews",
        &[],
        true,
    )
    .virtual_with(CREATE),
    b(
        AUTHZ,
        "v1",
        "SelfSubjectAccessReview",
        "selfsubjectaccessreviews",
        &[],
        false,
    )
    .virtual_with(CREATE),
    b(
        AUTHZ,
        "v1",
        "SelfSubjectRulesReview",
        "selfsubjectrulesreviews",
        &[],
        false,
    )
    .virtual_with(CREATE),
    b(
        AUTHZ,
        "v1",
        "SubjectAccessReview",
        "subjectaccessreviews",
        &[],
        false,
    )
    .virtual_with(CREATE),
    b(
        "certificates.k8s.io",
        "v1",
        "CertificateSigningRequest",
        "certificatesigningrequests",
        &["csr"],
        false,
    )
    .subs(&[Sub("approval", "", "", "", GET_PATCH_UPDATE), STATUS]),
    b(
        RBAC,
        "v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        &[],
        false,
    ),
    b(RBAC, "v1", "ClusterRole", "clusterroles", &[], false),
    b(RBAC, "v1", "RoleBinding", "rolebindings", &[], true),
    b(RBAC, "v1", "Role", "roles", &[], true),
    b(
        ADMISSION,
        "v1",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        &[],
        false,
    )
    .generation()
    .categories(API_EXTENSIONS),
    b(
        ADMISSION,
        "v1",
        "ValidatingAdmissionPolicy",
        "validatingadmissionpolicies",
        &[],
        false,
    )
    .subs(&[STATUS])
    .generation()
    .categories(API_EXTENSIONS),
    b(
        ADMISSION,
        "v1",
        "ValidatingAdmissionPolicyBinding",
        "validatingadmissionpolicybindings",
        &[],
        false,
    )
    .generation()
    .categories(API_EXTENSIONS),
    b(
        ADMISSION,
        "v1",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        &[],
        false,
    )
    .generation()
    .categories(API_EXTENSIONS),
    b(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        &["crd", "crds"],
        false,
    )
    .subs(&[STATUS])
    .generation()
    .categories(API_EXTENSIONS)
    .stored_as(
        "apiextensions.k8s.io",
        "v1beta1",
        "CustomResourceDefinition",
    ),
    b(FLOW, "v1", "FlowSchema", "flowschemas", &[], false)
        .subs(&[STATUS])
        .generation(),
    b(
        FLOW,
        "v1",
        "PriorityLevelConfiguration",
        "prioritylevelconfigurations",
        &[],
        false,
    )
    .subs(&[STATUS])
    .generation(),
];
