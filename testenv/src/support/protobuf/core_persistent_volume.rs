//! Core `v1` PersistentVolumeSpec and its volume sources (the ones a pod's volumes do not share),
//! as a VolumeAttachment's `inlineVolumeSpec` carries them.

use super::core::OBJECT_REFERENCE;
use super::pod_affinity::NODE_SELECTOR;
use super::pod_volumes::HOST_PATH_VOLUME_SOURCE;
use super::pod_volumes_legacy::{
    AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE, AZURE_DISK_VOLUME_SOURCE, FC_VOLUME_SOURCE,
    FLOCKER_VOLUME_SOURCE, GCE_PERSISTENT_DISK_VOLUME_SOURCE, NFS_VOLUME_SOURCE,
    PHOTON_PERSISTENT_DISK_VOLUME_SOURCE, PORTWORX_VOLUME_SOURCE, QUOBYTE_VOLUME_SOURCE,
    VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE,
};
use super::schema::{Message, Ty, inline, list, map, ptr, val};

/// `TopologySelectorLabelRequirement`.
pub(super) static TOPOLOGY_SELECTOR_LABEL_REQUIREMENT: Message = Message::new(
    "TopologySelectorLabelRequirement",
    &[val(1, "key", Ty::Str), list(2, "values", Ty::Str)],
);

/// `TopologySelectorTerm`.
pub(super) static TOPOLOGY_SELECTOR_TERM: Message = Message::new(
    "TopologySelectorTerm",
    &[list(
        1,
        "matchLabelExpressions",
        Ty::Msg(&TOPOLOGY_SELECTOR_LABEL_REQUIREMENT),
    )],
);

/// `GlusterfsPersistentVolumeSource`.
pub(super) static GLUSTERFS_PERSISTENT_VOLUME_SOURCE: Message = Message::new(
    "GlusterfsPersistentVolumeSource",
    &[
        val(1, "endpoints", Ty::Str),
        val(2, "path", Ty::Str),
        val(3, "readOnly", Ty::Bool),
        ptr(4, "endpointsNamespace", Ty::Str),
    ],
);

/// `SecretReference`.
pub(super) static SECRET_REFERENCE: Message = Message::new(
    "SecretReference",
    &[val(1, "name", Ty::Str), val(2, "namespace", Ty::Str)],
);

/// `RBDPersistentVolumeSource`.
pub(super) static RBD_PERSISTENT_VOLUME_SOURCE: Message = Message::new(
    "RBDPersistentVolumeSource",
    &[
        list(1, "monitors", Ty::Str),
        val(2, "image", Ty::Str),
        val(3, "fsType", Ty::Str),
        val(4, "pool", Ty::Str),
        val(5, "user", Ty::Str),
        val(6, "keyring", Ty::Str),
        ptr(7, "secretRef", Ty::Msg(&SECRET_REFERENCE)),
        val(8, "readOnly", Ty::Bool),
    ],
);

/// `ISCSIPersistentVolumeSource`.
pub(super) static ISCSI_PERSISTENT_VOLUME_SOURCE: Message = Message::new(
    "ISCSIPersistentVolumeSource",
    &[
        val(1, "targetPortal", Ty::Str),
        val(2, "iqn", Ty::Str),
        val(3, "lun", Ty::Int),
        val(4, "iscsiInterface", Ty::Str),
        val(5, "fsType", Ty::Str),
        val(6, "readOnly", Ty::Bool),
        list(7, "portals", Ty::Str),
        val(8, "chapAuthDiscovery", Ty::Bool),
        val(11, "chapAuthSession", Ty::Bool),
        ptr(10, "secretRef", Ty::Msg(&SECRET_REFERENCE)),
        ptr(12, "initiatorName", Ty::Str),
    ],
);

/// `CinderPersistentVolumeSource`.
pub(super) static CINDER_PERSISTENT_VOLUME_SOURCE: Message = Message::new(
    "CinderPersistentVolumeSource",
    &[
        val(1, "volumeID", Ty::Str),
        val(2, "fsType", Ty::Str),
        val(3, "readOnly", Ty::Bool),
        ptr(4, "secretRef", Ty::Msg(&SECRET_REFERENCE)),
    ],
);

/// `CephFSPersistentVolumeSource`.
pub(super) static CEPH_FS_PERSISTENT_VOLUME_SOURCE: Message = Message::new(
    "CephFSPersistentVolumeSource",
    &[
        list(1, "monitors", Ty::Str),
        val(2, "path", Ty::Str),
        val(3, "user", Ty::Str),
        val(4, "secretFile", Ty::Str),
        ptr(5, "secretRef", Ty::Msg(&SECRET_REFERENCE)),
        val(6, "readOnly", Ty::Bool),
    ],
);

/// `FlexPersistentVolumeSource`.
pub(super) static FLEX_PERSISTENT_VOLUME_SOURCE: Message = Message::new(
    "FlexPersistentVolumeSource",
    &[
        val(1, "driver", Ty::Str),
        val(2, "fsType", Ty::Str),
        ptr(3, "secretRef", Ty::Msg(&SECRET_REFERENCE)),
        val(4, "readOnly", Ty::Bool),
        map(5, "options", Ty::Str),
    ],
);

/// `AzureFilePersistentVolumeSource`.
pub(super) static AZURE_FILE_PERSISTENT_VOLUME_SOURCE: Message = Message::new(
    "AzureFilePersistentVolumeSource",
    &[
        val(1, "secretName", Ty::Str),
        val(2, "shareName", Ty::Str),
        val(3, "readOnly", Ty::Bool),
        ptr(4, "secretNamespace", Ty::Str),
    ],
);

/// `ScaleIOPersistentVolumeSource`.
pub(super) static SCALE_IO_PERSISTENT_VOLUME_SOURCE: Message = Message::new(
    "ScaleIOPersistentVolumeSource",
    &[
        val(1, "gateway", Ty::Str),
        val(2, "system", Ty::Str),
        ptr(3, "secretRef", Ty::Msg(&SECRET_REFERENCE)),
        val(4, "sslEnabled", Ty::Bool),
        val(5, "protectionDomain", Ty::Str),
        val(6, "storagePool", Ty::Str),
        val(7, "storageMode", Ty::Str),
        val(8, "volumeName", Ty::Str),
        val(9, "fsType", Ty::Str),
        val(10, "readOnly", Ty::Bool),
    ],
);

/// `LocalVolumeSource`.
pub(super) static LOCAL_VOLUME_SOURCE: Message = Message::new(
    "LocalVolumeSource",
    &[val(1, "path", Ty::Str), ptr(2, "fsType", Ty::Str)],
);

/// `StorageOSPersistentVolumeSource`.
pub(super) static STORAGE_OS_PERSISTENT_VOLUME_SOURCE: Message = Message::new(
    "StorageOSPersistentVolumeSource",
    &[
        val(1, "volumeName", Ty::Str),
        val(2, "volumeNamespace", Ty::Str),
        val(3, "fsType", Ty::Str),
        val(4, "readOnly", Ty::Bool),
        ptr(5, "secretRef", Ty::Msg(&OBJECT_REFERENCE)),
    ],
);

/// `CSIPersistentVolumeSource`.
pub(super) static CSI_PERSISTENT_VOLUME_SOURCE: Message = Message::new(
    "CSIPersistentVolumeSource",
    &[
        val(1, "driver", Ty::Str),
        val(2, "volumeHandle", Ty::Str),
        val(3, "readOnly", Ty::Bool),
        val(4, "fsType", Ty::Str),
        map(5, "volumeAttributes", Ty::Str),
        ptr(6, "controllerPublishSecretRef", Ty::Msg(&SECRET_REFERENCE)),
        ptr(7, "nodeStageSecretRef", Ty::Msg(&SECRET_REFERENCE)),
        ptr(8, "nodePublishSecretRef", Ty::Msg(&SECRET_REFERENCE)),
        ptr(9, "controllerExpandSecretRef", Ty::Msg(&SECRET_REFERENCE)),
        ptr(10, "nodeExpandSecretRef", Ty::Msg(&SECRET_REFERENCE)),
    ],
);

/// `PersistentVolumeSource`.
pub(super) static PERSISTENT_VOLUME_SOURCE: Message = Message::new(
    "PersistentVolumeSource",
    &[
        ptr(
            1,
            "gcePersistentDisk",
            Ty::Msg(&GCE_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        ptr(
            2,
            "awsElasticBlockStore",
            Ty::Msg(&AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE),
        ),
        ptr(3, "hostPath", Ty::Msg(&HOST_PATH_VOLUME_SOURCE)),
        ptr(4, "glusterfs", Ty::Msg(&GLUSTERFS_PERSISTENT_VOLUME_SOURCE)),
        ptr(5, "nfs", Ty::Msg(&NFS_VOLUME_SOURCE)),
        ptr(6, "rbd", Ty::Msg(&RBD_PERSISTENT_VOLUME_SOURCE)),
        ptr(7, "iscsi", Ty::Msg(&ISCSI_PERSISTENT_VOLUME_SOURCE)),
        ptr(8, "cinder", Ty::Msg(&CINDER_PERSISTENT_VOLUME_SOURCE)),
        ptr(9, "cephfs", Ty::Msg(&CEPH_FS_PERSISTENT_VOLUME_SOURCE)),
        ptr(10, "fc", Ty::Msg(&FC_VOLUME_SOURCE)),
        ptr(11, "flocker", Ty::Msg(&FLOCKER_VOLUME_SOURCE)),
        ptr(12, "flexVolume", Ty::Msg(&FLEX_PERSISTENT_VOLUME_SOURCE)),
        ptr(
            13,
            "azureFile",
            Ty::Msg(&AZURE_FILE_PERSISTENT_VOLUME_SOURCE),
        ),
        ptr(
            14,
            "vsphereVolume",
            Ty::Msg(&VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE),
        ),
        ptr(15, "quobyte", Ty::Msg(&QUOBYTE_VOLUME_SOURCE)),
        ptr(16, "azureDisk", Ty::Msg(&AZURE_DISK_VOLUME_SOURCE)),
        ptr(
            17,
            "photonPersistentDisk",
            Ty::Msg(&PHOTON_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        ptr(18, "portworxVolume", Ty::Msg(&PORTWORX_VOLUME_SOURCE)),
        ptr(19, "scaleIO", Ty::Msg(&SCALE_IO_PERSISTENT_VOLUME_SOURCE)),
        ptr(20, "local", Ty::Msg(&LOCAL_VOLUME_SOURCE)),
        ptr(
            21,
            "storageos",
            Ty::Msg(&STORAGE_OS_PERSISTENT_VOLUME_SOURCE),
        ),
        ptr(22, "csi", Ty::Msg(&CSI_PERSISTENT_VOLUME_SOURCE)),
    ],
);

/// `VolumeNodeAffinity`.
pub(super) static VOLUME_NODE_AFFINITY: Message = Message::new(
    "VolumeNodeAffinity",
    &[ptr(1, "required", Ty::Msg(&NODE_SELECTOR))],
);

/// `PersistentVolumeSpec`.
pub(super) static PERSISTENT_VOLUME_SPEC: Message = Message::new(
    "PersistentVolumeSpec",
    &[
        map(1, "capacity", Ty::Quantity),
        inline(2, &PERSISTENT_VOLUME_SOURCE),
        list(3, "accessModes", Ty::Str),
        ptr(4, "claimRef", Ty::Msg(&OBJECT_REFERENCE)),
        val(5, "persistentVolumeReclaimPolicy", Ty::Str),
        val(6, "storageClassName", Ty::Str),
        list(7, "mountOptions", Ty::Str),
        ptr(8, "volumeMode", Ty::Str),
        ptr(9, "nodeAffinity", Ty::Msg(&VOLUME_NODE_AFFINITY)),
        ptr(10, "volumeAttributesClassName", Ty::Str),
    ],
);
