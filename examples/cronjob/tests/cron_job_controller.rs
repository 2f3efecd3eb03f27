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

//! The CronJob controller against the embedded API server, on a fake clock: the tests move
//! time forward and call the reconcile, and check the Jobs it creates and deletes. The last
//! test runs the whole controller in a manager on the sample.

use std::sync::Mutex;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kubeforge::prelude::*;
use kubeforge_testenv::TestEnv;

use ::cronjob::api::v1::{ConcurrencyPolicy, CronJob};
use ::cronjob::clock::Clock;
use ::cronjob::controllers::cron_job::{self as controller, Context, SCHEDULED_TIME_ANNOTATION};

const SAMPLE: &str = include_str!("../config/samples/batch_v1_cronjob.yaml");

// ANCHOR: fake_clock
/// A clock that stands still until the test moves it.
struct FakeClock(Mutex<Timestamp>);

impl FakeClock {
    fn new(now: Timestamp) -> Arc<FakeClock> {
        Arc::new(FakeClock(Mutex::new(now)))
    }

    fn set(&self, now: Timestamp) {
        *self.0.lock().unwrap() = now;
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Timestamp {
        *self.0.lock().unwrap()
    }
}
// ANCHOR_END: fake_clock

// ANCHOR: harness
/// The embedded API server with the CRD, a manager that runs only its cache (with the Job
/// index), and the controller's context on a fake clock: the tests call the reconcile
/// themselves, at the times they choose.
struct Harness {
    env: TestEnv,
    clock: Arc<FakeClock>,
    context: Arc<Context>,
    shutdown: kubeforge::ShutdownHandle,
}

impl Harness {
    async fn start() -> anyhow::Result<Harness> {
        let mut env = TestEnv::builder();
        for crd in ::cronjob::crds() {
            env = env.crd(crd);
        }
        let env = env.start().await?;
        let manager = Manager::new(env.client(), ManagerOptions::default());
        controller::index_jobs_by_owner(&manager);
        let clock = FakeClock::new(Timestamp::now());
        let context = Arc::new(Context {
            client: env.client(),
            cache: manager.cached_client(),
            clock: clock.clone(),
        });
        let shutdown = manager.shutdown_handle();
        tokio::spawn(manager.run());
        Ok(Harness {
            env,
            clock,
            context,
            shutdown,
        })
    }

    fn cron_jobs(&self) -> Api<CronJob> {
        Api::namespaced(self.env.client(), self.env.namespace())
    }

    fn jobs(&self) -> Api<Job> {
        Api::namespaced(self.env.client(), self.env.namespace())
    }

    /// Creates the sample under `name`, changed by `edit`; returns it as stored.
    async fn create(&self, name: &str, edit: impl FnOnce(&mut CronJob)) -> anyhow::Result<CronJob> {
        let mut cron_job: CronJob = serde_saphyr::from_str(SAMPLE)?;
        cron_job.metadata.name = Some(name.to_owned());
        edit(&mut cron_job);
        Ok(self
            .cron_jobs()
            .create(&PostParams::default(), &cron_job)
            .await?)
    }

    /// Reconciles the CronJob `name` as it is now on the server, once the cache holds exactly
    /// the Jobs the server has (so the reconcile sees what the test just did).
    async fn reconcile(&self, name: &str) -> anyhow::Result<Action> {
        let cron_job = self.cron_jobs().get(name).await?;
        let uid = cron_job.uid().unwrap_or_default();
        let mut on_server = self.job_names(name).await?;
        on_server.sort();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let cached = self
                .context
                .cache
                .list_by_index::<Job>(controller::JOB_OWNER_INDEX, &uid)
                .await?;
            let mut cached: Vec<String> = cached
                .iter()
                .map(|j| {
                    format!(
                        "{}@{}",
                        j.name_any(),
                        j.resource_version().unwrap_or_default()
                    )
                })
                .collect();
            cached.sort();
            if cached == on_server {
                break;
            }
            anyhow::ensure!(
                tokio::time::Instant::now() < deadline,
                "the cache has {cached:?}, the server {on_server:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(controller::reconcile(Arc::new(cron_job), self.context.clone()).await?)
    }

    /// The Jobs of the CronJob `name` on the server, as `name@resourceVersion`.
    async fn job_names(&self, name: &str) -> anyhow::Result<Vec<String>> {
        let jobs = self.jobs().list(&ListParams::default()).await?;
        Ok(jobs
            .items
            .iter()
            .filter(|job| job.owner_references().iter().any(|o| o.name == name))
            .map(|job| {
                format!(
                    "{}@{}",
                    job.name_any(),
                    job.resource_version().unwrap_or_default()
                )
            })
            .collect())
    }

    /// The names of the Jobs of the CronJob `name`, sorted.
    async fn jobs_of(&self, name: &str) -> anyhow::Result<Vec<String>> {
        let mut names: Vec<String> = self
            .job_names(name)
            .await?
            .into_iter()
            .map(|n| n.split('@').next().unwrap_or_default().to_owned())
            .collect();
        names.sort();
        Ok(names)
    }

    /// Marks the Job `name` finished, as the Job controller would: `Complete` or `Failed`.
    async fn finish(&self, name: &str, succeeded: bool, started: Timestamp) -> anyhow::Result<()> {
        let (criteria, outcome) = if succeeded {
            ("SuccessCriteriaMet", "Complete")
        } else {
            ("FailureTarget", "Failed")
        };
        let condition = |type_: &str| serde_json::json!({"type": type_, "status": "True"});
        let patch = serde_json::json!({"status": {
            "startTime": started.to_string(),
            "completionTime": if succeeded { Some(started.to_string()) } else { None },
            "conditions": [condition(criteria), condition(outcome)],
        }});
        self.jobs()
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
        Ok(())
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.shutdown.shutdown();
    }
}
// ANCHOR_END: harness

/// The creation time of `cron_job`.
fn created(cron_job: &CronJob) -> Timestamp {
    cron_job.metadata.creation_timestamp.clone().unwrap().0
}

/// The first time after `after` that a schedule of every `minutes` minutes comes due.
fn next_boundary(after: Timestamp, minutes: i64) -> Timestamp {
    let period = minutes * 60;
    let next = (after.as_second() / period + 1) * period;
    Timestamp::from_second(next).unwrap()
}

fn secs(s: i64) -> SignedDuration {
    SignedDuration::from_secs(s)
}

// ANCHOR: test_schedule
#[tokio::test]
async fn creates_a_job_each_time_the_schedule_comes_due() -> anyhow::Result<()> {
    let h = Harness::start().await?;
    let cron_job = h
        .create("every-five", |c| {
            c.spec.schedule = "*/5 * * * *".into();
            c.spec.starting_deadline_seconds = None;
        })
        .await?;
    let first = next_boundary(created(&cron_job), 5);

    // Before the first run: nothing to do, come back when it is due.
    h.clock.set(first - secs(10));
    let action = h.reconcile("every-five").await?;
    assert_eq!(action, Action::requeue(Duration::from_secs(10)));
    assert!(h.jobs_of("every-five").await?.is_empty());

    // Just after it: one Job for that run, named after it, owned by the CronJob.
    h.clock.set(first + secs(2));
    let action = h.reconcile("every-five").await?;
    assert_eq!(action, Action::requeue(Duration::from_secs(298)));
    let name = format!("every-five-{}", first.as_second());
    assert_eq!(h.jobs_of("every-five").await?, [name.as_str()]);
    let job = h.jobs().get(&name).await?;
    assert_eq!(
        job.annotations()[SCHEDULED_TIME_ANNOTATION],
        first.to_string()
    );
    let owner = &job.owner_references()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.controller),
        ("CronJob", Some(true))
    );
    assert_eq!(owner.uid, cron_job.uid().unwrap());
    // The template's pod, as the API server stored it (with its defaults).
    let pod = |spec: Option<&k8s_openapi::api::batch::v1::JobSpec>| {
        let pod = spec
            .and_then(|s| s.template.spec.clone())
            .unwrap_or_default();
        (pod.containers[0].args.clone(), pod.restart_policy)
    };
    assert_eq!(
        pod(job.spec.as_ref()),
        pod(cron_job.spec.job_template.spec.as_ref())
    );

    // Reconciling again at the same time changes nothing but the status.
    h.reconcile("every-five").await?;
    assert_eq!(h.jobs_of("every-five").await?, [name.as_str()]);
    let status = h.cron_jobs().get("every-five").await?.status.unwrap();
    assert_eq!(status.active.len(), 1);
    assert_eq!(status.active[0].name.as_deref(), Some(name.as_str()));
    assert_eq!(status.last_schedule_time.map(|t| t.0), Some(first));

    // Five minutes later: the next run.
    h.clock.set(first + secs(5 * 60 + 1));
    h.reconcile("every-five").await?;
    let second = format!("every-five-{}", (first + secs(300)).as_second());
    assert_eq!(h.jobs_of("every-five").await?, [name, second]);
    Ok(())
}
// ANCHOR_END: test_schedule

#[tokio::test]
async fn a_run_later_than_its_starting_deadline_is_skipped() -> anyhow::Result<()> {
    let h = Harness::start().await?;
    let cron_job = h
        .create("deadline", |c| {
            c.spec.schedule = "*/5 * * * *".into();
            c.spec.starting_deadline_seconds = Some(60);
        })
        .await?;
    let run = next_boundary(created(&cron_job), 5);

    // Two minutes late, the deadline is one: skipped, wait for the next run.
    h.clock.set(run + secs(120));
    let action = h.reconcile("deadline").await?;
    assert_eq!(action, Action::requeue(Duration::from_secs(180)));
    assert!(h.jobs_of("deadline").await?.is_empty());

    // Thirty seconds late: within the deadline.
    h.clock.set(run + secs(5 * 60 + 30));
    h.reconcile("deadline").await?;
    let next = run + secs(300);
    assert_eq!(
        h.jobs_of("deadline").await?,
        [format!("deadline-{}", next.as_second())]
    );
    Ok(())
}

#[tokio::test]
async fn a_suspended_cron_job_starts_nothing_until_resumed() -> anyhow::Result<()> {
    let h = Harness::start().await?;
    let cron_job = h
        .create("paused", |c| {
            c.spec.schedule = "*/5 * * * *".into();
            c.spec.starting_deadline_seconds = None;
            c.spec.suspend = Some(true);
        })
        .await?;
    let run = next_boundary(created(&cron_job), 5);
    h.clock.set(run + secs(1));
    assert_eq!(h.reconcile("paused").await?, Action::await_change());
    assert!(h.jobs_of("paused").await?.is_empty());

    let resume = serde_json::json!({"spec": {"suspend": false}});
    h.cron_jobs()
        .patch("paused", &PatchParams::default(), &Patch::Merge(&resume))
        .await?;
    h.reconcile("paused").await?;
    assert_eq!(
        h.jobs_of("paused").await?,
        [format!("paused-{}", run.as_second())]
    );
    Ok(())
}

// ANCHOR: test_concurrency
#[tokio::test]
async fn forbid_waits_for_the_running_job_and_replace_replaces_it() -> anyhow::Result<()> {
    let h = Harness::start().await?;
    for (name, policy) in [
        ("forbid", ConcurrencyPolicy::Forbid),
        ("replace", ConcurrencyPolicy::Replace),
        ("allow", ConcurrencyPolicy::Allow),
    ] {
        let cron_job = h
            .create(name, |c| {
                c.spec.schedule = "*/5 * * * *".into();
                c.spec.starting_deadline_seconds = None;
                c.spec.concurrency_policy = Some(policy);
            })
            .await?;
        let first = next_boundary(created(&cron_job), 5);
        let second = first + secs(300);
        let job = |at: Timestamp| format!("{name}-{}", at.as_second());

        h.clock.set(first + secs(1));
        h.reconcile(name).await?;
        assert_eq!(h.jobs_of(name).await?, [job(first)]);

        // The next run comes due while the first Job still runs.
        h.clock.set(second + secs(1));
        h.reconcile(name).await?;
        let expected = match policy {
            ConcurrencyPolicy::Forbid => vec![job(first)],
            ConcurrencyPolicy::Replace => vec![job(second)],
            ConcurrencyPolicy::Allow => vec![job(first), job(second)],
        };
        assert_eq!(h.jobs_of(name).await?, expected, "{policy:?}");

        if policy == ConcurrencyPolicy::Forbid {
            // Once the first Job finished, the skipped run starts (still within no deadline).
            h.finish(&job(first), true, first).await?;
            h.reconcile(name).await?;
            assert_eq!(h.jobs_of(name).await?, [job(first), job(second)]);
        }
    }
    Ok(())
}
// ANCHOR_END: test_concurrency

// ANCHOR: test_history
#[tokio::test]
async fn history_limits_delete_the_oldest_finished_jobs() -> anyhow::Result<()> {
    let h = Harness::start().await?;
    let cron_job = h
        .create("history", |c| {
            c.spec.schedule = "*/5 * * * *".into();
            c.spec.starting_deadline_seconds = None;
            c.spec.successful_jobs_history_limit = Some(2);
            c.spec.failed_jobs_history_limit = Some(1);
        })
        .await?;
    // Seven runs, one after the other; each Job finishes before the next run: the second and
    // fifth fail, the others succeed.
    let first = next_boundary(created(&cron_job), 5);
    let mut names = Vec::new();
    for run in 0..7 {
        let at = first + secs(300 * run);
        h.clock.set(at + secs(1));
        h.reconcile("history").await?;
        let name = format!("history-{}", at.as_second());
        h.finish(&name, run != 1 && run != 4, at).await?;
        names.push(name);
    }
    h.reconcile("history").await?;
    // Kept: the newest failed (the fifth), the two newest successful (sixth and seventh).
    let mut kept = vec![names[4].clone(), names[5].clone(), names[6].clone()];
    kept.sort();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while h.jobs_of("history").await? != kept {
        // Deletion is in the background: the API server removes the Jobs shortly.
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "kept {:?}",
            h.jobs_of("history").await?
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}
// ANCHOR_END: test_history

// ANCHOR: test_manager
/// The whole controller in a manager, on the sample (every minute, 60 s starting deadline)
/// with the clock 90 s after its creation: a run is due, and the controller creates its Job
/// and lists it in the status.
#[tokio::test]
async fn the_manager_runs_the_sample() -> anyhow::Result<()> {
    let env = TestEnv::builder()
        .crd(<CronJob as kube::CustomResourceExt>::crd())
        .start()
        .await?;
    let clock = FakeClock::new(Timestamp::now() + secs(90));
    let mut manager = Manager::new(env.client(), ManagerOptions::default());
    controller::add_to_manager_with_clock(&mut manager, clock.clone());
    let shutdown = manager.shutdown_handle();
    let manager_run = tokio::spawn(manager.run());

    let sample: CronJob = serde_saphyr::from_str(SAMPLE)?;
    let api: Api<CronJob> = Api::namespaced(env.client(), env.namespace());
    let name = api
        .create(&PostParams::default(), &sample)
        .await?
        .name_any();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let status = loop {
        let status = api.get(&name).await?.status.unwrap_or_default();
        if !status.active.is_empty() && status.last_schedule_time.is_some() {
            break status;
        }
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "no Job was started: {status:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let job = status.active[0].name.clone().unwrap_or_default();
    println!("the controller started {job} for {name}: {status:?}");
    let jobs: Api<Job> = Api::namespaced(env.client(), env.namespace());
    jobs.get(&job).await?;

    shutdown.shutdown();
    manager_run.await??;
    Ok(())
}
// ANCHOR_END: test_manager
