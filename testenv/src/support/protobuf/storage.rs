//! `storage.k8s.io/v1`: StorageClass, CSIDriver, CSINode, CSIStorageCapacity, VolumeAttachment
//! (with its status, as a CSI attacher puts it to `/status`) and VolumeAttributesClass.

use super::meta::{LABEL_SELECTOR, OBJECT_META};
use super::persistent_volume::PERSISTENT_VOLUME_SPEC;
use super::schema::{Message, Ty, list, map, ptr, val};

/// `TopologySelectorLabelRequirement` (core `v1`).
static TOPOLOGY_SELECTOR_LABEL_REQUIREMENT: Message = Message::new(
    "TopologySelectorLabelRequirement",
    &[val(1, "key", Ty::Str), list(2, "values", Ty::Str)],
);

/// `TopologySelectorTerm` (core `v1`), a StorageClass's allowed topologies.
static TOPOLOGY_SELECTOR_TERM: Message = Message::new(
    "TopologySelectorTerm",
    &[list(
        1,
        "matchLabelExpressions",
        Ty::Msg(&TOPOLOGY_SELECTOR_LABEL_REQUIREMENT),
    )],
);

/// `StorageClass`.
pub(super) static STORAGE_CLASS: Message = Message::new(
    "StorageClass",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "provisioner", Ty::Str),
        map(3, "parameters", Ty::Str),
        ptr(4, "reclaimPolicy", Ty::Str),
        list(5, "mountOptions", Ty::Str),
        ptr(6, "allowVolumeExpansion", Ty::Bool),
        ptr(7, "volumeBindingMode", Ty::Str),
        list(8, "allowedTopologies", Ty::Msg(&TOPOLOGY_SELECTOR_TERM)),
    ],
);

/// `TokenRequest`.
pub(super) static TOKEN_REQUEST: Message = Message::new(
    "TokenRequest",
    &[
        val(1, "audience", Ty::Str),
        ptr(2, "expirationSeconds", Ty::Int),
    ],
);

/// `CSIDriverSpec`.
pub(super) static CSI_DRIVER_SPEC: Message = Message::new(
    "CSIDriverSpec",
    &[
        ptr(1, "attachRequired", Ty::Bool),
        ptr(2, "podInfoOnMount", Ty::Bool),
        list(3, "volumeLifecycleModes", Ty::Str),
        ptr(4, "storageCapacity", Ty::Bool),
        ptr(5, "fsGroupPolicy", Ty::Str),
        list(6, "tokenRequests", Ty::Msg(&TOKEN_REQUEST)),
        ptr(7, "requiresRepublish", Ty::Bool),
        ptr(8, "seLinuxMount", Ty::Bool),
        ptr(9, "nodeAllocatableUpdatePeriodSeconds", Ty::Int),
    ],
);

/// `CSIDriver`.
pub(super) static CSI_DRIVER: Message = Message::new(
    "CSIDriver",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&CSI_DRIVER_SPEC)),
    ],
);

/// `VolumeNodeResources`.
pub(super) static VOLUME_NODE_RESOURCES: Message =
    Message::new("VolumeNodeResources", &[ptr(1, "count", Ty::Int)]);

/// `CSINodeDriver`.
pub(super) static CSI_NODE_DRIVER: Message = Message::new(
    "CSINodeDriver",
    &[
        val(1, "name", Ty::Str),
        val(2, "nodeID", Ty::Str),
        list(3, "topologyKeys", Ty::Str),
        ptr(4, "allocatable", Ty::Msg(&VOLUME_NODE_RESOURCES)),
    ],
);

/// `CSINodeSpec`.
pub(super) static CSI_NODE_SPEC: Message = Message::new(
    "CSINodeSpec",
    &[list(1, "drivers", Ty::Msg(&CSI_NODE_DRIVER))],
);

/// `CSINode`.
pub(super) static CSI_NODE: Message = Message::new(
    "CSINode",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&CSI_NODE_SPEC)),
    ],
);

/// `CSIStorageCapacity`.
pub(super) static CSI_STORAGE_CAPACITY: Message = Message::new(
    "CSIStorageCapacity",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        ptr(2, "nodeTopology", Ty::Msg(&LABEL_SELECTOR)),
        val(3, "storageClassName", Ty::Str),
        ptr(4, "capacity", Ty::Quantity),
        ptr(5, "maximumVolumeSize", Ty::Quantity),
    ],
);

/// `VolumeAttachmentSource`.
pub(super) static VOLUME_ATTACHMENT_SOURCE: Message = Message::new(
    "VolumeAttachmentSource",
    &[
        ptr(1, "persistentVolumeName", Ty::Str),
        ptr(2, "inlineVolumeSpec", Ty::Msg(&PERSISTENT_VOLUME_SPEC)),
    ],
);

/// `VolumeAttachmentSpec`.
pub(super) static VOLUME_ATTACHMENT_SPEC: Message = Message::new(
    "VolumeAttachmentSpec",
    &[
        val(1, "attacher", Ty::Str),
        val(2, "source", Ty::Msg(&VOLUME_ATTACHMENT_SOURCE)),
        val(3, "nodeName", Ty::Str),
    ],
);

/// `VolumeError`.
pub(super) static VOLUME_ERROR: Message = Message::new(
    "VolumeError",
    &[
        val(1, "time", Ty::Time),
        val(2, "message", Ty::Str),
        ptr(3, "errorCode", Ty::Int),
    ],
);

/// `VolumeAttachmentStatus`.
pub(super) static VOLUME_ATTACHMENT_STATUS: Message = Message::new(
    "VolumeAttachmentStatus",
    &[
        val(1, "attached", Ty::Bool),
        map(2, "attachmentMetadata", Ty::Str),
        ptr(3, "attachError", Ty::Msg(&VOLUME_ERROR)),
        ptr(4, "detachError", Ty::Msg(&VOLUME_ERROR)),
    ],
);

/// `VolumeAttachment`.
pub(super) static VOLUME_ATTACHMENT: Message = Message::new(
    "VolumeAttachment",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&VOLUME_ATTACHMENT_SPEC)),
        val(3, "status", Ty::Msg(&VOLUME_ATTACHMENT_STATUS)),
    ],
);

/// `VolumeAttributesClass`.
pub(super) static VOLUME_ATTRIBUTES_CLASS: Message = Message::new(
    "VolumeAttributesClass",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "driverName", Ty::Str),
        map(3, "parameters", Ty::Str),
    ],
);
