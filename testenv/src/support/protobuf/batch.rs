//! `batch/v1`: the specs of the Job and CronJob `kubectl create job|cronjob` send (`create job
//! --from=cronjob/x` copies the CronJob's job template); the kinds, with their status, are in
//! `batch_kinds`.

use super::core::POD_TEMPLATE_SPEC;
use super::meta::{LABEL_SELECTOR, OBJECT_META};
use super::schema::{Message, Ty, list, ptr, val};

/// `PodFailurePolicyOnExitCodesRequirement`.
pub(super) static POD_FAILURE_POLICY_ON_EXIT_CODES_REQUIREMENT: Message = Message::new(
    "PodFailurePolicyOnExitCodesRequirement",
    &[
        ptr(1, "containerName", Ty::Str),
        val(2, "operator", Ty::Str),
        list(3, "values", Ty::Int),
    ],
);

/// `PodFailurePolicyOnPodConditionsPattern`.
pub(super) static POD_FAILURE_POLICY_ON_POD_CONDITIONS_PATTERN: Message = Message::new(
    "PodFailurePolicyOnPodConditionsPattern",
    &[val(1, "type", Ty::Str), val(2, "status", Ty::Str)],
);

/// `PodFailurePolicyRule`.
pub(super) static POD_FAILURE_POLICY_RULE: Message = Message::new(
    "PodFailurePolicyRule",
    &[
        val(1, "action", Ty::Str),
        ptr(
            2,
            "onExitCodes",
            Ty::Msg(&POD_FAILURE_POLICY_ON_EXIT_CODES_REQUIREMENT),
        ),
        list(
            3,
            "onPodConditions",
            Ty::Msg(&POD_FAILURE_POLICY_ON_POD_CONDITIONS_PATTERN),
        ),
    ],
);

/// `PodFailurePolicy`.
pub(super) static POD_FAILURE_POLICY: Message = Message::new(
    "PodFailurePolicy",
    &[list(1, "rules", Ty::Msg(&POD_FAILURE_POLICY_RULE))],
);

/// `SuccessPolicyRule`.
pub(super) static SUCCESS_POLICY_RULE: Message = Message::new(
    "SuccessPolicyRule",
    &[
        ptr(1, "succeededIndexes", Ty::Str),
        ptr(2, "succeededCount", Ty::Int),
    ],
);

/// `SuccessPolicy`.
pub(super) static SUCCESS_POLICY: Message = Message::new(
    "SuccessPolicy",
    &[list(1, "rules", Ty::Msg(&SUCCESS_POLICY_RULE))],
);

/// `JobSpec`.
pub(super) static JOB_SPEC: Message = Message::new(
    "JobSpec",
    &[
        ptr(1, "parallelism", Ty::Int),
        ptr(2, "completions", Ty::Int),
        ptr(3, "activeDeadlineSeconds", Ty::Int),
        ptr(11, "podFailurePolicy", Ty::Msg(&POD_FAILURE_POLICY)),
        ptr(16, "successPolicy", Ty::Msg(&SUCCESS_POLICY)),
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
