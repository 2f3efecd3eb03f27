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

//! The admission and conversion webhooks of cronjob: one module per kind and version.
//!
//! `kubeforge create webhook` adds a module and its registration below; the manager serves
//! what [`register`] registers, `make manifests` writes its webhook configurations, and the
//! tests serve it to the embedded API server.

pub mod cron_job_v1;
// +kubeforge:scaffold:webhook-modules

/// Every webhook of this operator, registered on the server builder.
pub fn register(
    builder: ::kubeforge::webhook::WebhookServerBuilder,
) -> ::kubeforge::webhook::WebhookServerBuilder {
    builder
        .defaulter::<crate::api::v1::CronJob>(cron_job_v1::CronJobDefaulter)
        .validator::<crate::api::v1::CronJob>(cron_job_v1::CronJobValidator)
        .conversion::<crate::api::v1::CronJob>()
    // +kubeforge:scaffold:webhooks
}
