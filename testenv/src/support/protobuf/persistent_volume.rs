//! `v1` PersistentVolume and PersistentVolumeClaim, with their status.
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, inline, list, map, ptr, val};

/// `PersistentVolumeClaim`.
pub(super) static PERSISTENT_VOLUME_CLAIM: Message = Message::new(
    "PersistentVolumeClaim",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(
            2,
            "spec",
            Ty::Msg(&super::pod_volumes::PERSISTENT_VOLUME_CLAIM_SPEC),
        ),
        val(3, "status", Ty::Msg(&PERSISTENT_VOLUME_CLAIM_STATUS)),
    ],
);

/// `PersistentVolumeClaimStatus`.
pub(super) static PERSISTENT_VOLUME_CLAIM_STATUS: Message = Message::new(
    "PersistentVolumeClaimStatus",
    &[
        val(1, "phase", Ty::Str),
        list(2, "accessModes", Ty::Str),
        map(3, "capacity", Ty::Quantity),
        list(4, "conditions", Ty::Msg(&PERSISTENT_VOLUME_CLAIM_CONDITION)),
        map(5, "allocatedResources", Ty::Quantity),
        map(7, "allocatedResourceStatuses", Ty::Str),
        ptr(8, "currentVolumeAttributesClassName", Ty::Str),
        ptr(9, "modifyVolumeStatus", Ty::Msg(&MODIFY_VOLUME_STATUS)),
    ],
);

/// `PersistentVolumeClaimCondition`.
pub(super) static PERSISTENT_VOLUME_CLAIM_CONDITION: Message = Message::new(
    "PersistentVolumeClaimCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "lastProbeTime", Ty::Time),
        val(4, "lastTransitionTime", Ty::Time),
        val(5, "reason", Ty::Str),
        val(6, "message", Ty::Str),
    ],
);

/// `ModifyVolumeStatus`.
pub(super) static MODIFY_VOLUME_STATUS: Message = Message::new(
    "ModifyVolumeStatus",
    &[
        val(1, "targetVolumeAttributesClassName", Ty::Str),
        val(2, "status", Ty::Str),
    ],
);

/// `PersistentVolume`.
pub(super) static PERSISTENT_VOLUME: Message = Message::new(
    "PersistentVolume",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&PERSISTENT_VOLUME_SPEC)),
        val(3, "status", Ty::Msg(&PERSISTENT_VOLUME_STATUS)),
    ],
);

/// `PersistentVolumeSpec`.
pub(super) static PERSISTENT_VOLUME_SPEC: Message = Message::new(
    "PersistentVolumeSpec",
    &[
        map(1, "capacity", Ty::Quantity),
        inline(2, &PERSISTENT_VOLUME_SOURCE),
        list(3, "accessModes", Ty::Str),
        ptr(4, "claimRef", Ty::Msg(&super::core::OBJECT_REFERENCE)),
        val(5, "persistentVolumeReclaimPolicy", Ty::Str),
        val(6, "storageClassName", Ty::Str),
        list(7, "mountOptions", Ty::Str),
        ptr(8, "volumeMode", Ty::Str),
        ptr(9, "nodeAffinity", Ty::Msg(&VOLUME_NODE_AFFINITY)),
        ptr(10, "volumeAttributesClassName", Ty::Str),
    ],
);

/// `PersistentVolumeSource`.
pub(super) static PERSISTENT_VOLUME_SOURCE: Message = Message::new(
    "PersistentVolumeSource",
    &[
        ptr(
            1,
            "gcePersistentDisk",
            Ty::Msg(&super::pod_volumes_legacy::GCE_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        ptr(
            2,
            "awsElasticBlockStore",
            Ty::Msg(&super::pod_volumes_legacy::AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE),
        ),
        ptr(
            3,
            "hostPath",
            Ty::Msg(&super::pod_volumes::HOST_PATH_VOLUME_SOURCE),
        ),
        ptr(4, "glusterfs", Ty::Msg(&GLUSTERFS_PERSISTENT_VOLUME_SOURCE)),
        ptr(
            5,
            "nfs",
            Ty::Msg(&super::pod_volumes_legacy::NFS_VOLUME_SOURCE),
        ),
        ptr(6, "rbd", Ty::Msg(&RBD_PERSISTENT_VOLUME_SOURCE)),
        ptr(7, "iscsi", Ty::Msg(&ISCSI_PERSISTENT_VOLUME_SOURCE)),
        ptr(8, "cinder", Ty::Msg(&CINDER_PERSISTENT_VOLUME_SOURCE)),
        ptr(9, "cephfs", Ty::Msg(&CEPH_FS_PERSISTENT_VOLUME_SOURCE)),
        ptr(
            10,
            "fc",
            Ty::Msg(&super::pod_volumes_legacy::FC_VOLUME_SOURCE),
        ),
        ptr(
            11,
            "flocker",
            Ty::Msg(&super::pod_volumes_legacy::FLOCKER_VOLUME_SOURCE),
        ),
        ptr(12, "flexVolume", Ty::Msg(&FLEX_PERSISTENT_VOLUME_SOURCE)),
        ptr(
            13,
            "azureFile",
            Ty::Msg(&AZURE_FILE_PERSISTENT_VOLUME_SOURCE),
        ),
        ptr(
            14,
            "vsphereVolume",
            Ty::Msg(&super::pod_volumes_legacy::VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE),
        ),
        ptr(
            15,
            "quobyte",
            Ty::Msg(&super::pod_volumes_legacy::QUOBYTE_VOLUME_SOURCE),
        ),
        ptr(
            16,
            "azureDisk",
            Ty::Msg(&super::pod_volumes_legacy::AZURE_DISK_VOLUME_SOURCE),
        ),
        ptr(
            17,
            "photonPersistentDisk",
            Ty::Msg(&super::pod_volumes_legacy::PHOTON_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        ptr(
            18,
            "portworxVolume",
            Ty::Msg(&super::pod_volumes_legacy::PORTWORX_VOLUME_SOURCE),
        ),
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

/// `SecretReference`.
pub(super) static SECRET_REFERENCE: Message = Message::new(
    "SecretReference",
    &[val(1, "name", Ty::Str), val(2, "namespace", Ty::Str)],
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
        ptr(5, "secretRef", Ty::Msg(&super::core::OBJECT_REFERENCE)),
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

/// `VolumeNodeAffinity`.
pub(super) static VOLUME_NODE_AFFINITY: Message = Message::new(
    "VolumeNodeAffinity",
    &[ptr(
        1,
        "required",
        Ty::Msg(&super::pod_affinity::NODE_SELECTOR),
    )],
);

/// `PersistentVolumeStatus`.
pub(super) static PERSISTENT_VOLUME_STATUS: Message = Message::new(
    "PersistentVolumeStatus",
    &[
        val(1, "phase", Ty::Str),
        val(2, "message", Ty::Str),
        val(3, "reason", Ty::Str),
        ptr(4, "lastPhaseTransitionTime", Ty::Time),
    ],
);
