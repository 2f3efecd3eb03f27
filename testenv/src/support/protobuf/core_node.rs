//! `v1` Node, with its status.
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, list, map, ptr, val};

/// `Node`.
pub(super) static NODE: Message = Message::new(
    "Node",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&NODE_SPEC)),
        val(3, "status", Ty::Msg(&NODE_STATUS)),
    ],
);

/// `NodeSpec`.
pub(super) static NODE_SPEC: Message = Message::new(
    "NodeSpec",
    &[
        val(1, "podCIDR", Ty::Str),
        list(7, "podCIDRs", Ty::Str),
        val(3, "providerID", Ty::Str),
        val(4, "unschedulable", Ty::Bool),
        list(5, "taints", Ty::Msg(&TAINT)),
        ptr(6, "configSource", Ty::Msg(&NODE_CONFIG_SOURCE)),
        val(2, "externalID", Ty::Str),
    ],
);

/// `Taint`.
pub(super) static TAINT: Message = Message::new(
    "Taint",
    &[
        val(1, "key", Ty::Str),
        val(2, "value", Ty::Str),
        val(3, "effect", Ty::Str),
        ptr(4, "timeAdded", Ty::Time),
    ],
);

/// `NodeConfigSource`.
pub(super) static NODE_CONFIG_SOURCE: Message = Message::new(
    "NodeConfigSource",
    &[ptr(2, "configMap", Ty::Msg(&CONFIG_MAP_NODE_CONFIG_SOURCE))],
);

/// `ConfigMapNodeConfigSource`.
pub(super) static CONFIG_MAP_NODE_CONFIG_SOURCE: Message = Message::new(
    "ConfigMapNodeConfigSource",
    &[
        val(1, "namespace", Ty::Str),
        val(2, "name", Ty::Str),
        val(3, "uid", Ty::Str),
        val(4, "resourceVersion", Ty::Str),
        val(5, "kubeletConfigKey", Ty::Str),
    ],
);

/// `NodeStatus`.
pub(super) static NODE_STATUS: Message = Message::new(
    "NodeStatus",
    &[
        map(1, "capacity", Ty::Quantity),
        map(2, "allocatable", Ty::Quantity),
        val(3, "phase", Ty::Str),
        list(4, "conditions", Ty::Msg(&NODE_CONDITION)),
        list(5, "addresses", Ty::Msg(&NODE_ADDRESS)),
        val(6, "daemonEndpoints", Ty::Msg(&NODE_DAEMON_ENDPOINTS)),
        val(7, "nodeInfo", Ty::Msg(&NODE_SYSTEM_INFO)),
        list(8, "images", Ty::Msg(&CONTAINER_IMAGE)),
        list(9, "volumesInUse", Ty::Str),
        list(10, "volumesAttached", Ty::Msg(&ATTACHED_VOLUME)),
        ptr(11, "config", Ty::Msg(&NODE_CONFIG_STATUS)),
        list(12, "runtimeHandlers", Ty::Msg(&NODE_RUNTIME_HANDLER)),
        ptr(13, "features", Ty::Msg(&NODE_FEATURES)),
    ],
);

/// `NodeCondition`.
pub(super) static NODE_CONDITION: Message = Message::new(
    "NodeCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "lastHeartbeatTime", Ty::Time),
        val(4, "lastTransitionTime", Ty::Time),
        val(5, "reason", Ty::Str),
        val(6, "message", Ty::Str),
    ],
);

/// `NodeAddress`.
pub(super) static NODE_ADDRESS: Message = Message::new(
    "NodeAddress",
    &[val(1, "type", Ty::Str), val(2, "address", Ty::Str)],
);

/// `NodeDaemonEndpoints`.
pub(super) static NODE_DAEMON_ENDPOINTS: Message = Message::new(
    "NodeDaemonEndpoints",
    &[val(1, "kubeletEndpoint", Ty::Msg(&DAEMON_ENDPOINT))],
);

/// `DaemonEndpoint`.
pub(super) static DAEMON_ENDPOINT: Message =
    Message::new("DaemonEndpoint", &[val(1, "Port", Ty::Int)]);

/// `NodeSystemInfo`.
pub(super) static NODE_SYSTEM_INFO: Message = Message::new(
    "NodeSystemInfo",
    &[
        val(1, "machineID", Ty::Str),
        val(2, "systemUUID", Ty::Str),
        val(3, "bootID", Ty::Str),
        val(4, "kernelVersion", Ty::Str),
        val(5, "osImage", Ty::Str),
        val(6, "containerRuntimeVersion", Ty::Str),
        val(7, "kubeletVersion", Ty::Str),
        val(8, "kubeProxyVersion", Ty::Str),
        val(9, "operatingSystem", Ty::Str),
        val(10, "architecture", Ty::Str),
        ptr(11, "swap", Ty::Msg(&NODE_SWAP_STATUS)),
    ],
);

/// `NodeSwapStatus`.
pub(super) static NODE_SWAP_STATUS: Message =
    Message::new("NodeSwapStatus", &[ptr(1, "capacity", Ty::Int)]);

/// `ContainerImage`.
pub(super) static CONTAINER_IMAGE: Message = Message::new(
    "ContainerImage",
    &[list(1, "names", Ty::Str), val(2, "sizeBytes", Ty::Int)],
);

/// `AttachedVolume`.
pub(super) static ATTACHED_VOLUME: Message = Message::new(
    "AttachedVolume",
    &[val(1, "name", Ty::Str), val(2, "devicePath", Ty::Str)],
);

/// `NodeConfigStatus`.
pub(super) static NODE_CONFIG_STATUS: Message = Message::new(
    "NodeConfigStatus",
    &[
        ptr(1, "assigned", Ty::Msg(&NODE_CONFIG_SOURCE)),
        ptr(2, "active", Ty::Msg(&NODE_CONFIG_SOURCE)),
        ptr(3, "lastKnownGood", Ty::Msg(&NODE_CONFIG_SOURCE)),
        val(4, "error", Ty::Str),
    ],
);

/// `NodeRuntimeHandler`.
pub(super) static NODE_RUNTIME_HANDLER: Message = Message::new(
    "NodeRuntimeHandler",
    &[
        val(1, "name", Ty::Str),
        ptr(2, "features", Ty::Msg(&NODE_RUNTIME_HANDLER_FEATURES)),
    ],
);

/// `NodeRuntimeHandlerFeatures`.
pub(super) static NODE_RUNTIME_HANDLER_FEATURES: Message = Message::new(
    "NodeRuntimeHandlerFeatures",
    &[
        ptr(1, "recursiveReadOnlyMounts", Ty::Bool),
        ptr(2, "userNamespaces", Ty::Bool),
    ],
);

/// `NodeFeatures`.
pub(super) static NODE_FEATURES: Message = Message::new(
    "NodeFeatures",
    &[ptr(1, "supplementalGroupsPolicy", Ty::Bool)],
);
