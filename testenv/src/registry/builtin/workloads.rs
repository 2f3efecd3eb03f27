//! apps, batch, autoscaling and policy.

use super::table::{Builtin, SCALE, STATUS, b};

pub(super) const RESOURCES: &[Builtin] = &[
    b(
        "apps",
        "v1",
        "ControllerRevision",
        "controllerrevisions",
        &[],
        true,
    ),
    b("apps", "v1", "DaemonSet", "daemonsets", &["ds"], true)
        .subs(&[STATUS])
        .generation()
        .all(),
    b("apps", "v1", "Deployment", "deployments", &["deploy"], true)
        .subs(&[SCALE, STATUS])
        .generation()
        .all(),
    b("apps", "v1", "ReplicaSet", "replicasets", &["rs"], true)
        .subs(&[SCALE, STATUS])
        .generation()
        .all(),
    b("apps", "v1", "StatefulSet", "statefulsets", &["sts"], true)
        .subs(&[SCALE, STATUS])
        .generation()
        .all(),
    b("batch", "v1", "CronJob", "cronjobs", &["cj"], true)
        .subs(&[STATUS])
        .generation()
        .all(),
    b("batch", "v1", "Job", "jobs", &[], true)
        .subs(&[STATUS])
        .generation()
        .all(),
    b(
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        &["hpa"],
        true,
    )
    .subs(&[STATUS])
    .all(),
    b(
        "autoscaling",
        "v1",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        &["hpa"],
        true,
    )
    .subs(&[STATUS])
    .all()
    .stored_as("autoscaling", "v2", "HorizontalPodAutoscaler"),
    b(
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        &["pdb"],
        true,
    )
    .subs(&[STATUS])
    .generation(),
];
