//! `apps/v1`: Deployment, DaemonSet, ReplicaSet, StatefulSet and ControllerRevision, with their status.
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, list, ptr, val};

/// `Deployment`.
pub(super) static DEPLOYMENT: Message = Message::new(
    "Deployment",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&super::apps::DEPLOYMENT_SPEC)),
        val(3, "status", Ty::Msg(&DEPLOYMENT_STATUS)),
    ],
);

/// `DeploymentStatus`.
pub(super) static DEPLOYMENT_STATUS: Message = Message::new(
    "DeploymentStatus",
    &[
        val(1, "observedGeneration", Ty::Int),
        val(2, "replicas", Ty::Int),
        val(3, "updatedReplicas", Ty::Int),
        val(7, "readyReplicas", Ty::Int),
        val(4, "availableReplicas", Ty::Int),
        val(5, "unavailableReplicas", Ty::Int),
        ptr(9, "terminatingReplicas", Ty::Int),
        list(6, "conditions", Ty::Msg(&DEPLOYMENT_CONDITION)),
        ptr(8, "collisionCount", Ty::Int),
    ],
);

/// `DeploymentCondition`.
pub(super) static DEPLOYMENT_CONDITION: Message = Message::new(
    "DeploymentCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(6, "lastUpdateTime", Ty::Time),
        val(7, "lastTransitionTime", Ty::Time),
        val(4, "reason", Ty::Str),
        val(5, "message", Ty::Str),
    ],
);

/// `DaemonSet`.
pub(super) static DAEMON_SET: Message = Message::new(
    "DaemonSet",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&DAEMON_SET_SPEC)),
        val(3, "status", Ty::Msg(&DAEMON_SET_STATUS)),
    ],
);

/// `DaemonSetSpec`.
pub(super) static DAEMON_SET_SPEC: Message = Message::new(
    "DaemonSetSpec",
    &[
        ptr(1, "selector", Ty::Msg(&super::meta::LABEL_SELECTOR)),
        val(2, "template", Ty::Msg(&super::core::POD_TEMPLATE_SPEC)),
        val(3, "updateStrategy", Ty::Msg(&DAEMON_SET_UPDATE_STRATEGY)),
        val(4, "minReadySeconds", Ty::Int),
        ptr(6, "revisionHistoryLimit", Ty::Int),
    ],
);

/// `DaemonSetUpdateStrategy`.
pub(super) static DAEMON_SET_UPDATE_STRATEGY: Message = Message::new(
    "DaemonSetUpdateStrategy",
    &[
        val(1, "type", Ty::Str),
        ptr(2, "rollingUpdate", Ty::Msg(&ROLLING_UPDATE_DAEMON_SET)),
    ],
);

/// `RollingUpdateDaemonSet`.
pub(super) static ROLLING_UPDATE_DAEMON_SET: Message = Message::new(
    "RollingUpdateDaemonSet",
    &[
        ptr(1, "maxUnavailable", Ty::IntOrString),
        ptr(2, "maxSurge", Ty::IntOrString),
    ],
);

/// `DaemonSetStatus`.
pub(super) static DAEMON_SET_STATUS: Message = Message::new(
    "DaemonSetStatus",
    &[
        val(1, "currentNumberScheduled", Ty::Int),
        val(2, "numberMisscheduled", Ty::Int),
        val(3, "desiredNumberScheduled", Ty::Int),
        val(4, "numberReady", Ty::Int),
        val(5, "observedGeneration", Ty::Int),
        val(6, "updatedNumberScheduled", Ty::Int),
        val(7, "numberAvailable", Ty::Int),
        val(8, "numberUnavailable", Ty::Int),
        ptr(9, "collisionCount", Ty::Int),
        list(10, "conditions", Ty::Msg(&DAEMON_SET_CONDITION)),
    ],
);

/// `DaemonSetCondition`.
pub(super) static DAEMON_SET_CONDITION: Message = Message::new(
    "DaemonSetCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "lastTransitionTime", Ty::Time),
        val(4, "reason", Ty::Str),
        val(5, "message", Ty::Str),
    ],
);

/// `ReplicaSet`.
pub(super) static REPLICA_SET: Message = Message::new(
    "ReplicaSet",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&REPLICA_SET_SPEC)),
        val(3, "status", Ty::Msg(&REPLICA_SET_STATUS)),
    ],
);

/// `ReplicaSetSpec`.
pub(super) static REPLICA_SET_SPEC: Message = Message::new(
    "ReplicaSetSpec",
    &[
        ptr(1, "replicas", Ty::Int),
        val(4, "minReadySeconds", Ty::Int),
        ptr(2, "selector", Ty::Msg(&super::meta::LABEL_SELECTOR)),
        val(3, "template", Ty::Msg(&super::core::POD_TEMPLATE_SPEC)),
    ],
);

/// `ReplicaSetStatus`.
pub(super) static REPLICA_SET_STATUS: Message = Message::new(
    "ReplicaSetStatus",
    &[
        val(1, "replicas", Ty::Int),
        val(2, "fullyLabeledReplicas", Ty::Int),
        val(4, "readyReplicas", Ty::Int),
        val(5, "availableReplicas", Ty::Int),
        ptr(7, "terminatingReplicas", Ty::Int),
        val(3, "observedGeneration", Ty::Int),
        list(6, "conditions", Ty::Msg(&REPLICA_SET_CONDITION)),
    ],
);

/// `ReplicaSetCondition`.
pub(super) static REPLICA_SET_CONDITION: Message = Message::new(
    "ReplicaSetCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "lastTransitionTime", Ty::Time),
        val(4, "reason", Ty::Str),
        val(5, "message", Ty::Str),
    ],
);

/// `StatefulSet`.
pub(super) static STATEFUL_SET: Message = Message::new(
    "StatefulSet",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&STATEFUL_SET_SPEC)),
        val(3, "status", Ty::Msg(&STATEFUL_SET_STATUS)),
    ],
);

/// `StatefulSetSpec`.
pub(super) static STATEFUL_SET_SPEC: Message = Message::new(
    "StatefulSetSpec",
    &[
        ptr(1, "replicas", Ty::Int),
        ptr(2, "selector", Ty::Msg(&super::meta::LABEL_SELECTOR)),
        val(3, "template", Ty::Msg(&super::core::POD_TEMPLATE_SPEC)),
        list(
            4,
            "volumeClaimTemplates",
            Ty::Msg(&super::persistent_volume::PERSISTENT_VOLUME_CLAIM),
        ),
        val(5, "serviceName", Ty::Str),
        val(6, "podManagementPolicy", Ty::Str),
        val(7, "updateStrategy", Ty::Msg(&STATEFUL_SET_UPDATE_STRATEGY)),
        ptr(8, "revisionHistoryLimit", Ty::Int),
        val(9, "minReadySeconds", Ty::Int),
        ptr(
            10,
            "persistentVolumeClaimRetentionPolicy",
            Ty::Msg(&STATEFUL_SET_PERSISTENT_VOLUME_CLAIM_RETENTION_POLICY),
        ),
        ptr(11, "ordinals", Ty::Msg(&STATEFUL_SET_ORDINALS)),
    ],
);

/// `StatefulSetUpdateStrategy`.
pub(super) static STATEFUL_SET_UPDATE_STRATEGY: Message = Message::new(
    "StatefulSetUpdateStrategy",
    &[
        val(1, "type", Ty::Str),
        ptr(
            2,
            "rollingUpdate",
            Ty::Msg(&ROLLING_UPDATE_STATEFUL_SET_STRATEGY),
        ),
    ],
);

/// `RollingUpdateStatefulSetStrategy`.
pub(super) static ROLLING_UPDATE_STATEFUL_SET_STRATEGY: Message = Message::new(
    "RollingUpdateStatefulSetStrategy",
    &[
        ptr(1, "partition", Ty::Int),
        ptr(2, "maxUnavailable", Ty::IntOrString),
    ],
);

/// `StatefulSetPersistentVolumeClaimRetentionPolicy`.
pub(super) static STATEFUL_SET_PERSISTENT_VOLUME_CLAIM_RETENTION_POLICY: Message = Message::new(
    "StatefulSetPersistentVolumeClaimRetentionPolicy",
    &[
        val(1, "whenDeleted", Ty::Str),
        val(2, "whenScaled", Ty::Str),
    ],
);

/// `StatefulSetOrdinals`.
pub(super) static STATEFUL_SET_ORDINALS: Message =
    Message::new("StatefulSetOrdinals", &[val(1, "start", Ty::Int)]);

/// `StatefulSetStatus`.
pub(super) static STATEFUL_SET_STATUS: Message = Message::new(
    "StatefulSetStatus",
    &[
        val(1, "observedGeneration", Ty::Int),
        val(2, "replicas", Ty::Int),
        val(3, "readyReplicas", Ty::Int),
        val(4, "currentReplicas", Ty::Int),
        val(5, "updatedReplicas", Ty::Int),
        val(6, "currentRevision", Ty::Str),
        val(7, "updateRevision", Ty::Str),
        ptr(9, "collisionCount", Ty::Int),
        list(10, "conditions", Ty::Msg(&STATEFUL_SET_CONDITION)),
        val(11, "availableReplicas", Ty::Int),
    ],
);

/// `StatefulSetCondition`.
pub(super) static STATEFUL_SET_CONDITION: Message = Message::new(
    "StatefulSetCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "lastTransitionTime", Ty::Time),
        val(4, "reason", Ty::Str),
        val(5, "message", Ty::Str),
    ],
);

/// `ControllerRevision`.
pub(super) static CONTROLLER_REVISION: Message = Message::new(
    "ControllerRevision",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "data", Ty::Raw),
        val(3, "revision", Ty::Int),
    ],
);
