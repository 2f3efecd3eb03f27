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

//! The admission webhooks of CronJob (batch.tutorial.kubebuilder.io/v1): defaults for the
//! optional fields, and the checks the CRD's schema cannot express (a schedule that parses, a
//! name short enough for the Jobs' names).

use kubeforge::prelude::ResourceExt;
use kubeforge::webhook::{Defaulter, Denied, Validator, Warnings};

use crate::api::v1::{ConcurrencyPolicy, CronJob};
use crate::schedule::Schedule;

// ANCHOR: defaulter
/// The defaulting webhook of CronJob: runs when a CronJob is created or updated, before
/// validation and before it is stored; what it changes reaches the object as a JSON patch.
/// Its defaults are Kubernetes' own for its CronJob: concurrent runs allowed, not suspended,
/// three successful Jobs and one failed Job kept.
#[derive(Debug, Clone, Copy, Default)]
pub struct CronJobDefaulter;

impl CronJobDefaulter {
    /// `spec.concurrencyPolicy` when it is not set.
    pub const CONCURRENCY_POLICY: ConcurrencyPolicy = ConcurrencyPolicy::Allow;
    /// `spec.suspend` when it is not set.
    pub const SUSPEND: bool = false;
    /// `spec.successfulJobsHistoryLimit` when it is not set.
    pub const SUCCESSFUL_JOBS_HISTORY_LIMIT: i32 = 3;
    /// `spec.failedJobsHistoryLimit` when it is not set.
    pub const FAILED_JOBS_HISTORY_LIMIT: i32 = 1;
}

impl Defaulter<CronJob> for CronJobDefaulter {
    async fn default(&self, obj: &mut CronJob) -> Result<(), Denied> {
        tracing::info!(name = %obj.name_any(), "defaulting CronJob");
        let spec = &mut obj.spec;
        spec.concurrency_policy
            .get_or_insert(Self::CONCURRENCY_POLICY);
        spec.suspend.get_or_insert(Self::SUSPEND);
        spec.successful_jobs_history_limit
            .get_or_insert(Self::SUCCESSFUL_JOBS_HISTORY_LIMIT);
        spec.failed_jobs_history_limit
            .get_or_insert(Self::FAILED_JOBS_HISTORY_LIMIT);
        Ok(())
    }
}
// ANCHOR_END: defaulter

// ANCHOR: validator
/// The validating webhook of CronJob: refuses a schedule the controller could not follow and a
/// name too long for the Jobs'. The same rules on create and on update; deletes are allowed.
#[derive(Debug, Clone, Copy, Default)]
pub struct CronJobValidator;

impl CronJobValidator {
    /// Every rule a CronJob breaks, as `field: Invalid value: ...` causes (the form of the API
    /// server's own validation errors); refused with 422 Invalid when there is any.
    pub fn check(obj: &CronJob) -> Result<Warnings, Denied> {
        let causes: Vec<String> = [validate_name(obj), validate_schedule(obj)]
            .into_iter()
            .flatten()
            .collect();
        if causes.is_empty() {
            return Ok(Vec::new());
        }
        let message = format!(
            "CronJob.batch.tutorial.kubebuilder.io {:?} is invalid: {}",
            obj.name_any(),
            causes.join(", ")
        );
        Err(Denied::new(message).with_code(422))
    }
}

impl Validator<CronJob> for CronJobValidator {
    async fn validate_create(&self, obj: &CronJob) -> Result<Warnings, Denied> {
        tracing::info!(name = %obj.name_any(), "validating CronJob creation");
        Self::check(obj)
    }

    async fn validate_update(&self, _old: &CronJob, new: &CronJob) -> Result<Warnings, Denied> {
        tracing::info!(name = %new.name_any(), "validating CronJob update");
        Self::check(new)
    }
}
// ANCHOR_END: validator

// ANCHOR: rules
/// The longest CronJob name: a Job's name is the CronJob's plus `-` and the scheduled time in
/// seconds (10 digits), and must be a DNS-1035 label of at most 63 characters: 63 - 11 = 52.
pub const MAX_NAME_LENGTH: usize = 52;

/// The name must leave room for the Jobs' suffix. The schema cannot say this: `metadata.name`
/// is the API server's, not the CRD's.
fn validate_name(obj: &CronJob) -> Option<String> {
    let name = obj.name_any();
    (name.len() > MAX_NAME_LENGTH).then(|| {
        format!(
            "metadata.name: Invalid value: {name:?}: must be no more than {MAX_NAME_LENGTH} characters"
        )
    })
}

/// The schedule must parse as the controller parses it. A regular expression in the schema
/// could only approximate this.
fn validate_schedule(obj: &CronJob) -> Option<String> {
    let schedule = &obj.spec.schedule;
    Schedule::parse(schedule)
        .err()
        .map(|error| format!("spec.schedule: Invalid value: {schedule:?}: {error}"))
}
// ANCHOR_END: rules
