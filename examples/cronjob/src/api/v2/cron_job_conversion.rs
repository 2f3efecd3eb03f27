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

//! Conversion between CronJob v2 and the hub, v1 (the storage version). The API server calls
//! the conversion webhook with objects of one version and wants them in the other; the webhook
//! runs these `From` impls (registered with `kubeforge::conversion!`).

use crate::api::v1 as hub;

use super::cron_job::{CronField, CronJob, CronJobSpec, CronSchedule};

// ANCHOR: register
kubeforge::conversion!(CronJob => hub::CronJob, hub::CronJob => CronJob);
// ANCHOR_END: register

// ANCHOR: annotation
/// Where a v1 schedule that v2's fields cannot hold as written (`@hourly`, extra spaces) is
/// kept while the object is seen as v2, so converting back to v1 restores it: the usual way to
/// make a conversion lossless when one version can say more than the other.
pub const V1_SCHEDULE_ANNOTATION: &str = "batch.tutorial.kubebuilder.io/v1-schedule";
// ANCHOR_END: annotation

// ANCHOR: to_hub
impl From<CronJob> for hub::CronJob {
    fn from(spoke: CronJob) -> Self {
        let mut metadata = spoke.metadata;
        let written = spoke.spec.schedule.to_cron();
        // A v1 schedule kept by the conversion to v2 comes back, unless the v2 fields changed.
        let kept = metadata
            .annotations
            .as_mut()
            .and_then(|annotations| annotations.remove(V1_SCHEDULE_ANNOTATION));
        if metadata.annotations.as_ref().is_some_and(|a| a.is_empty()) {
            metadata.annotations = None;
        }
        let schedule = match kept {
            Some(kept) if CronSchedule::from_cron(&kept) == spoke.spec.schedule => kept,
            _ => written,
        };
        let spec = spoke.spec;
        hub::CronJob {
            metadata,
            spec: hub::CronJobSpec {
                schedule,
                starting_deadline_seconds: spec.starting_deadline_seconds,
                concurrency_policy: spec.concurrency_policy,
                suspend: spec.suspend,
                job_template: spec.job_template,
                successful_jobs_history_limit: spec.successful_jobs_history_limit,
                failed_jobs_history_limit: spec.failed_jobs_history_limit,
            },
            status: spoke.status,
        }
    }
}
// ANCHOR_END: to_hub

// ANCHOR: from_hub
impl From<hub::CronJob> for CronJob {
    fn from(hub: hub::CronJob) -> Self {
        let mut metadata = hub.metadata;
        let spec = hub.spec;
        let schedule = CronSchedule::from_cron(&spec.schedule);
        if schedule.to_cron() != spec.schedule {
            metadata
                .annotations
                .get_or_insert_with(Default::default)
                .insert(V1_SCHEDULE_ANNOTATION.to_owned(), spec.schedule.clone());
        }
        CronJob {
            metadata,
            spec: CronJobSpec {
                schedule,
                starting_deadline_seconds: spec.starting_deadline_seconds,
                concurrency_policy: spec.concurrency_policy,
                suspend: spec.suspend,
                job_template: spec.job_template,
                successful_jobs_history_limit: spec.successful_jobs_history_limit,
                failed_jobs_history_limit: spec.failed_jobs_history_limit,
            },
            status: hub.status,
        }
    }
}
// ANCHOR_END: from_hub

// ANCHOR: schedule
impl CronSchedule {
    /// The five-field cron form of the schedule (`minute hour day-of-month month
    /// day-of-week`), `*` for each field left out.
    pub fn to_cron(&self) -> String {
        [
            &self.minute,
            &self.hour,
            &self.day_of_month,
            &self.month,
            &self.day_of_week,
        ]
        .map(|field| field.as_ref().map_or("*", |f| f.0.as_str()))
        .join(" ")
    }

    /// The fields of a cron schedule: five fields separated by spaces, or a nickname
    /// (`@hourly`, `@daily`, ...) read as the five fields it stands for. `*` fields are left
    /// out. Anything else (which v1's validating webhook refuses) gives an empty schedule.
    pub fn from_cron(schedule: &str) -> CronSchedule {
        let expanded = match schedule.trim() {
            "@yearly" | "@annually" => "0 0 1 1 *",
            "@monthly" => "0 0 1 * *",
            "@weekly" => "0 0 * * 0",
            "@daily" | "@midnight" => "0 0 * * *",
            "@hourly" => "0 * * * *",
            other => other,
        };
        let fields: Vec<&str> = expanded.split_whitespace().collect();
        let [minute, hour, day_of_month, month, day_of_week] = fields[..] else {
            return CronSchedule::default();
        };
        let field = |raw: &str| (raw != "*").then(|| CronField(raw.to_owned()));
        CronSchedule {
            minute: field(minute),
            hour: field(hour),
            day_of_month: field(day_of_month),
            month: field(month),
            day_of_week: field(day_of_week),
        }
    }
}
// ANCHOR_END: schedule
