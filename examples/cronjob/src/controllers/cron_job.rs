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

//! The CronJob controller: creates a Job from the CronJob's template each time its schedule
//! comes due, keeps the status up to date with the Jobs it finds, deletes old finished Jobs,
//! and honours `suspend`, `startingDeadlineSeconds` and the concurrency policy.

// ANCHOR: imports
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::api::DeleteParams;
use kubeforge::client::CachedClient;
use kubeforge::helpers::owner::OwnerError;
use kubeforge::prelude::*;

use crate::api::v1::{ConcurrencyPolicy, CronJob, CronJobStatus};
use crate::clock::{Clock, RealClock};
use crate::schedule::{self, Schedule};

mod jobs;
pub use jobs::{
    Children, JOB_OWNER_INDEX, Outcome, SCHEDULED_TIME_ANNOTATION, job_for, outcome, owner_key,
    scheduled_time,
};
// ANCHOR_END: imports

/// The name of the controller (in logs, metrics and leader election).
pub const NAME: &str = "cronjob";

/// What a reconcile of a CronJob can fail with; failures are retried with backoff.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A call to the Kubernetes API failed.
    #[error("Kubernetes API call failed: {0}")]
    Kube(#[from] kube::Error),
    /// The cache of Jobs could not be read.
    #[error("reading the cached Jobs failed: {0}")]
    Cache(#[from] kubeforge::Error),
    /// The CronJob cannot own its Job (it has no UID yet, or the Job another controller).
    #[error("the CronJob cannot own its Job: {0}")]
    Owner(#[from] OwnerError),
}

// ANCHOR: context
/// What every reconcile of this controller shares.
pub struct Context {
    /// Client for writes.
    pub client: Client,
    /// Reads of Jobs, from the manager's cache (indexed by owner, see [`JOB_OWNER_INDEX`]).
    pub cache: CachedClient,
    /// The time: the system's in the manager, a fake one in tests.
    pub clock: Arc<dyn Clock>,
}
// ANCHOR_END: context

/// Reconciles one CronJob; see the steps below. It reads the status it writes from the Jobs
/// themselves (never from the CronJob's previous status), so any reconcile rebuilds it.
pub async fn reconcile(cron_job: Arc<CronJob>, ctx: Arc<Context>) -> Result<Action, Error> {
    let name = cron_job.name_any();
    let namespace = cron_job.namespace().unwrap_or_default();
    let jobs: Api<Job> = Api::namespaced(ctx.client.clone(), &namespace);

    // ANCHOR: status
    // 1. List the Jobs this CronJob owns, and update the status from them.
    let owned = ctx
        .cache
        .list_by_index::<Job>(JOB_OWNER_INDEX, &cron_job.uid().unwrap_or_default())
        .await?;
    let children = Children::sort(owned);
    let status = CronJobStatus {
        active: children
            .active
            .iter()
            .map(|job| jobs::reference(job))
            .collect(),
        last_schedule_time: children.last_scheduled.map(Time),
    };
    tracing::debug!(
        %name,
        active = children.active.len(),
        successful = children.successful.len(),
        failed = children.failed.len(),
        "job count"
    );
    if cron_job.status.as_ref() != Some(&status) {
        // A merge patch with every field written out, so an empty list or a cleared time
        // replaces what was there.
        let patch = serde_json::json!({ "status": {
            "active": status.active,
            "lastScheduleTime": status.last_schedule_time,
        }});
        let api: Api<CronJob> = Api::namespaced(ctx.client.clone(), &namespace);
        api.patch_status(&name, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
    }
    // ANCHOR_END: status

    // ANCHOR: cleanup
    // 2. Delete the oldest finished Jobs beyond the history limits. Best effort: a Job that
    //    could not be deleted now is deleted by a later reconcile.
    let limits = [
        (&children.failed, cron_job.spec.failed_jobs_history_limit),
        (
            &children.successful,
            cron_job.spec.successful_jobs_history_limit,
        ),
    ];
    for (finished, limit) in limits {
        let Some(limit) = limit else { continue };
        let excess = finished
            .len()
            .saturating_sub(usize::try_from(limit).unwrap_or(0));
        for job in &finished[..excess] {
            match jobs
                .delete(&job.name_any(), &DeleteParams::background())
                .await
            {
                Ok(_) => tracing::debug!(job = %job.name_any(), "deleted old job"),
                Err(error) => {
                    tracing::warn!(job = %job.name_any(), %error, "could not delete old job")
                }
            }
        }
    }
    // ANCHOR_END: cleanup

    // ANCHOR: suspend
    // 3. A suspended CronJob starts nothing; a change of the CronJob brings it back.
    if cron_job.spec.suspend == Some(true) {
        tracing::debug!(%name, "suspended, skipping");
        return Ok(Action::await_change());
    }
    // ANCHOR_END: suspend

    // ANCHOR: next_run
    // 4. Find the run that is due, if any, and the next one, counting from the last run (or
    //    the CronJob's creation).
    let now = ctx.clock.now();
    let schedule = match Schedule::parse(&cron_job.spec.schedule) {
        Ok(schedule) => schedule,
        Err(error) => {
            // Retrying cannot help: wait until the schedule is fixed.
            tracing::error!(%name, schedule = %cron_job.spec.schedule, %error, "unparseable schedule");
            return Ok(Action::await_change());
        }
    };
    let created = cron_job.metadata.creation_timestamp.as_ref().map(|t| t.0);
    let earliest = children.last_scheduled.or(created).unwrap_or(now);
    let deadline = cron_job.spec.starting_deadline_seconds;
    let runs = match schedule::runs(&schedule, earliest, deadline, now) {
        Ok(runs) => runs,
        Err(error) => {
            tracing::error!(%name, %error, "cannot work out the schedule");
            return Ok(Action::await_change());
        }
    };
    // Come back when the next run is due (sooner when a Job or the CronJob changes).
    let requeue = runs.next.map_or_else(Action::await_change, |next| {
        Action::requeue(until(now, next))
    });
    let Some(missed) = runs.missed else {
        tracing::debug!(%name, next = ?runs.next, "no run due, sleeping until the next");
        return Ok(requeue);
    };
    // ANCHOR_END: next_run

    // ANCHOR: deadline
    // 5. A run later than its starting deadline is skipped.
    let latest_start = deadline.map(|d| missed.checked_add(SignedDuration::from_secs(d)));
    if let Some(Ok(latest_start)) = latest_start
        && latest_start < now
    {
        tracing::debug!(%name, %missed, "missed the starting deadline, sleeping until the next run");
        return Ok(requeue);
    }
    // ANCHOR_END: deadline

    // ANCHOR: concurrency
    // 6. The concurrency policy decides what happens to the Jobs still running.
    match cron_job.spec.concurrency_policy.unwrap_or_default() {
        ConcurrencyPolicy::Allow => {}
        ConcurrencyPolicy::Forbid if !children.active.is_empty() => {
            tracing::debug!(%name, active = children.active.len(), "concurrency policy forbids a new run");
            return Ok(requeue);
        }
        ConcurrencyPolicy::Forbid => {}
        ConcurrencyPolicy::Replace => {
            for job in &children.active {
                match jobs
                    .delete(&job.name_any(), &DeleteParams::background())
                    .await
                {
                    Ok(_) => {}
                    // Already gone: what we wanted.
                    Err(kube::Error::Api(status)) if status.code == 404 => {}
                    Err(error) => return Err(error.into()),
                }
            }
        }
    }
    // ANCHOR_END: concurrency

    // ANCHOR: create
    // 7. Create the Job of the run; its name is the run's, so a Job created by an earlier
    //    reconcile (not in the cache yet) is not created twice.
    let job = job_for(&cron_job, missed)?;
    match jobs.create(&PostParams::default(), &job).await {
        Ok(job) => tracing::info!(%name, job = %job.name_any(), scheduled = %missed, "created job"),
        Err(kube::Error::Api(status)) if status.code == 409 => {}
        Err(error) => return Err(error.into()),
    }
    Ok(requeue)
    // ANCHOR_END: create
}

/// How long from `now` until `then` (zero when `then` has passed).
fn until(now: Timestamp, then: Timestamp) -> Duration {
    Duration::try_from(then.duration_since(now)).unwrap_or_default()
}

// ANCHOR: setup
/// Registers the CronJob controller with the manager, on the system clock.
pub fn add_to_manager(manager: &mut Manager) {
    add_to_manager_with_clock(manager, Arc::new(RealClock));
}

/// Indexes the cached Jobs by their owning CronJob (see [`owner_key`]), so a reconcile finds
/// its Jobs without going through every Job of the namespace.
pub fn index_jobs_by_owner(manager: &Manager) {
    manager.cache().index::<Job>(JOB_OWNER_INDEX, owner_key);
}

/// Registers the CronJob controller with the manager, reading the time from `clock`.
/// `.owns::<Job>()` reconciles a CronJob whenever one of its Jobs changes (it runs, finishes,
/// is deleted); `#[kubeforge::rbac]` grants the manager's role what the controller watches
/// and owns: CronJobs and their status, and Jobs.
#[kubeforge::rbac]
pub fn add_to_manager_with_clock(manager: &mut Manager, clock: Arc<dyn Clock>) {
    index_jobs_by_owner(manager);
    let context = Arc::new(Context {
        client: manager.client(),
        cache: manager.cached_client(),
        clock,
    });
    let controller = Controller::<CronJob>::new(manager, NAME).owns::<Job>();
    manager.add(controller.reconcile(reconcile, context));
}
// ANCHOR_END: setup
