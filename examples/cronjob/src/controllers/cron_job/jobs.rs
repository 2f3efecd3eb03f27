// Copyright 2026.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! The Jobs of a CronJob: how the controller builds them, recognises them and sorts them.

use std::sync::Arc;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::jiff::Timestamp;
use kube::{Resource, ResourceExt};
use kubeforge::helpers::owner::{OwnerError, set_controller_reference};

use crate::api::v1::CronJob;

/// The annotation on each Job with the time it was scheduled for (RFC 3339). The controller
/// reads it back to find the last run, so the status can be rebuilt from the Jobs alone.
pub const SCHEDULED_TIME_ANNOTATION: &str = "batch.tutorial.kubebuilder.io/scheduled-at";

// ANCHOR: finished
/// Where a Job is: still running, or finished one way or the other. A Job is finished when it
/// has a `Complete` or `Failed` condition with status `True`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Not finished yet.
    Running,
    /// Finished successfully.
    Succeeded,
    /// Finished with a failure.
    Failed,
}

/// How `job` is doing, from its status conditions.
pub fn outcome(job: &Job) -> Outcome {
    let conditions = job
        .status
        .iter()
        .flat_map(|s| s.conditions.iter().flatten());
    for condition in conditions.filter(|c| c.status == "True") {
        match condition.type_.as_str() {
            "Complete" => return Outcome::Succeeded,
            "Failed" => return Outcome::Failed,
            _ => {}
        }
    }
    Outcome::Running
}
// ANCHOR_END: finished

// ANCHOR: scheduled_time
/// The time `job` was scheduled for, from its annotation (`None` without a readable one).
pub fn scheduled_time(job: &Job) -> Option<Timestamp> {
    let raw = job.annotations().get(SCHEDULED_TIME_ANNOTATION)?;
    match raw.parse() {
        Ok(time) => Some(time),
        Err(error) => {
            tracing::warn!(job = %job.name_any(), %raw, %error, "unreadable scheduled time");
            None
        }
    }
}
// ANCHOR_END: scheduled_time

// ANCHOR: children
/// The Jobs of one CronJob, sorted by outcome, each group oldest first.
#[derive(Debug, Default)]
pub struct Children {
    /// Jobs still running.
    pub active: Vec<Arc<Job>>,
    /// Jobs that finished successfully.
    pub successful: Vec<Arc<Job>>,
    /// Jobs that failed.
    pub failed: Vec<Arc<Job>>,
    /// The latest scheduled time of any of them: the last run.
    pub last_scheduled: Option<Timestamp>,
}

impl Children {
    /// Sorts `jobs` by outcome. Each group is ordered by start time (not started first, then
    /// by name), so the first ones are the oldest: those the history limits delete first.
    pub fn sort(jobs: Vec<Arc<Job>>) -> Children {
        let mut children = Children::default();
        for job in jobs {
            children.last_scheduled = children.last_scheduled.max(scheduled_time(&job));
            match outcome(&job) {
                Outcome::Running => children.active.push(job),
                Outcome::Succeeded => children.successful.push(job),
                Outcome::Failed => children.failed.push(job),
            }
        }
        for group in [
            &mut children.active,
            &mut children.successful,
            &mut children.failed,
        ] {
            group.sort_by_key(|job| {
                let started = job.status.as_ref().and_then(|s| s.start_time.clone());
                (started.map(|t| t.0), job.name_any())
            });
        }
        children
    }
}

/// A reference to `job` for the CronJob's `status.active`.
pub fn reference(job: &Job) -> ObjectReference {
    ObjectReference {
        // The resourceVersion changes with every status change of the Job; the reference
        // names the Job, so leave it out rather than rewrite the status each time.
        resource_version: None,
        ..job.object_ref(&())
    }
}
// ANCHOR_END: children

// ANCHOR: job_for
/// The Job that runs `cron_job` for the time `scheduled`: the template's spec, labels and
/// annotations, the scheduled time as an annotation, and the CronJob as its controlling owner
/// (so the garbage collector deletes it with the CronJob, and the controller hears of its
/// changes). The name is the CronJob's plus the scheduled time in seconds, so one run can never
/// create two Jobs.
pub fn job_for(cron_job: &CronJob, scheduled: Timestamp) -> Result<Job, OwnerError> {
    let template = &cron_job.spec.job_template;
    let template_meta = template.metadata.clone().unwrap_or_default();
    let mut job = Job {
        metadata: kube::api::ObjectMeta {
            name: Some(format!("{}-{}", cron_job.name_any(), scheduled.as_second())),
            namespace: cron_job.namespace(),
            labels: template_meta.labels,
            annotations: template_meta.annotations,
            ..Default::default()
        },
        spec: template.spec.clone(),
        status: None,
    };
    job.annotations_mut()
        .insert(SCHEDULED_TIME_ANNOTATION.to_owned(), scheduled.to_string());
    set_controller_reference(cron_job, &mut job)?;
    Ok(job)
}
// ANCHOR_END: job_for

// ANCHOR: index
/// The name of the Job index by owner: the cache finds a CronJob's Jobs by the CronJob's UID.
pub const JOB_OWNER_INDEX: &str = "cronjob-owner";

/// The keys of `job` in [`JOB_OWNER_INDEX`]: the UID of its controlling owner, when that owner
/// is a CronJob of this API group.
pub fn owner_key(job: &Job) -> Vec<String> {
    let group = CronJob::group(&());
    job.owner_references()
        .iter()
        .filter(|owner| owner.controller == Some(true) && owner.kind == CronJob::kind(&()))
        .filter(|owner| owner.api_version.split('/').next() == Some(&group))
        .map(|owner| owner.uid.clone())
        .collect()
}
// ANCHOR_END: index
