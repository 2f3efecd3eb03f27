//! The internal `core.Volume` and the types of its sources, as [`super`] writes them. The
//! sources a PersistentVolume shares with a pod (the same Go types) are read by
//! [`super::super::pv_go`] too.

use super::super::go_struct::Field;
use super::super::go_struct::Kind::{
    Bool, Embed, Int, Json, Omit, Ptr, Quantity, Slice, Str, Struct,
};

pub(super) const NAME_ONLY: &[Field] = &[("Name", "name", Str)];
const KEY_TO_PATH: &[Field] = &[
    ("Key", "key", Str),
    ("Path", "path", Str),
    ("Mode", "mode", Json),
];
pub(super) const OBJECT_FIELD: &[Field] = &[
    ("APIVersion", "apiVersion", Str),
    ("FieldPath", "fieldPath", Str),
];
pub(super) const RESOURCE_FIELD: &[Field] = &[
    ("ContainerName", "containerName", Str),
    ("Resource", "resource", Str),
    ("Divisor", "divisor", Quantity),
];
const DOWNWARD_FILE: &[Field] = &[
    ("Path", "path", Str),
    ("FieldRef", "fieldRef", Ptr(OBJECT_FIELD)),
    ("ResourceFieldRef", "resourceFieldRef", Ptr(RESOURCE_FIELD)),
    ("Mode", "mode", Json),
];
pub(super) const KEY_SELECTOR: &[Field] = &[
    ("Name", "name", Str),
    ("Key", "key", Str),
    ("Optional", "optional", Json),
];
pub(super) const OPTIONAL_REF: &[Field] = &[("Name", "name", Str), ("Optional", "optional", Json)];
const OBJECT_PROJECTION: &[Field] = &[
    ("Name", "name", Str),
    ("Items", "items", Slice(KEY_TO_PATH)),
    ("Optional", "optional", Json),
];
const PROJECTION: &[Field] = &[
    ("Secret", "secret", Ptr(OBJECT_PROJECTION)),
    (
        "DownwardAPI",
        "downwardAPI",
        Ptr(&[("Items", "items", Slice(DOWNWARD_FILE))]),
    ),
    ("ConfigMap", "configMap", Ptr(OBJECT_PROJECTION)),
    (
        "ServiceAccountToken",
        "serviceAccountToken",
        Ptr(&[
            ("Audience", "audience", Str),
            ("ExpirationSeconds", "expirationSeconds", Int),
            ("Path", "path", Str),
        ]),
    ),
    ("ClusterTrustBundle", "clusterTrustBundle", Json),
    ("PodCertificate", "podCertificate", Json),
];
pub(in super::super) const GCE_PD: &[Field] = &[
    ("PDName", "pdName", Str),
    ("FSType", "fsType", Str),
    ("Partition", "partition", Int),
    ("ReadOnly", "readOnly", Bool),
];
pub(in super::super) const AWS_EBS: &[Field] = &[
    ("VolumeID", "volumeID", Str),
    ("FSType", "fsType", Str),
    ("Partition", "partition", Int),
    ("ReadOnly", "readOnly", Bool),
];
const GIT_REPO: &[Field] = &[
    ("Repository", "repository", Str),
    ("Revision", "revision", Str),
    ("Directory", "directory", Str),
];
const ISCSI: &[Field] = &[
    ("TargetPortal", "targetPortal", Str),
    ("IQN", "iqn", Str),
    ("Lun", "lun", Int),
    ("ISCSIInterface", "iscsiInterface", Str),
    ("FSType", "fsType", Str),
    ("ReadOnly", "readOnly", Bool),
    ("Portals", "portals", Json),
    ("DiscoveryCHAPAuth", "chapAuthDiscovery", Bool),
    ("SessionCHAPAuth", "chapAuthSession", Bool),
    ("SecretRef", "secretRef", Ptr(NAME_ONLY)),
    ("InitiatorName", "initiatorName", Json),
];
const GLUSTERFS: &[Field] = &[
    ("EndpointsName", "endpoints", Str),
    ("Path", "path", Str),
    ("ReadOnly", "readOnly", Bool),
];
const RBD: &[Field] = &[
    ("CephMonitors", "monitors", Json),
    ("RBDImage", "image", Str),
    ("FSType", "fsType", Str),
    ("RBDPool", "pool", Str),
    ("RadosUser", "user", Str),
    ("Keyring", "keyring", Str),
    ("SecretRef", "secretRef", Ptr(NAME_ONLY)),
    ("ReadOnly", "readOnly", Bool),
];
pub(in super::super) const QUOBYTE: &[Field] = &[
    ("Registry", "registry", Str),
    ("Volume", "volume", Str),
    ("ReadOnly", "readOnly", Bool),
    ("User", "user", Str),
    ("Group", "group", Str),
    ("Tenant", "tenant", Str),
];
const FLEX: &[Field] = &[
    ("Driver", "driver", Str),
    ("FSType", "fsType", Str),
    ("SecretRef", "secretRef", Ptr(NAME_ONLY)),
    ("ReadOnly", "readOnly", Bool),
    ("Options", "options", Json),
];
const CINDER: &[Field] = &[
    ("VolumeID", "volumeID", Str),
    ("FSType", "fsType", Str),
    ("ReadOnly", "readOnly", Bool),
    ("SecretRef", "secretRef", Ptr(NAME_ONLY)),
];
const CEPHFS: &[Field] = &[
    ("Monitors", "monitors", Json),
    ("Path", "path", Str),
    ("User", "user", Str),
    ("SecretFile", "secretFile", Str),
    ("SecretRef", "secretRef", Ptr(NAME_ONLY)),
    ("ReadOnly", "readOnly", Bool),
];
pub(in super::super) const FLOCKER: &[Field] = &[
    ("DatasetName", "datasetName", Str),
    ("DatasetUUID", "datasetUUID", Str),
];
pub(in super::super) const FC: &[Field] = &[
    ("TargetWWNs", "targetWWNs", Json),
    ("Lun", "lun", Json),
    ("FSType", "fsType", Str),
    ("ReadOnly", "readOnly", Bool),
    ("WWIDs", "wwids", Json),
];
const AZURE_FILE: &[Field] = &[
    ("SecretName", "secretName", Str),
    ("ShareName", "shareName", Str),
    ("ReadOnly", "readOnly", Bool),
];
pub(in super::super) const VSPHERE: &[Field] = &[
    ("VolumePath", "volumePath", Str),
    ("FSType", "fsType", Str),
    ("StoragePolicyName", "storagePolicyName", Str),
    ("StoragePolicyID", "storagePolicyID", Str),
];
pub(in super::super) const AZURE_DISK: &[Field] = &[
    ("DiskName", "diskName", Str),
    ("DataDiskURI", "diskURI", Str),
    ("CachingMode", "cachingMode", Json),
    ("FSType", "fsType", Json),
    ("ReadOnly", "readOnly", Json),
    ("Kind", "kind", Json),
];
pub(in super::super) const PHOTON: &[Field] = &[("PdID", "pdID", Str), ("FSType", "fsType", Str)];
pub(in super::super) const PORTWORX: &[Field] = &[
    ("VolumeID", "volumeID", Str),
    ("FSType", "fsType", Str),
    ("ReadOnly", "readOnly", Bool),
];
const SCALE_IO: &[Field] = &[
    ("Gateway", "gateway", Str),
    ("System", "system", Str),
    ("SecretRef", "secretRef", Ptr(NAME_ONLY)),
    ("SSLEnabled", "sslEnabled", Bool),
    ("ProtectionDomain", "protectionDomain", Str),
    ("StoragePool", "storagePool", Str),
    ("StorageMode", "storageMode", Str),
    ("VolumeName", "volumeName", Str),
    ("FSType", "fsType", Str),
    ("ReadOnly", "readOnly", Bool),
];
const STORAGE_OS: &[Field] = &[
    ("VolumeName", "volumeName", Str),
    ("VolumeNamespace", "volumeNamespace", Str),
    ("FSType", "fsType", Str),
    ("ReadOnly", "readOnly", Bool),
    ("SecretRef", "secretRef", Ptr(NAME_ONLY)),
];
/// `core.PersistentVolumeClaimSpec`.
const CLAIM_SPEC: &[Field] = &[
    ("AccessModes", "accessModes", Json),
    ("Selector", "selector", Json),
    (
        "Resources",
        "resources",
        Struct(&[("Limits", "limits", Json), ("Requests", "requests", Json)]),
    ),
    ("VolumeName", "volumeName", Str),
    ("StorageClassName", "storageClassName", Json),
    ("VolumeMode", "volumeMode", Json),
    (
        "DataSource",
        "dataSource",
        Ptr(&[
            ("APIGroup", "apiGroup", Json),
            ("Kind", "kind", Str),
            ("Name", "name", Str),
        ]),
    ),
    (
        "DataSourceRef",
        "dataSourceRef",
        Ptr(&[
            ("APIGroup", "apiGroup", Json),
            ("Kind", "kind", Str),
            ("Name", "name", Str),
            ("Namespace", "namespace", Json),
        ]),
    ),
    (
        "VolumeAttributesClassName",
        "volumeAttributesClassName",
        Json,
    ),
];
/// `metav1.ObjectMeta`, embedded in an internal struct: its JSON tags kept, each field
/// `omitempty` (`creationTimestamp` `omitzero`).
const OBJECT_META: &[Field] = &[
    ("name", "name", Omit),
    ("generateName", "generateName", Omit),
    ("namespace", "namespace", Omit),
    ("selfLink", "selfLink", Omit),
    ("uid", "uid", Omit),
    ("resourceVersion", "resourceVersion", Omit),
    ("generation", "generation", Omit),
    ("creationTimestamp", "creationTimestamp", Omit),
    ("deletionTimestamp", "deletionTimestamp", Omit),
    (
        "deletionGracePeriodSeconds",
        "deletionGracePeriodSeconds",
        Omit,
    ),
    ("labels", "labels", Omit),
    ("annotations", "annotations", Omit),
    ("ownerReferences", "ownerReferences", Omit),
    ("finalizers", "finalizers", Omit),
    ("managedFields", "managedFields", Omit),
];
/// `core.PersistentVolumeClaimTemplate`: the embedded object meta, then the internal spec.
const CLAIM_TEMPLATE: &[Field] = &[
    ("ObjectMeta", "metadata", Embed(OBJECT_META)),
    ("Spec", "spec", Struct(CLAIM_SPEC)),
];
/// `core.Volume`: its name, then the sources of `core.VolumeSource`.
pub(super) const VOLUME: &[Field] = &[
    ("Name", "name", Str),
    (
        "HostPath",
        "hostPath",
        Ptr(&[("Path", "path", Str), ("Type", "type", Json)]),
    ),
    (
        "EmptyDir",
        "emptyDir",
        Ptr(&[("Medium", "medium", Str), ("SizeLimit", "sizeLimit", Json)]),
    ),
    ("GCEPersistentDisk", "gcePersistentDisk", Ptr(GCE_PD)),
    ("AWSElasticBlockStore", "awsElasticBlockStore", Ptr(AWS_EBS)),
    ("GitRepo", "gitRepo", Ptr(GIT_REPO)),
    (
        "Secret",
        "secret",
        Ptr(&[
            ("SecretName", "secretName", Str),
            ("Items", "items", Slice(KEY_TO_PATH)),
            ("DefaultMode", "defaultMode", Json),
            ("Optional", "optional", Json),
        ]),
    ),
    (
        "NFS",
        "nfs",
        Ptr(&[
            ("Server", "server", Str),
            ("Path", "path", Str),
            ("ReadOnly", "readOnly", Bool),
        ]),
    ),
    ("ISCSI", "iscsi", Ptr(ISCSI)),
    ("Glusterfs", "glusterfs", Ptr(GLUSTERFS)),
    (
        "PersistentVolumeClaim",
        "persistentVolumeClaim",
        Ptr(&[
            ("ClaimName", "claimName", Str),
            ("ReadOnly", "readOnly", Bool),
        ]),
    ),
    ("RBD", "rbd", Ptr(RBD)),
    ("Quobyte", "quobyte", Ptr(QUOBYTE)),
    ("FlexVolume", "flexVolume", Ptr(FLEX)),
    ("Cinder", "cinder", Ptr(CINDER)),
    ("CephFS", "cephfs", Ptr(CEPHFS)),
    ("Flocker", "flocker", Ptr(FLOCKER)),
    (
        "DownwardAPI",
        "downwardAPI",
        Ptr(&[
            ("Items", "items", Slice(DOWNWARD_FILE)),
            ("DefaultMode", "defaultMode", Json),
        ]),
    ),
    ("FC", "fc", Ptr(FC)),
    ("AzureFile", "azureFile", Ptr(AZURE_FILE)),
    (
        "ConfigMap",
        "configMap",
        Ptr(&[
            ("Name", "name", Str),
            ("Items", "items", Slice(KEY_TO_PATH)),
            ("DefaultMode", "defaultMode", Json),
            ("Optional", "optional", Json),
        ]),
    ),
    ("VsphereVolume", "vsphereVolume", Ptr(VSPHERE)),
    ("AzureDisk", "azureDisk", Ptr(AZURE_DISK)),
    ("PhotonPersistentDisk", "photonPersistentDisk", Ptr(PHOTON)),
    (
        "Projected",
        "projected",
        Ptr(&[
            ("Sources", "sources", Slice(PROJECTION)),
            ("DefaultMode", "defaultMode", Json),
        ]),
    ),
    ("PortworxVolume", "portworxVolume", Ptr(PORTWORX)),
    ("ScaleIO", "scaleIO", Ptr(SCALE_IO)),
    ("StorageOS", "storageos", Ptr(STORAGE_OS)),
    (
        "CSI",
        "csi",
        Ptr(&[
            ("Driver", "driver", Str),
            ("ReadOnly", "readOnly", Json),
            ("FSType", "fsType", Json),
            ("VolumeAttributes", "volumeAttributes", Json),
            (
                "NodePublishSecretRef",
                "nodePublishSecretRef",
                Ptr(NAME_ONLY),
            ),
        ]),
    ),
    (
        "Ephemeral",
        "ephemeral",
        Ptr(&[(
            "VolumeClaimTemplate",
            "volumeClaimTemplate",
            Ptr(CLAIM_TEMPLATE),
        )]),
    ),
    (
        "Image",
        "image",
        Ptr(&[
            ("Reference", "reference", Str),
            ("PullPolicy", "pullPolicy", Str),
        ]),
    ),
];
