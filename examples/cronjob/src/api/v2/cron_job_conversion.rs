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

//! Conversion of CronJob between v2 and the hub version v1.
//!
//! Every version of CronJob converts to the hub and back; the conversion webhook (`/convert`)
//! chains these steps, so any served version can be read as any other. Fields of the same name
//! move across as they are; map renamed or restructured fields where the comments say, and keep
//! the round trip lossless (tests/cron_job_webhook.rs checks it).

use crate::api::v1 as hub;

use super::cron_job::{CronJob, CronJobSpec, CronJobStatus};

kubeforge::conversion!(CronJob => hub::CronJob, hub::CronJob => CronJob);

impl From<CronJob> for hub::CronJob {
    fn from(spoke: CronJob) -> Self {
        hub::CronJob {
            metadata: spoke.metadata,
            spec: spoke.spec.into(),
            status: spoke.status.map(Into::into),
        }
    }
}

impl From<hub::CronJob> for CronJob {
    fn from(hub: hub::CronJob) -> Self {
        CronJob {
            metadata: hub.metadata,
            spec: hub.spec.into(),
            status: hub.status.map(Into::into),
        }
    }
}

impl From<CronJobSpec> for hub::CronJobSpec {
    fn from(spec: CronJobSpec) -> Self {
        // A field renamed or restructured in v1 is mapped here, e.g.
        // `replicas: spec.size,` when v2 called it `size`.
        hub::CronJobSpec { foo: spec.foo }
    }
}

impl From<hub::CronJobSpec> for CronJobSpec {
    fn from(spec: hub::CronJobSpec) -> Self {
        // The way back: map each v1 field to its v2 form.
        CronJobSpec { foo: spec.foo }
    }
}

impl From<CronJobStatus> for hub::CronJobStatus {
    fn from(status: CronJobStatus) -> Self {
        hub::CronJobStatus {
            observed_generation: status.observed_generation,
            conditions: status.conditions,
        }
    }
}

impl From<hub::CronJobStatus> for CronJobStatus {
    fn from(status: hub::CronJobStatus) -> Self {
        CronJobStatus {
            observed_generation: status.observed_generation,
            conditions: status.conditions,
        }
    }
}
