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

//! The CronJob API (batch.tutorial.kubebuilder.io/v2): the spec of v1 with a structured
//! schedule. v1 stays the storage version; the API server converts through the conversion
//! webhook (`cron_job_conversion.rs`).

use k8s_openapi::api::batch::v1::JobTemplateSpec;
use kubeforge::prelude::*;

// The status did not change between the versions, nor did the concurrency policy: v2 uses
// v1's types for them, and the conversion copies them as they are.
pub use crate::api::v1::{ConcurrencyPolicy, CronJobStatus};

// ANCHOR: spec
/// CronJobSpec defines the desired state of a CronJob. Only `schedule` differs from v1.
#[kubeforge::api]
// Clippy takes the two date columns' `type_ = "date"` for one attribute given twice.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "batch.tutorial.kubebuilder.io",
    version = "v2",
    kind = "CronJob",
    plural = "cronjobs",
    // CronJob v1 is the storage version: the API server stores every version
    // as that one (see the next steps `kubeforge create api` printed to move it).
    storage = false,
    namespaced,
    status = "CronJobStatus",
    printcolumn(
        name = "Last Schedule",
        type_ = "date",
        json_path = ".status.lastScheduleTime"
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        json_path = ".metadata.creationTimestamp"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// When the CronJob runs, one field per part of a cron schedule. Times are UTC.
    pub schedule: CronSchedule,
    // ANCHOR_END: spec
    /// Optional deadline in seconds for starting the job if it misses its scheduled time for
    /// any reason. Missed job executions are counted as failed ones.
    #[kubeforge(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starting_deadline_seconds: Option<i64>,

    /// How to treat concurrent executions of a Job: `Allow` (the default), `Forbid` or
    /// `Replace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency_policy: Option<ConcurrencyPolicy>,

    /// Tells the controller to suspend subsequent executions. Defaults to false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,

    /// The Job that is created when the CronJob runs.
    pub job_template: JobTemplateSpec,

    /// How many successful finished Jobs to keep.
    #[kubeforge(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub successful_jobs_history_limit: Option<i32>,

    /// How many failed finished Jobs to keep.
    #[kubeforge(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_jobs_history_limit: Option<i32>,
}

// ANCHOR: schedule
/// A cron schedule, one field per part. A field left out matches every value (`*`).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CronSchedule {
    /// The minutes of the hour the job runs at (0-59).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minute: Option<CronField>,
    /// The hours of the day the job runs at (0-23).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hour: Option<CronField>,
    /// The days of the month the job runs on (1-31).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day_of_month: Option<CronField>,
    /// The months the job runs in (1-12 or JAN-DEC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub month: Option<CronField>,
    /// The days of the week the job runs on (0-6, Sunday is 0, or SUN-SAT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day_of_week: Option<CronField>,
}

/// One field of a cron schedule, such as `*/5`, `1-5` or `MON,WED`: a string in the CRD (a
/// newtype is its inner type). No spaces, since the conversion joins the fields with them, and
/// not `*` alone: a field left out means that, so each schedule has one way to be written and
/// converting to v1 and back gives the same object.
#[kubeforge::schema]
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[kubeforge(pattern = "^([^*\\s]\\S*|\\*\\S+)$")]
pub struct CronField(pub String);
// ANCHOR_END: schedule
