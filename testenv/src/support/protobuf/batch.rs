//! `batch/v1`: the Job and CronJob `kubectl create job|cronjob` send (`create job --from=cronjob/x`
//! copies the CronJob's job template).

use super::core::POD_TEMPLATE_SPEC;
use super::meta::{LABEL_SELECTOR, OBJECT_META};
use super::schema::{Message, Ty, ptr, unset, val};

/// `JobSpec`; not described (refused when sent): `podFailurePolicy`, `successPolicy`.
pub(super) static JOB_SPEC: Message = Message::new(
    "JobSpec",
    &[
        ptr(1, "parallelism", Ty::Int),
        ptr(2, "completions", Ty::Int),
        ptr(3, "activeDeadlineSeconds", Ty::Int),
        ptr(7, "backoffLimit", Ty::Int),
        ptr(12, "backoffLimitPerIndex", Ty::Int),
        ptr(13, "maxFailedIndexes", Ty::Int),
        ptr(4, "selector", Ty::Msg(&LABEL_SELECTOR)),
        ptr(5, "manualSelector", Ty::Bool),
        val(6, "template", Ty::Msg(&POD_TEMPLATE_SPEC)),
        ptr(8, "ttlSecondsAfterFinished", Ty::Int),
        ptr(9, "completionMode", Ty::Str),
        ptr(10, "suspend", Ty::Bool),
        ptr(14, "podReplacementPolicy", Ty::Str),
        ptr(15, "managedBy", Ty::Str),
    ],
);

/// `Job`; its `status` must be unset (the server sets it).
pub(super) static JOB: Message = Message::new(
    "Job",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&JOB_SPEC)),
        unset(3, "status"),
    ],
);

/// `JobTemplateSpec`.
pub(super) static JOB_TEMPLATE_SPEC: Message = Message::new(
    "JobTemplateSpec",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&JOB_SPEC)),
    ],
);

/// `CronJobSpec`.
pub(super) static CRON_JOB_SPEC: Message = Message::new(
    "CronJobSpec",
    &[
        val(1, "schedule", Ty::Str),
        ptr(8, "timeZone", Ty::Str),
        ptr(2, "startingDeadlineSeconds", Ty::Int),
        val(3, "concurrencyPolicy", Ty::Str),
        ptr(4, "suspend", Ty::Bool),
        val(5, "jobTemplate", Ty::Msg(&JOB_TEMPLATE_SPEC)),
        ptr(6, "successfulJobsHistoryLimit", Ty::Int),
        ptr(7, "failedJobsHistoryLimit", Ty::Int),
    ],
);

/// `CronJob`; its `status` must be unset (the server sets it).
pub(super) static CRON_JOB: Message = Message::new(
    "CronJob",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&CRON_JOB_SPEC)),
        unset(3, "status"),
    ],
);
