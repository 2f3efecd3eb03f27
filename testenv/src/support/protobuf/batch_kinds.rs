//! `batch/v1`: Job and CronJob, with their status.
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, list, ptr, val};

/// `Job`.
pub(super) static JOB: Message = Message::new(
    "Job",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&super::batch::JOB_SPEC)),
        val(3, "status", Ty::Msg(&JOB_STATUS)),
    ],
);

/// `JobStatus`.
pub(super) static JOB_STATUS: Message = Message::new(
    "JobStatus",
    &[
        list(1, "conditions", Ty::Msg(&JOB_CONDITION)),
        ptr(2, "startTime", Ty::Time),
        ptr(3, "completionTime", Ty::Time),
        val(4, "active", Ty::Int),
        val(5, "succeeded", Ty::Int),
        val(6, "failed", Ty::Int),
        ptr(11, "terminating", Ty::Int),
        val(7, "completedIndexes", Ty::Str),
        ptr(10, "failedIndexes", Ty::Str),
        ptr(
            8,
            "uncountedTerminatedPods",
            Ty::Msg(&UNCOUNTED_TERMINATED_PODS),
        ),
        ptr(9, "ready", Ty::Int),
    ],
);

/// `JobCondition`.
pub(super) static JOB_CONDITION: Message = Message::new(
    "JobCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "lastProbeTime", Ty::Time),
        val(4, "lastTransitionTime", Ty::Time),
        val(5, "reason", Ty::Str),
        val(6, "message", Ty::Str),
    ],
);

/// `UncountedTerminatedPods`.
pub(super) static UNCOUNTED_TERMINATED_PODS: Message = Message::new(
    "UncountedTerminatedPods",
    &[list(1, "succeeded", Ty::Str), list(2, "failed", Ty::Str)],
);

/// `CronJob`.
pub(super) static CRON_JOB: Message = Message::new(
    "CronJob",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&super::batch::CRON_JOB_SPEC)),
        val(3, "status", Ty::Msg(&CRON_JOB_STATUS)),
    ],
);

/// `CronJobStatus`.
pub(super) static CRON_JOB_STATUS: Message = Message::new(
    "CronJobStatus",
    &[
        list(1, "active", Ty::Msg(&super::core::OBJECT_REFERENCE)),
        ptr(4, "lastScheduleTime", Ty::Time),
        ptr(5, "lastSuccessfulTime", Ty::Time),
    ],
);
