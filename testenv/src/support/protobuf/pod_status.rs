//! `v1` Pod with its status: the messages of a PodStatus.
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, list, map, ptr, val};

/// `Pod`.
pub(super) static POD: Message = Message::new(
    "Pod",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&super::pod::POD_SPEC)),
        val(3, "status", Ty::Msg(&POD_STATUS)),
    ],
);

/// `PodStatus`.
pub(super) static POD_STATUS: Message = Message::new(
    "PodStatus",
    &[
        val(17, "observedGeneration", Ty::Int),
        val(1, "phase", Ty::Str),
        list(2, "conditions", Ty::Msg(&POD_CONDITION)),
        val(3, "message", Ty::Str),
        val(4, "reason", Ty::Str),
        val(11, "nominatedNodeName", Ty::Str),
        val(5, "hostIP", Ty::Str),
        list(16, "hostIPs", Ty::Msg(&HOST_IP)),
        val(6, "podIP", Ty::Str),
        list(12, "podIPs", Ty::Msg(&POD_IP)),
        ptr(7, "startTime", Ty::Time),
        list(10, "initContainerStatuses", Ty::Msg(&CONTAINER_STATUS)),
        list(8, "containerStatuses", Ty::Msg(&CONTAINER_STATUS)),
        val(9, "qosClass", Ty::Str),
        list(13, "ephemeralContainerStatuses", Ty::Msg(&CONTAINER_STATUS)),
        val(14, "resize", Ty::Str),
        list(
            15,
            "resourceClaimStatuses",
            Ty::Msg(&POD_RESOURCE_CLAIM_STATUS),
        ),
        ptr(
            18,
            "extendedResourceClaimStatus",
            Ty::Msg(&POD_EXTENDED_RESOURCE_CLAIM_STATUS),
        ),
    ],
);

/// `PodCondition`.
pub(super) static POD_CONDITION: Message = Message::new(
    "PodCondition",
    &[
        val(1, "type", Ty::Str),
        val(7, "observedGeneration", Ty::Int),
        val(2, "status", Ty::Str),
        val(3, "lastProbeTime", Ty::Time),
        val(4, "lastTransitionTime", Ty::Time),
        val(5, "reason", Ty::Str),
        val(6, "message", Ty::Str),
    ],
);

/// `HostIP`.
pub(super) static HOST_IP: Message = Message::new("HostIP", &[val(1, "ip", Ty::Str)]);

/// `PodIP`.
pub(super) static POD_IP: Message = Message::new("PodIP", &[val(1, "ip", Ty::Str)]);

/// `ContainerStatus`.
pub(super) static CONTAINER_STATUS: Message = Message::new(
    "ContainerStatus",
    &[
        val(1, "name", Ty::Str),
        val(2, "state", Ty::Msg(&CONTAINER_STATE)),
        val(3, "lastState", Ty::Msg(&CONTAINER_STATE)),
        val(4, "ready", Ty::Bool),
        val(5, "restartCount", Ty::Int),
        val(6, "image", Ty::Str),
        val(7, "imageID", Ty::Str),
        val(8, "containerID", Ty::Str),
        ptr(9, "started", Ty::Bool),
        map(10, "allocatedResources", Ty::Quantity),
        ptr(
            11,
            "resources",
            Ty::Msg(&super::pod_container::RESOURCE_REQUIREMENTS),
        ),
        list(12, "volumeMounts", Ty::Msg(&VOLUME_MOUNT_STATUS)),
        ptr(13, "user", Ty::Msg(&CONTAINER_USER)),
        list(14, "allocatedResourcesStatus", Ty::Msg(&RESOURCE_STATUS)),
        ptr(15, "stopSignal", Ty::Str),
    ],
);

/// `ContainerState`.
pub(super) static CONTAINER_STATE: Message = Message::new(
    "ContainerState",
    &[
        ptr(1, "waiting", Ty::Msg(&CONTAINER_STATE_WAITING)),
        ptr(2, "running", Ty::Msg(&CONTAINER_STATE_RUNNING)),
        ptr(3, "terminated", Ty::Msg(&CONTAINER_STATE_TERMINATED)),
    ],
);

/// `ContainerStateWaiting`.
pub(super) static CONTAINER_STATE_WAITING: Message = Message::new(
    "ContainerStateWaiting",
    &[val(1, "reason", Ty::Str), val(2, "message", Ty::Str)],
);

/// `ContainerStateRunning`.
pub(super) static CONTAINER_STATE_RUNNING: Message =
    Message::new("ContainerStateRunning", &[val(1, "startedAt", Ty::Time)]);

/// `ContainerStateTerminated`.
pub(super) static CONTAINER_STATE_TERMINATED: Message = Message::new(
    "ContainerStateTerminated",
    &[
        val(1, "exitCode", Ty::Int),
        val(2, "signal", Ty::Int),
        val(3, "reason", Ty::Str),
        val(4, "message", Ty::Str),
        val(5, "startedAt", Ty::Time),
        val(6, "finishedAt", Ty::Time),
        val(7, "containerID", Ty::Str),
    ],
);

/// `VolumeMountStatus`.
pub(super) static VOLUME_MOUNT_STATUS: Message = Message::new(
    "VolumeMountStatus",
    &[
        val(1, "name", Ty::Str),
        val(2, "mountPath", Ty::Str),
        val(3, "readOnly", Ty::Bool),
        ptr(4, "recursiveReadOnly", Ty::Str),
    ],
);

/// `ContainerUser`.
pub(super) static CONTAINER_USER: Message = Message::new(
    "ContainerUser",
    &[ptr(1, "linux", Ty::Msg(&LINUX_CONTAINER_USER))],
);

/// `LinuxContainerUser`.
pub(super) static LINUX_CONTAINER_USER: Message = Message::new(
    "LinuxContainerUser",
    &[
        val(1, "uid", Ty::Int),
        val(2, "gid", Ty::Int),
        list(3, "supplementalGroups", Ty::Int),
    ],
);

/// `ResourceStatus`.
pub(super) static RESOURCE_STATUS: Message = Message::new(
    "ResourceStatus",
    &[
        val(1, "name", Ty::Str),
        list(2, "resources", Ty::Msg(&RESOURCE_HEALTH)),
    ],
);

/// `ResourceHealth`.
pub(super) static RESOURCE_HEALTH: Message = Message::new(
    "ResourceHealth",
    &[val(1, "resourceID", Ty::Str), val(2, "health", Ty::Str)],
);

/// `PodResourceClaimStatus`.
pub(super) static POD_RESOURCE_CLAIM_STATUS: Message = Message::new(
    "PodResourceClaimStatus",
    &[
        val(1, "name", Ty::Str),
        ptr(2, "resourceClaimName", Ty::Str),
    ],
);

/// `PodExtendedResourceClaimStatus`.
pub(super) static POD_EXTENDED_RESOURCE_CLAIM_STATUS: Message = Message::new(
    "PodExtendedResourceClaimStatus",
    &[
        list(
            1,
            "requestMappings",
            Ty::Msg(&CONTAINER_EXTENDED_RESOURCE_REQUEST),
        ),
        val(2, "resourceClaimName", Ty::Str),
    ],
);

/// `ContainerExtendedResourceRequest`.
pub(super) static CONTAINER_EXTENDED_RESOURCE_REQUEST: Message = Message::new(
    "ContainerExtendedResourceRequest",
    &[
        val(1, "containerName", Ty::Str),
        val(2, "resourceName", Ty::Str),
        val(3, "requestName", Ty::Str),
    ],
);
