//! The core `v1` `PodSpec` and the parts of it that belong to no larger topic (volumes, pod-level
//! scheduling and DNS settings, resource claims): what a Deployment's, Job's or CronJob's
//! template and a Pod copied by `kubectl debug --copy-to` carry. Containers, security contexts,
//! affinity and volume sources have their own modules; together they describe every field of
//! k8s.io/api v1.34's `PodSpec` tree.

use super::meta::LABEL_SELECTOR;
use super::pod_affinity::AFFINITY;
use super::pod_container::{CONTAINER, EPHEMERAL_CONTAINER, RESOURCE_REQUIREMENTS};
use super::pod_security::POD_SECURITY_CONTEXT;
use super::pod_volumes::{
    CONFIG_MAP_VOLUME_SOURCE, CSI_VOLUME_SOURCE, DOWNWARD_API_VOLUME_SOURCE,
    EMPTY_DIR_VOLUME_SOURCE, EPHEMERAL_VOLUME_SOURCE, HOST_PATH_VOLUME_SOURCE, IMAGE_VOLUME_SOURCE,
    LOCAL_OBJECT_REFERENCE, PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE, PROJECTED_VOLUME_SOURCE,
    SECRET_VOLUME_SOURCE,
};
use super::pod_volumes_legacy::{
    AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE, AZURE_DISK_VOLUME_SOURCE, AZURE_FILE_VOLUME_SOURCE,
    CEPH_FS_VOLUME_SOURCE, CINDER_VOLUME_SOURCE, FC_VOLUME_SOURCE, FLEX_VOLUME_SOURCE,
    FLOCKER_VOLUME_SOURCE, GCE_PERSISTENT_DISK_VOLUME_SOURCE, GIT_REPO_VOLUME_SOURCE,
    GLUSTERFS_VOLUME_SOURCE, ISCSI_VOLUME_SOURCE, NFS_VOLUME_SOURCE,
    PHOTON_PERSISTENT_DISK_VOLUME_SOURCE, PORTWORX_VOLUME_SOURCE, QUOBYTE_VOLUME_SOURCE,
    RBD_VOLUME_SOURCE, SCALE_IO_VOLUME_SOURCE, STORAGE_OS_VOLUME_SOURCE,
    VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE,
};
use super::schema::{Message, Ty, inline, list, map, ptr, val};

/// `VolumeSource`.
pub(super) static VOLUME_SOURCE: Message = Message::new(
    "VolumeSource",
    &[
        ptr(1, "hostPath", Ty::Msg(&HOST_PATH_VOLUME_SOURCE)),
        ptr(2, "emptyDir", Ty::Msg(&EMPTY_DIR_VOLUME_SOURCE)),
        ptr(
            3,
            "gcePersistentDisk",
            Ty::Msg(&GCE_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        ptr(
            4,
            "awsElasticBlockStore",
            Ty::Msg(&AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE),
        ),
        ptr(5, "gitRepo", Ty::Msg(&GIT_REPO_VOLUME_SOURCE)),
        ptr(6, "secret", Ty::Msg(&SECRET_VOLUME_SOURCE)),
        ptr(7, "nfs", Ty::Msg(&NFS_VOLUME_SOURCE)),
        ptr(8, "iscsi", Ty::Msg(&ISCSI_VOLUME_SOURCE)),
        ptr(9, "glusterfs", Ty::Msg(&GLUSTERFS_VOLUME_SOURCE)),
        ptr(
            10,
            "persistentVolumeClaim",
            Ty::Msg(&PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE),
        ),
        ptr(11, "rbd", Ty::Msg(&RBD_VOLUME_SOURCE)),
        ptr(12, "flexVolume", Ty::Msg(&FLEX_VOLUME_SOURCE)),
        ptr(13, "cinder", Ty::Msg(&CINDER_VOLUME_SOURCE)),
        ptr(14, "cephfs", Ty::Msg(&CEPH_FS_VOLUME_SOURCE)),
        ptr(15, "flocker", Ty::Msg(&FLOCKER_VOLUME_SOURCE)),
        ptr(16, "downwardAPI", Ty::Msg(&DOWNWARD_API_VOLUME_SOURCE)),
        ptr(17, "fc", Ty::Msg(&FC_VOLUME_SOURCE)),
        ptr(18, "azureFile", Ty::Msg(&AZURE_FILE_VOLUME_SOURCE)),
        ptr(19, "configMap", Ty::Msg(&CONFIG_MAP_VOLUME_SOURCE)),
        ptr(
            20,
            "vsphereVolume",
            Ty::Msg(&VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE),
        ),
        ptr(21, "quobyte", Ty::Msg(&QUOBYTE_VOLUME_SOURCE)),
        ptr(22, "azureDisk", Ty::Msg(&AZURE_DISK_VOLUME_SOURCE)),
        ptr(
            23,
            "photonPersistentDisk",
            Ty::Msg(&PHOTON_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        ptr(26, "projected", Ty::Msg(&PROJECTED_VOLUME_SOURCE)),
        ptr(24, "portworxVolume", Ty::Msg(&PORTWORX_VOLUME_SOURCE)),
        ptr(25, "scaleIO", Ty::Msg(&SCALE_IO_VOLUME_SOURCE)),
        ptr(27, "storageos", Ty::Msg(&STORAGE_OS_VOLUME_SOURCE)),
        ptr(28, "csi", Ty::Msg(&CSI_VOLUME_SOURCE)),
        ptr(29, "ephemeral", Ty::Msg(&EPHEMERAL_VOLUME_SOURCE)),
        ptr(30, "image", Ty::Msg(&IMAGE_VOLUME_SOURCE)),
    ],
);

/// `Volume`.
pub(super) static VOLUME: Message = Message::new(
    "Volume",
    &[val(1, "name", Ty::Str), inline(2, &VOLUME_SOURCE)],
);

/// `Toleration`.
pub(super) static TOLERATION: Message = Message::new(
    "Toleration",
    &[
        val(1, "key", Ty::Str),
        val(2, "operator", Ty::Str),
        val(3, "value", Ty::Str),
        val(4, "effect", Ty::Str),
        ptr(5, "tolerationSeconds", Ty::Int),
    ],
);

/// `HostAlias`.
pub(super) static HOST_ALIAS: Message = Message::new(
    "HostAlias",
    &[val(1, "ip", Ty::Str), list(2, "hostnames", Ty::Str)],
);

/// `PodDNSConfigOption`.
pub(super) static POD_DNS_CONFIG_OPTION: Message = Message::new(
    "PodDNSConfigOption",
    &[val(1, "name", Ty::Str), ptr(2, "value", Ty::Str)],
);

/// `PodDNSConfig`.
pub(super) static POD_DNS_CONFIG: Message = Message::new(
    "PodDNSConfig",
    &[
        list(1, "nameservers", Ty::Str),
        list(2, "searches", Ty::Str),
        list(3, "options", Ty::Msg(&POD_DNS_CONFIG_OPTION)),
    ],
);

/// `PodReadinessGate`.
pub(super) static POD_READINESS_GATE: Message =
    Message::new("PodReadinessGate", &[val(1, "conditionType", Ty::Str)]);

/// `TopologySpreadConstraint`.
pub(super) static TOPOLOGY_SPREAD_CONSTRAINT: Message = Message::new(
    "TopologySpreadConstraint",
    &[
        val(1, "maxSkew", Ty::Int),
        val(2, "topologyKey", Ty::Str),
        val(3, "whenUnsatisfiable", Ty::Str),
        ptr(4, "labelSelector", Ty::Msg(&LABEL_SELECTOR)),
        ptr(5, "minDomains", Ty::Int),
        ptr(6, "nodeAffinityPolicy", Ty::Str),
        ptr(7, "nodeTaintsPolicy", Ty::Str),
        list(8, "matchLabelKeys", Ty::Str),
    ],
);

/// `PodOS`.
pub(super) static POD_OS: Message = Message::new("PodOS", &[val(1, "name", Ty::Str)]);

/// `PodSchedulingGate`.
pub(super) static POD_SCHEDULING_GATE: Message =
    Message::new("PodSchedulingGate", &[val(1, "name", Ty::Str)]);

/// `PodResourceClaim`.
pub(super) static POD_RESOURCE_CLAIM: Message = Message::new(
    "PodResourceClaim",
    &[
        val(1, "name", Ty::Str),
        ptr(3, "resourceClaimName", Ty::Str),
        ptr(4, "resourceClaimTemplateName", Ty::Str),
    ],
);

/// `PodSpec`.
pub(super) static POD_SPEC: Message = Message::new(
    "PodSpec",
    &[
        list(1, "volumes", Ty::Msg(&VOLUME)),
        list(20, "initContainers", Ty::Msg(&CONTAINER)),
        list(2, "containers", Ty::Msg(&CONTAINER)),
        list(34, "ephemeralContainers", Ty::Msg(&EPHEMERAL_CONTAINER)),
        val(3, "restartPolicy", Ty::Str),
        ptr(4, "terminationGracePeriodSeconds", Ty::Int),
        ptr(5, "activeDeadlineSeconds", Ty::Int),
        val(6, "dnsPolicy", Ty::Str),
        map(7, "nodeSelector", Ty::Str),
        val(8, "serviceAccountName", Ty::Str),
        val(9, "serviceAccount", Ty::Str),
        ptr(21, "automountServiceAccountToken", Ty::Bool),
        val(10, "nodeName", Ty::Str),
        val(11, "hostNetwork", Ty::Bool),
        val(12, "hostPID", Ty::Bool),
        val(13, "hostIPC", Ty::Bool),
        ptr(27, "shareProcessNamespace", Ty::Bool),
        ptr(14, "securityContext", Ty::Msg(&POD_SECURITY_CONTEXT)),
        list(15, "imagePullSecrets", Ty::Msg(&LOCAL_OBJECT_REFERENCE)),
        val(16, "hostname", Ty::Str),
        val(17, "subdomain", Ty::Str),
        ptr(18, "affinity", Ty::Msg(&AFFINITY)),
        val(19, "schedulerName", Ty::Str),
        list(22, "tolerations", Ty::Msg(&TOLERATION)),
        list(23, "hostAliases", Ty::Msg(&HOST_ALIAS)),
        val(24, "priorityClassName", Ty::Str),
        ptr(25, "priority", Ty::Int),
        ptr(26, "dnsConfig", Ty::Msg(&POD_DNS_CONFIG)),
        list(28, "readinessGates", Ty::Msg(&POD_READINESS_GATE)),
        ptr(29, "runtimeClassName", Ty::Str),
        ptr(30, "enableServiceLinks", Ty::Bool),
        ptr(31, "preemptionPolicy", Ty::Str),
        map(32, "overhead", Ty::Quantity),
        list(
            33,
            "topologySpreadConstraints",
            Ty::Msg(&TOPOLOGY_SPREAD_CONSTRAINT),
        ),
        ptr(35, "setHostnameAsFQDN", Ty::Bool),
        ptr(36, "os", Ty::Msg(&POD_OS)),
        ptr(37, "hostUsers", Ty::Bool),
        list(38, "schedulingGates", Ty::Msg(&POD_SCHEDULING_GATE)),
        list(39, "resourceClaims", Ty::Msg(&POD_RESOURCE_CLAIM)),
        ptr(40, "resources", Ty::Msg(&RESOURCE_REQUIREMENTS)),
        ptr(41, "hostnameOverride", Ty::Str),
    ],
);
