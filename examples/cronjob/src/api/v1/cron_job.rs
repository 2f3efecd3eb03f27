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

//! The CronJob API (batch.tutorial.kubebuilder.io/v1): its desired state (spec) and observed state (status).

// ANCHOR: imports
use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kubeforge::prelude::*;
// ANCHOR_END: imports

// ANCHOR: spec
/// CronJobSpec defines the desired state of a CronJob: when to run (`schedule`), what to run
/// (`jobTemplate`), and how runs that are late, overlapping or finished are handled.
#[kubeforge::api]
// Clippy takes the two date columns' `type_ = "date"` for one attribute given twice.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "batch.tutorial.kubebuilder.io",
    version = "v1",
    kind = "CronJob",
    plural = "cronjobs",
    namespaced,
    status = "CronJobStatus",
    printcolumn(name = "Schedule", type_ = "string", json_path = ".spec.schedule"),
    printcolumn(name = "Suspend", type_ = "boolean", json_path = ".spec.suspend"),
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
    /// The schedule in Cron format (five fields: minute, hour, day of month, month, day of
    /// week; or `@hourly`, `@daily`, ...), see https://en.wikipedia.org/wiki/Cron. Times are
    /// UTC.
    #[kubeforge(min_length = 1)]
    pub schedule: String,

    /// Optional deadline in seconds for starting the job if it misses its scheduled time for
    /// any reason. Missed job executions are counted as failed ones.
    #[kubeforge(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starting_deadline_seconds: Option<i64>,

    /// How to treat concurrent executions of a Job: `Allow` (the default) runs them
    /// concurrently, `Forbid` skips a run while the previous one is still running, `Replace`
    /// cancels the running one and starts the new one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency_policy: Option<ConcurrencyPolicy>,

    /// Tells the controller to suspend subsequent executions; it does not apply to executions
    /// already started. Defaults to false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,

    /// The Job that is created when the CronJob runs.
    pub job_template: JobTemplateSpec,

    /// How many successful finished Jobs to keep. An option, to tell an explicit zero from
    /// "not specified".
    #[kubeforge(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub successful_jobs_history_limit: Option<i32>,

    /// How many failed finished Jobs to keep. An option, to tell an explicit zero from "not
    /// specified".
    #[kubeforge(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_jobs_history_limit: Option<i32>,
}
// ANCHOR_END: spec

// ANCHOR: concurrency_policy
/// How a new run is handled while earlier Jobs of the CronJob are still running. A unit enum
/// is a string with an `enum` of its variants in the CRD's schema: the API server itself
/// refuses any other value.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, JsonSchema)]
pub enum ConcurrencyPolicy {
    /// Runs Jobs concurrently.
    #[default]
    Allow,
    /// Skips the new run while the previous Job has not finished.
    Forbid,
    /// Deletes the running Jobs and starts the new one.
    Replace,
}
// ANCHOR_END: concurrency_policy

// ANCHOR: status
/// CronJobStatus is the observed state of a CronJob, as its controller reports it.
/// (`#[kubeforge::schema]` applies the `#[kubeforge(...)]` attributes of a nested type.)
#[kubeforge::schema]
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    /// References to the Jobs that are running now.
    #[kubeforge(list_type = "atomic")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<ObjectReference>,

    /// When a Job was last scheduled (the scheduled time of the newest Job).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_schedule_time: Option<Time>,
}
// ANCHOR_END: status
