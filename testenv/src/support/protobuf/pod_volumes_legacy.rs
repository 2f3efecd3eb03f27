//! The core `v1` in-tree and deprecated volume sources (cloud disks, network file systems,
//! `gitRepo`, ...): still accepted in a pod spec, so described like the others.

use super::pod_volumes::LOCAL_OBJECT_REFERENCE;
use super::schema::{Message, Ty, list, map, ptr, val};

/// `GCEPersistentDiskVolumeSource`.
pub(super) static GCE_PERSISTENT_DISK_VOLUME_SOURCE: Message = Message::new(
    "GCEPersistentDiskVolumeSource",
    &[
        val(1, "pdName", Ty::Str),
        val(2, "fsType", Ty::Str),
        val(3, "partition", Ty::Int),
        val(4, "readOnly", Ty::Bool),
    ],
);

/// `AWSElasticBlockStoreVolumeSource`.
pub(super) static AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE: Message = Message::new(
    "AWSElasticBlockStoreVolumeSource",
    &[
        val(1, "volumeID", Ty::Str),
        val(2, "fsType", Ty::Str),
        val(3, "partition", Ty::Int),
        val(4, "readOnly", Ty::Bool),
    ],
);

/// `GitRepoVolumeSource`.
pub(super) static GIT_REPO_VOLUME_SOURCE: Message = Message::new(
    "GitRepoVolumeSource",
    &[
        val(1, "repository", Ty::Str),
        val(2, "revision", Ty::Str),
        val(3, "directory", Ty::Str),
    ],
);

/// `NFSVolumeSource`.
pub(super) static NFS_VOLUME_SOURCE: Message = Message::new(
    "NFSVolumeSource",
    &[
        val(1, "server", Ty::Str),
        val(2, "path", Ty::Str),
        val(3, "readOnly", Ty::Bool),
    ],
);

/// `ISCSIVolumeSource`.
pub(super) static ISCSI_VOLUME_SOURCE: Message = Message::new(
    "ISCSIVolumeSource",
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
        ptr(10, "secretRef", Ty::Msg(&LOCAL_OBJECT_REFERENCE)),
        ptr(12, "initiatorName", Ty::Str),
    ],
);

/// `GlusterfsVolumeSource`.
pub(super) static GLUSTERFS_VOLUME_SOURCE: Message = Message::new(
    "GlusterfsVolumeSource",
    &[
        val(1, "endpoints", Ty::Str),
        val(2, "path", Ty::Str),
        val(3, "readOnly", Ty::Bool),
    ],
);

/// `RBDVolumeSource`.
pub(super) static RBD_VOLUME_SOURCE: Message = Message::new(
    "RBDVolumeSource",
    &[
        list(1, "monitors", Ty::Str),
        val(2, "image", Ty::Str),
        val(3, "fsType", Ty::Str),
        val(4, "pool", Ty::Str),
        val(5, "user", Ty::Str),
        val(6, "keyring", Ty::Str),
        ptr(7, "secretRef", Ty::Msg(&LOCAL_OBJECT_REFERENCE)),
        val(8, "readOnly", Ty::Bool),
    ],
);

/// `FlexVolumeSource`.
pub(super) static FLEX_VOLUME_SOURCE: Message = Message::new(
    "FlexVolumeSource",
    &[
        val(1, "driver", Ty::Str),
        val(2, "fsType", Ty::Str),
        ptr(3, "secretRef", Ty::Msg(&LOCAL_OBJECT_REFERENCE)),
        val(4, "readOnly", Ty::Bool),
        map(5, "options", Ty::Str),
    ],
);

/// `CinderVolumeSource`.
pub(super) static CINDER_VOLUME_SOURCE: Message = Message::new(
    "CinderVolumeSource",
    &[
        val(1, "volumeID", Ty::Str),
        val(2, "fsType", Ty::Str),
        val(3, "readOnly", Ty::Bool),
        ptr(4, "secretRef", Ty::Msg(&LOCAL_OBJECT_REFERENCE)),
    ],
);

/// `CephFSVolumeSource`.
pub(super) static CEPH_FS_VOLUME_SOURCE: Message = Message::new(
    "CephFSVolumeSource",
    &[
        list(1, "monitors", Ty::Str),
        val(2, "path", Ty::Str),
        val(3, "user", Ty::Str),
        val(4, "secretFile", Ty::Str),
        ptr(5, "secretRef", Ty::Msg(&LOCAL_OBJECT_REFERENCE)),
        val(6, "readOnly", Ty::Bool),
    ],
);

/// `FlockerVolumeSource`.
pub(super) static FLOCKER_VOLUME_SOURCE: Message = Message::new(
    "FlockerVolumeSource",
    &[
        val(1, "datasetName", Ty::Str),
        val(2, "datasetUUID", Ty::Str),
    ],
);

/// `FCVolumeSource`.
pub(super) static FC_VOLUME_SOURCE: Message = Message::new(
    "FCVolumeSource",
    &[
        list(1, "targetWWNs", Ty::Str),
        ptr(2, "lun", Ty::Int),
        val(3, "fsType", Ty::Str),
        val(4, "readOnly", Ty::Bool),
        list(5, "wwids", Ty::Str),
    ],
);

/// `AzureFileVolumeSource`.
pub(super) static AZURE_FILE_VOLUME_SOURCE: Message = Message::new(
    "AzureFileVolumeSource",
    &[
        val(1, "secretName", Ty::Str),
        val(2, "shareName", Ty::Str),
        val(3, "readOnly", Ty::Bool),
    ],
);

/// `VsphereVirtualDiskVolumeSource`.
pub(super) static VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE: Message = Message::new(
    "VsphereVirtualDiskVolumeSource",
    &[
        val(1, "volumePath", Ty::Str),
        val(2, "fsType", Ty::Str),
        val(3, "storagePolicyName", Ty::Str),
        val(4, "storagePolicyID", Ty::Str),
    ],
);

/// `QuobyteVolumeSource`.
pub(super) static QUOBYTE_VOLUME_SOURCE: Message = Message::new(
    "QuobyteVolumeSource",
    &[
        val(1, "registry", Ty::Str),
        val(2, "volume", Ty::Str),
        val(3, "readOnly", Ty::Bool),
        val(4, "user", Ty::Str),
        val(5, "group", Ty::Str),
        val(6, "tenant", Ty::Str),
    ],
);

/// `AzureDiskVolumeSource`.
pub(super) static AZURE_DISK_VOLUME_SOURCE: Message = Message::new(
    "AzureDiskVolumeSource",
    &[
        val(1, "diskName", Ty::Str),
        val(2, "diskURI", Ty::Str),
        ptr(3, "cachingMode", Ty::Str),
        ptr(4, "fsType", Ty::Str),
        ptr(5, "readOnly", Ty::Bool),
        ptr(6, "kind", Ty::Str),
    ],
);

/// `PhotonPersistentDiskVolumeSource`.
pub(super) static PHOTON_PERSISTENT_DISK_VOLUME_SOURCE: Message = Message::new(
    "PhotonPersistentDiskVolumeSource",
    &[val(1, "pdID", Ty::Str), val(2, "fsType", Ty::Str)],
);

/// `PortworxVolumeSource`.
pub(super) static PORTWORX_VOLUME_SOURCE: Message = Message::new(
    "PortworxVolumeSource",
    &[
        val(1, "volumeID", Ty::Str),
        val(2, "fsType", Ty::Str),
        val(3, "readOnly", Ty::Bool),
    ],
);

/// `ScaleIOVolumeSource`.
pub(super) static SCALE_IO_VOLUME_SOURCE: Message = Message::new(
    "ScaleIOVolumeSource",
    &[
        val(1, "gateway", Ty::Str),
        val(2, "system", Ty::Str),
        ptr(3, "secretRef", Ty::Msg(&LOCAL_OBJECT_REFERENCE)),
        val(4, "sslEnabled", Ty::Bool),
        val(5, "protectionDomain", Ty::Str),
        val(6, "storagePool", Ty::Str),
        val(7, "storageMode", Ty::Str),
        val(8, "volumeName", Ty::Str),
        val(9, "fsType", Ty::Str),
        val(10, "readOnly", Ty::Bool),
    ],
);

/// `StorageOSVolumeSource`.
pub(super) static STORAGE_OS_VOLUME_SOURCE: Message = Message::new(
    "StorageOSVolumeSource",
    &[
        val(1, "volumeName", Ty::Str),
        val(2, "volumeNamespace", Ty::Str),
        val(3, "fsType", Ty::Str),
        val(4, "readOnly", Ty::Bool),
        ptr(5, "secretRef", Ty::Msg(&LOCAL_OBJECT_REFERENCE)),
    ],
);
