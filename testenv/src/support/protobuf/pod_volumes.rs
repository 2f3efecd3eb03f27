//! The core `v1` volume sources a pod template commonly carries (host path, empty dir, secret,
//! config map, downward API, projected, persistent volume claim, ephemeral, CSI, image) and the
//! small references they share with containers (`LocalObjectReference`, key and field
//! selectors).

use super::meta::{LABEL_SELECTOR, OBJECT_META};
use super::schema::{Message, Ty, inline, list, map, ptr, val};

/// `HostPathVolumeSource`.
pub(super) static HOST_PATH_VOLUME_SOURCE: Message = Message::new(
    "HostPathVolumeSource",
    &[val(1, "path", Ty::Str), ptr(2, "type", Ty::Str)],
);

/// `EmptyDirVolumeSource`.
pub(super) static EMPTY_DIR_VOLUME_SOURCE: Message = Message::new(
    "EmptyDirVolumeSource",
    &[val(1, "medium", Ty::Str), ptr(2, "sizeLimit", Ty::Quantity)],
);

/// `KeyToPath`.
pub(super) static KEY_TO_PATH: Message = Message::new(
    "KeyToPath",
    &[
        val(1, "key", Ty::Str),
        val(2, "path", Ty::Str),
        ptr(3, "mode", Ty::Int),
    ],
);

/// `SecretVolumeSource`.
pub(super) static SECRET_VOLUME_SOURCE: Message = Message::new(
    "SecretVolumeSource",
    &[
        val(1, "secretName", Ty::Str),
        list(2, "items", Ty::Msg(&KEY_TO_PATH)),
        ptr(3, "defaultMode", Ty::Int),
        ptr(4, "optional", Ty::Bool),
    ],
);

/// `LocalObjectReference`.
pub(super) static LOCAL_OBJECT_REFERENCE: Message =
    Message::new("LocalObjectReference", &[val(1, "name", Ty::Str)]);

/// `PersistentVolumeClaimVolumeSource`.
pub(super) static PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE: Message = Message::new(
    "PersistentVolumeClaimVolumeSource",
    &[val(1, "claimName", Ty::Str), val(2, "readOnly", Ty::Bool)],
);

/// `ObjectFieldSelector`.
pub(super) static OBJECT_FIELD_SELECTOR: Message = Message::new(
    "ObjectFieldSelector",
    &[val(1, "apiVersion", Ty::Str), val(2, "fieldPath", Ty::Str)],
);

/// `ResourceFieldSelector`.
pub(super) static RESOURCE_FIELD_SELECTOR: Message = Message::new(
    "ResourceFieldSelector",
    &[
        val(1, "containerName", Ty::Str),
        val(2, "resource", Ty::Str),
        val(3, "divisor", Ty::Quantity),
    ],
);

/// `DownwardAPIVolumeFile`.
pub(super) static DOWNWARD_API_VOLUME_FILE: Message = Message::new(
    "DownwardAPIVolumeFile",
    &[
        val(1, "path", Ty::Str),
        ptr(2, "fieldRef", Ty::Msg(&OBJECT_FIELD_SELECTOR)),
        ptr(3, "resourceFieldRef", Ty::Msg(&RESOURCE_FIELD_SELECTOR)),
        ptr(4, "mode", Ty::Int),
    ],
);

/// `DownwardAPIVolumeSource`.
pub(super) static DOWNWARD_API_VOLUME_SOURCE: Message = Message::new(
    "DownwardAPIVolumeSource",
    &[
        list(1, "items", Ty::Msg(&DOWNWARD_API_VOLUME_FILE)),
        ptr(2, "defaultMode", Ty::Int),
    ],
);

/// `ConfigMapVolumeSource`.
pub(super) static CONFIG_MAP_VOLUME_SOURCE: Message = Message::new(
    "ConfigMapVolumeSource",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        list(2, "items", Ty::Msg(&KEY_TO_PATH)),
        ptr(3, "defaultMode", Ty::Int),
        ptr(4, "optional", Ty::Bool),
    ],
);

/// `SecretProjection`.
pub(super) static SECRET_PROJECTION: Message = Message::new(
    "SecretProjection",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        list(2, "items", Ty::Msg(&KEY_TO_PATH)),
        ptr(4, "optional", Ty::Bool),
    ],
);

/// `DownwardAPIProjection`.
pub(super) static DOWNWARD_API_PROJECTION: Message = Message::new(
    "DownwardAPIProjection",
    &[list(1, "items", Ty::Msg(&DOWNWARD_API_VOLUME_FILE))],
);

/// `ConfigMapProjection`.
pub(super) static CONFIG_MAP_PROJECTION: Message = Message::new(
    "ConfigMapProjection",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        list(2, "items", Ty::Msg(&KEY_TO_PATH)),
        ptr(4, "optional", Ty::Bool),
    ],
);

/// `ServiceAccountTokenProjection`.
pub(super) static SERVICE_ACCOUNT_TOKEN_PROJECTION: Message = Message::new(
    "ServiceAccountTokenProjection",
    &[
        val(1, "audience", Ty::Str),
        ptr(2, "expirationSeconds", Ty::Int),
        val(3, "path", Ty::Str),
    ],
);

/// `ClusterTrustBundleProjection`.
pub(super) static CLUSTER_TRUST_BUNDLE_PROJECTION: Message = Message::new(
    "ClusterTrustBundleProjection",
    &[
        ptr(1, "name", Ty::Str),
        ptr(2, "signerName", Ty::Str),
        ptr(3, "labelSelector", Ty::Msg(&LABEL_SELECTOR)),
        ptr(5, "optional", Ty::Bool),
        val(4, "path", Ty::Str),
    ],
);

/// `PodCertificateProjection`.
pub(super) static POD_CERTIFICATE_PROJECTION: Message = Message::new(
    "PodCertificateProjection",
    &[
        val(1, "signerName", Ty::Str),
        val(2, "keyType", Ty::Str),
        ptr(3, "maxExpirationSeconds", Ty::Int),
        val(4, "credentialBundlePath", Ty::Str),
        val(5, "keyPath", Ty::Str),
        val(6, "certificateChainPath", Ty::Str),
    ],
);

/// `VolumeProjection`.
pub(super) static VOLUME_PROJECTION: Message = Message::new(
    "VolumeProjection",
    &[
        ptr(1, "secret", Ty::Msg(&SECRET_PROJECTION)),
        ptr(2, "downwardAPI", Ty::Msg(&DOWNWARD_API_PROJECTION)),
        ptr(3, "configMap", Ty::Msg(&CONFIG_MAP_PROJECTION)),
        ptr(
            4,
            "serviceAccountToken",
            Ty::Msg(&SERVICE_ACCOUNT_TOKEN_PROJECTION),
        ),
        ptr(
            5,
            "clusterTrustBundle",
            Ty::Msg(&CLUSTER_TRUST_BUNDLE_PROJECTION),
        ),
        ptr(6, "podCertificate", Ty::Msg(&POD_CERTIFICATE_PROJECTION)),
    ],
);

/// `ProjectedVolumeSource`.
pub(super) static PROJECTED_VOLUME_SOURCE: Message = Message::new(
    "ProjectedVolumeSource",
    &[
        list(1, "sources", Ty::Msg(&VOLUME_PROJECTION)),
        ptr(2, "defaultMode", Ty::Int),
    ],
);

/// `CSIVolumeSource`.
pub(super) static CSI_VOLUME_SOURCE: Message = Message::new(
    "CSIVolumeSource",
    &[
        val(1, "driver", Ty::Str),
        ptr(2, "readOnly", Ty::Bool),
        ptr(3, "fsType", Ty::Str),
        map(4, "volumeAttributes", Ty::Str),
        ptr(5, "nodePublishSecretRef", Ty::Msg(&LOCAL_OBJECT_REFERENCE)),
    ],
);

/// `VolumeResourceRequirements`.
pub(super) static VOLUME_RESOURCE_REQUIREMENTS: Message = Message::new(
    "VolumeResourceRequirements",
    &[
        map(1, "limits", Ty::Quantity),
        map(2, "requests", Ty::Quantity),
    ],
);

/// `TypedLocalObjectReference`.
pub(super) static TYPED_LOCAL_OBJECT_REFERENCE: Message = Message::new(
    "TypedLocalObjectReference",
    &[
        ptr(1, "apiGroup", Ty::Str),
        val(2, "kind", Ty::Str),
        val(3, "name", Ty::Str),
    ],
);

/// `TypedObjectReference`.
pub(super) static TYPED_OBJECT_REFERENCE: Message = Message::new(
    "TypedObjectReference",
    &[
        ptr(1, "apiGroup", Ty::Str),
        val(2, "kind", Ty::Str),
        val(3, "name", Ty::Str),
        ptr(4, "namespace", Ty::Str),
    ],
);

/// `PersistentVolumeClaimSpec`.
pub(super) static PERSISTENT_VOLUME_CLAIM_SPEC: Message = Message::new(
    "PersistentVolumeClaimSpec",
    &[
        list(1, "accessModes", Ty::Str),
        ptr(4, "selector", Ty::Msg(&LABEL_SELECTOR)),
        val(2, "resources", Ty::Msg(&VOLUME_RESOURCE_REQUIREMENTS)),
        val(3, "volumeName", Ty::Str),
        ptr(5, "storageClassName", Ty::Str),
        ptr(6, "volumeMode", Ty::Str),
        ptr(7, "dataSource", Ty::Msg(&TYPED_LOCAL_OBJECT_REFERENCE)),
        ptr(8, "dataSourceRef", Ty::Msg(&TYPED_OBJECT_REFERENCE)),
        ptr(9, "volumeAttributesClassName", Ty::Str),
    ],
);

/// `PersistentVolumeClaimTemplate`.
pub(super) static PERSISTENT_VOLUME_CLAIM_TEMPLATE: Message = Message::new(
    "PersistentVolumeClaimTemplate",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&PERSISTENT_VOLUME_CLAIM_SPEC)),
    ],
);

/// `EphemeralVolumeSource`.
pub(super) static EPHEMERAL_VOLUME_SOURCE: Message = Message::new(
    "EphemeralVolumeSource",
    &[ptr(
        1,
        "volumeClaimTemplate",
        Ty::Msg(&PERSISTENT_VOLUME_CLAIM_TEMPLATE),
    )],
);

/// `ImageVolumeSource`.
pub(super) static IMAGE_VOLUME_SOURCE: Message = Message::new(
    "ImageVolumeSource",
    &[val(1, "reference", Ty::Str), val(2, "pullPolicy", Ty::Str)],
);
