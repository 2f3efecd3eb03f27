//! The message of each further built-in kind a client-go program configured for protobuf sends:
//! admissionregistration, storage, node, flowcontrol, resource, apiextensions, apiregistration and the access and
//! token reviews (apiVersion, kind, message).

use super::schema::Message;
use super::{
    admissionregistration, apiextensions, apiregistration, authentication_review,
    authorization_review, flowcontrol, node, resource, storage,
};

/// apiVersion, kind and message of each kind described here.
pub(super) static KINDS_MORE: &[(&str, &str, &Message)] = &[
    (
        "admissionregistration.k8s.io/v1",
        "MutatingWebhookConfiguration",
        &admissionregistration::MUTATING_WEBHOOK_CONFIGURATION,
    ),
    (
        "admissionregistration.k8s.io/v1",
        "ValidatingWebhookConfiguration",
        &admissionregistration::VALIDATING_WEBHOOK_CONFIGURATION,
    ),
    (
        "admissionregistration.k8s.io/v1",
        "ValidatingAdmissionPolicy",
        &admissionregistration::VALIDATING_ADMISSION_POLICY,
    ),
    (
        "admissionregistration.k8s.io/v1",
        "ValidatingAdmissionPolicyBinding",
        &admissionregistration::VALIDATING_ADMISSION_POLICY_BINDING,
    ),
    ("storage.k8s.io/v1", "StorageClass", &storage::STORAGE_CLASS),
    ("storage.k8s.io/v1", "CSIDriver", &storage::CSI_DRIVER),
    ("storage.k8s.io/v1", "CSINode", &storage::CSI_NODE),
    (
        "storage.k8s.io/v1",
        "CSIStorageCapacity",
        &storage::CSI_STORAGE_CAPACITY,
    ),
    (
        "storage.k8s.io/v1",
        "VolumeAttachment",
        &storage::VOLUME_ATTACHMENT,
    ),
    (
        "storage.k8s.io/v1",
        "VolumeAttributesClass",
        &storage::VOLUME_ATTRIBUTES_CLASS,
    ),
    ("node.k8s.io/v1", "RuntimeClass", &node::RUNTIME_CLASS),
    (
        "flowcontrol.apiserver.k8s.io/v1",
        "FlowSchema",
        &flowcontrol::FLOW_SCHEMA,
    ),
    (
        "flowcontrol.apiserver.k8s.io/v1",
        "PriorityLevelConfiguration",
        &flowcontrol::PRIORITY_LEVEL_CONFIGURATION,
    ),
    ("resource.k8s.io/v1", "DeviceClass", &resource::DEVICE_CLASS),
    (
        "resource.k8s.io/v1",
        "ResourceClaim",
        &resource::RESOURCE_CLAIM,
    ),
    (
        "resource.k8s.io/v1",
        "ResourceClaimTemplate",
        &resource::RESOURCE_CLAIM_TEMPLATE,
    ),
    (
        "resource.k8s.io/v1",
        "ResourceSlice",
        &resource::RESOURCE_SLICE,
    ),
    (
        "authentication.k8s.io/v1",
        "TokenReview",
        &authentication_review::TOKEN_REVIEW,
    ),
    (
        "authorization.k8s.io/v1",
        "SubjectAccessReview",
        &authorization_review::SUBJECT_ACCESS_REVIEW,
    ),
    (
        "authorization.k8s.io/v1",
        "LocalSubjectAccessReview",
        &authorization_review::LOCAL_SUBJECT_ACCESS_REVIEW,
    ),
    (
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        &apiextensions::CUSTOM_RESOURCE_DEFINITION,
    ),
    (
        "apiregistration.k8s.io/v1",
        "APIService",
        &apiregistration::API_SERVICE,
    ),
];
