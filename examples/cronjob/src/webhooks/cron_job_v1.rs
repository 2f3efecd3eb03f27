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

//! The admission webhooks of CronJob (batch.tutorial.kubebuilder.io/v1). This file is yours: change the
//! rules below, and run `make test` to see them at work against the embedded API server.

use kubeforge::webhook::{Defaulter, Denied, Validator, Warnings};

use crate::api::v1::CronJob;

/// The label the scaffolded rules are about: which team owns a CronJob.
pub const TEAM_LABEL: &str = "tutorial.kubebuilder.io/team";

/// The team a CronJob without the label is given.
pub const DEFAULT_TEAM: &str = "unassigned";

/// The defaulting webhook of CronJob: runs when a CronJob is created or updated, before
/// validation and before it is stored; what it changes reaches the object as a JSON patch.
///
/// The scaffolded rule gives a CronJob without the [`TEAM_LABEL`] label the team
/// [`DEFAULT_TEAM`]. Set your own defaults the same way, e.g. `obj.spec.size.get_or_insert(1);`.
pub struct CronJobDefaulter;

impl Defaulter<CronJob> for CronJobDefaulter {
    async fn default(&self, obj: &mut CronJob) -> Result<(), Denied> {
        obj.metadata
            .labels
            .get_or_insert_with(Default::default)
            .entry(TEAM_LABEL.to_owned())
            .or_insert_with(|| DEFAULT_TEAM.to_owned());
        Ok(())
    }
}

/// The validating webhook of CronJob: runs when a CronJob is created or updated, after
/// defaulting; a [`Denied`] refuses the request with its message, warnings reach the client
/// (`kubectl` prints them).
///
/// The scaffolded rule refuses a CronJob whose [`TEAM_LABEL`] label is empty and warns
/// when it has none. Add your own rules to [`CronJobValidator::check`].
pub struct CronJobValidator;

impl CronJobValidator {
    /// The rules every CronJob follows, on create and on update.
    pub fn check(obj: &CronJob) -> Result<Warnings, Denied> {
        match obj.metadata.labels.as_ref().and_then(|l| l.get(TEAM_LABEL)) {
            Some(team) if team.trim().is_empty() => Err(Denied::new(format!(
                "the label {TEAM_LABEL} is empty: set it to the team that owns this CronJob, or remove it"
            ))),
            Some(_) => Ok(Vec::new()),
            None => Ok(vec![format!(
                "the CronJob has no {TEAM_LABEL} label, so no team owns it"
            )]),
        }
    }
}

impl Validator<CronJob> for CronJobValidator {
    async fn validate_create(&self, obj: &CronJob) -> Result<Warnings, Denied> {
        Self::check(obj)
    }

    async fn validate_update(&self, old: &CronJob, new: &CronJob) -> Result<Warnings, Denied> {
        // Compare `old` and `new` here to refuse changes to fields that must not change.
        let _ = old;
        Self::check(new)
    }
}
