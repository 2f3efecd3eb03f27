//! The message of each kind of the served resources of the core, apps, batch, autoscaling,
//! policy, networking, discovery, events and coordination groups that a client may send.

use super::schema::Message;

/// apiVersion, kind, message.
pub(super) static KINDS: &[(&str, &str, &Message)] = &[
    ("v1", "Pod", &super::pod_status::POD),
    ("v1", "Namespace", &super::core_kinds::NAMESPACE),
    ("v1", "Service", &super::core_kinds::SERVICE),
    ("v1", "ResourceQuota", &super::core_kinds::RESOURCE_QUOTA),
    ("v1", "Binding", &super::core_kinds::BINDING),
    ("v1", "Endpoints", &super::core_kinds::ENDPOINTS),
    ("v1", "Event", &super::core_kinds::EVENT),
    ("v1", "LimitRange", &super::core_kinds::LIMIT_RANGE),
    ("v1", "PodTemplate", &super::core_kinds::POD_TEMPLATE),
    (
        "v1",
        "ReplicationController",
        &super::core_kinds::REPLICATION_CONTROLLER,
    ),
    (
        "v1",
        "PersistentVolumeClaim",
        &super::persistent_volume::PERSISTENT_VOLUME_CLAIM,
    ),
    (
        "v1",
        "PersistentVolume",
        &super::persistent_volume::PERSISTENT_VOLUME,
    ),
    ("v1", "Node", &super::core_node::NODE),
    ("apps/v1", "Deployment", &super::apps_kinds::DEPLOYMENT),
    ("apps/v1", "DaemonSet", &super::apps_kinds::DAEMON_SET),
    ("apps/v1", "ReplicaSet", &super::apps_kinds::REPLICA_SET),
    ("apps/v1", "StatefulSet", &super::apps_kinds::STATEFUL_SET),
    (
        "apps/v1",
        "ControllerRevision",
        &super::apps_kinds::CONTROLLER_REVISION,
    ),
    ("batch/v1", "Job", &super::batch_kinds::JOB),
    ("batch/v1", "CronJob", &super::batch_kinds::CRON_JOB),
    (
        "autoscaling/v1",
        "HorizontalPodAutoscaler",
        &super::autoscaling_kinds::HORIZONTAL_POD_AUTOSCALER,
    ),
    ("autoscaling/v1", "Scale", &super::autoscaling_kinds::SCALE),
    (
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        &super::autoscaling_v2::HORIZONTAL_POD_AUTOSCALER,
    ),
    (
        "policy/v1",
        "PodDisruptionBudget",
        &super::policy_kinds::POD_DISRUPTION_BUDGET,
    ),
    ("policy/v1", "Eviction", &super::policy_kinds::EVICTION),
    (
        "networking.k8s.io/v1",
        "Ingress",
        &super::networking_kinds::INGRESS,
    ),
    (
        "networking.k8s.io/v1",
        "IngressClass",
        &super::networking_kinds::INGRESS_CLASS,
    ),
    (
        "networking.k8s.io/v1",
        "NetworkPolicy",
        &super::networking_kinds::NETWORK_POLICY,
    ),
    (
        "networking.k8s.io/v1",
        "IPAddress",
        &super::networking_kinds::IP_ADDRESS,
    ),
    (
        "networking.k8s.io/v1",
        "ServiceCIDR",
        &super::networking_kinds::SERVICE_CIDR,
    ),
    (
        "discovery.k8s.io/v1",
        "EndpointSlice",
        &super::discovery::ENDPOINT_SLICE,
    ),
    ("events.k8s.io/v1", "Event", &super::events::EVENT),
    (
        "coordination.k8s.io/v1",
        "Lease",
        &super::coordination::LEASE,
    ),
];
