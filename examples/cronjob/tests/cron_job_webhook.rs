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

//! Runs the webhooks of CronJob against the embedded API server: the operator's webhook
//! server listens on 127.0.0.1 and is installed into the API server, which calls it on writes.

use kubeforge::prelude::*;
use kubeforge::webhook::WebhookServer;
use kubeforge::webhook::local::LocalWebhooks;
use kubeforge_testenv::TestEnv;

/// Starts the embedded API server with the CRDs of every API of this operator (all versions
/// merged) and serves all its webhooks to it. Both stop when the returned values are dropped.
// ANCHOR: start
async fn start() -> anyhow::Result<(TestEnv, LocalWebhooks)> {
    let mut env = TestEnv::builder();
    for crd in kubeforge::scheme::crds()? {
        env = env.crd(crd);
    }
    let env = env.start().await?;
    let builder = ::cronjob::webhooks::register(WebhookServer::builder());
    let webhooks = kubeforge::webhook::local::start(env.client(), builder).await?;
    Ok((env, webhooks))
}
// ANCHOR_END: start

const V1_SAMPLE: &str = include_str!("../config/samples/batch_v1_cronjob.yaml");
const V2_SAMPLE: &str = include_str!("../config/samples/batch_v2_cronjob.yaml");

// ANCHOR: defaulting
/// The defaulting webhook fills in every optional field the user left out.
#[tokio::test]
async fn cron_job_v1_is_defaulted() -> anyhow::Result<()> {
    use ::cronjob::api::v1::{ConcurrencyPolicy, CronJob};

    let (env, _webhooks) = start().await?;
    let mut object: CronJob = serde_saphyr::from_str(V1_SAMPLE)?;
    object.metadata.name = Some("cronjob-defaulted".into());
    object.spec.concurrency_policy = None;
    let api: Api<CronJob> = Api::namespaced(env.client(), env.namespace());
    let created = api.create(&PostParams::default(), &object).await?;
    let spec = &created.spec;
    assert_eq!(spec.concurrency_policy, Some(ConcurrencyPolicy::Allow));
    assert_eq!(spec.suspend, Some(false));
    assert_eq!(spec.successful_jobs_history_limit, Some(3));
    assert_eq!(spec.failed_jobs_history_limit, Some(1));

    // What the user set stays as it is.
    object.metadata.name = Some("cronjob-kept".into());
    object.spec.concurrency_policy = Some(ConcurrencyPolicy::Forbid);
    object.spec.successful_jobs_history_limit = Some(0);
    let created = api.create(&PostParams::default(), &object).await?;
    assert_eq!(
        created.spec.concurrency_policy,
        Some(ConcurrencyPolicy::Forbid)
    );
    assert_eq!(created.spec.successful_jobs_history_limit, Some(0));
    Ok(())
}
// ANCHOR_END: defaulting

// ANCHOR: validation
/// The validating webhook refuses a schedule that does not parse and a name too long for the
/// Jobs' names; the schema refuses a negative history limit before the webhooks are asked.
#[tokio::test]
async fn cron_job_v1_is_validated() -> anyhow::Result<()> {
    use ::cronjob::api::v1::CronJob;

    let (env, _webhooks) = start().await?;
    let api: Api<CronJob> = Api::namespaced(env.client(), env.namespace());
    let sample: CronJob = serde_saphyr::from_str(V1_SAMPLE)?;
    let refusal = |edit: &dyn Fn(&mut CronJob)| {
        let mut object = sample.clone();
        edit(&mut object);
        let api = api.clone();
        async move {
            match api.create(&PostParams::default(), &object).await {
                Ok(created) => anyhow::bail!("created {:?}", created.metadata.name),
                Err(error) => Ok(error.to_string()),
            }
        }
    };

    let message = refusal(&|c| c.spec.schedule = "every minute".into()).await?;
    assert!(
        message.contains(r#"spec.schedule: Invalid value: "every minute""#),
        "{message}"
    );
    let message = refusal(&|c| c.spec.schedule = "61 * * * *".into()).await?;
    assert!(
        message.contains("spec.schedule: Invalid value"),
        "{message}"
    );

    let long = "a".repeat(53);
    let message = refusal(&|c| c.metadata.name = Some(long.clone())).await?;
    assert!(
        message.contains("metadata.name: Invalid value")
            && message.contains("must be no more than 52 characters"),
        "{message}"
    );

    let message = refusal(&|c| c.spec.failed_jobs_history_limit = Some(-1)).await?;
    assert!(message.contains("spec.failedJobsHistoryLimit"), "{message}");

    // At the limits: a 52-character name, a nickname schedule.
    let mut object = sample.clone();
    object.metadata.name = Some("a".repeat(52));
    object.spec.schedule = "@hourly".into();
    api.create(&PostParams::default(), &object).await?;
    Ok(())
}
// ANCHOR_END: validation

// ANCHOR: conversion
/// CronJob v2 converts to the hub v1 and back without losing a field, in process and through
/// the API server: written as v2 and read as v1, written as v1 and read as v2.
#[tokio::test]
async fn cron_job_v2_converts_to_v1_and_back() -> anyhow::Result<()> {
    use ::cronjob::api::v1::CronJob as Hub;
    use ::cronjob::api::v2::{CronField, CronJob as Spoke, CronSchedule};

    let mut spoke: Spoke = serde_saphyr::from_str(V2_SAMPLE)?;
    spoke.metadata.name = Some("cronjob-v2".into());
    let value = serde_json::to_value(&spoke)?;
    let hub = kubeforge::webhook::check_round_trip(&value, "batch.tutorial.kubebuilder.io/v1")?;
    println!("CronJob v2 -> v1 -> v2 is lossless: {hub}");

    let (env, _webhooks) = start().await?;
    let spokes: Api<Spoke> = Api::namespaced(env.client(), env.namespace());
    let hubs: Api<Hub> = Api::namespaced(env.client(), env.namespace());

    // Written as v2, read as v1: the fields are joined into a cron schedule.
    let created = spokes.create(&PostParams::default(), &spoke).await?;
    let read = hubs.get(&created.name_any()).await?;
    assert_eq!(read.spec.schedule, "*/1 * * * *");
    assert_eq!(read.spec.job_template, spoke.spec.job_template);
    assert_eq!(spokes.get(&created.name_any()).await?.spec, created.spec);

    // Written as v1, read as v2: the schedule is split into its fields.
    let mut hub: Hub = serde_saphyr::from_str(V1_SAMPLE)?;
    hub.metadata.name = Some("cronjob-v1".into());
    hub.spec.schedule = "0 9 * * MON-FRI".into();
    hubs.create(&PostParams::default(), &hub).await?;
    let read = spokes.get("cronjob-v1").await?;
    let field = |f: &str| Some(CronField(f.to_owned()));
    assert_eq!(
        read.spec.schedule,
        CronSchedule {
            minute: field("0"),
            hour: field("9"),
            day_of_week: field("MON-FRI"),
            ..CronSchedule::default()
        }
    );

    // A v1 schedule v2 has no fields for (a nickname) survives a v2 client's update.
    hub.metadata.name = Some("cronjob-hourly".into());
    hub.spec.schedule = "@hourly".into();
    hubs.create(&PostParams::default(), &hub).await?;
    let mut read = spokes.get("cronjob-hourly").await?;
    assert_eq!(read.spec.schedule.to_cron(), "0 * * * *");
    read.spec.suspend = Some(true);
    spokes
        .replace("cronjob-hourly", &PostParams::default(), &read)
        .await?;
    let stored = hubs.get("cronjob-hourly").await?;
    assert_eq!(
        (stored.spec.schedule.as_str(), stored.spec.suspend),
        ("@hourly", Some(true))
    );
    assert!(
        stored.annotations().is_empty(),
        "{:?}",
        stored.annotations()
    );
    Ok(())
}
// ANCHOR_END: conversion

// ANCHOR: v2_admission
/// A write in v2 goes through the v1 webhooks too: the API server converts it to v1 for them
/// (their rules match v1, and `matchPolicy: Equivalent` sends them every version of the kind).
#[tokio::test]
async fn cron_job_v2_is_defaulted_and_validated_as_v1() -> anyhow::Result<()> {
    use ::cronjob::api::v2::{CronField, CronJob};

    let (env, _webhooks) = start().await?;
    let api: Api<CronJob> = Api::namespaced(env.client(), env.namespace());
    let mut object: CronJob = serde_saphyr::from_str(V2_SAMPLE)?;
    object.metadata.name = Some("cronjob-v2-defaulted".into());
    let created = api.create(&PostParams::default(), &object).await?;
    assert_eq!(created.spec.failed_jobs_history_limit, Some(1));

    object.metadata.name = Some("cronjob-v2-refused".into());
    object.spec.schedule.hour = Some(CronField("25".into()));
    let message = match api.create(&PostParams::default(), &object).await {
        Ok(created) => anyhow::bail!("created {:?}", created.metadata.name),
        Err(error) => error.to_string(),
    };
    assert!(
        message.contains(r#"spec.schedule: Invalid value: "*/1 25 * * *""#),
        "{message}"
    );
    Ok(())
}
// ANCHOR_END: v2_admission
