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

/// The defaulting webhook gives a CronJob without a team label the default team.
#[tokio::test]
async fn cron_job_v1_is_defaulted() -> anyhow::Result<()> {
    use ::cronjob::api::v1::CronJob;
    use ::cronjob::webhooks::cron_job_v1 as webhook;

    let (env, _webhooks) = start().await?;
    let sample = include_str!("../config/samples/batch_v1_cronjob.yaml");
    let mut object: CronJob = serde_saphyr::from_str(sample)?;
    object.metadata.name = Some("cronjob-defaulted".into());
    if let Some(labels) = object.metadata.labels.as_mut() {
        labels.remove(webhook::TEAM_LABEL);
    }
    let api: Api<CronJob> = Api::namespaced(env.client(), env.namespace());
    let created = api.create(&PostParams::default(), &object).await?;
    let team = created.labels().get(webhook::TEAM_LABEL);
    assert_eq!(
        team.map(String::as_str),
        Some(webhook::DEFAULT_TEAM),
        "labels: {:?}",
        created.labels()
    );
    println!("defaulted {}: {team:?}", created.name_any());
    api.delete(&created.name_any(), &Default::default()).await?;
    Ok(())
}

/// The validating webhook refuses a CronJob with an empty team label, with its message, and
/// accepts one that names its team.
#[tokio::test]
async fn cron_job_v1_is_validated() -> anyhow::Result<()> {
    use ::cronjob::api::v1::CronJob;
    use ::cronjob::webhooks::cron_job_v1 as webhook;

    let (env, _webhooks) = start().await?;
    let sample = include_str!("../config/samples/batch_v1_cronjob.yaml");
    let mut object: CronJob = serde_saphyr::from_str(sample)?;
    object.metadata.name = Some("cronjob-validated".into());
    let api: Api<CronJob> = Api::namespaced(env.client(), env.namespace());

    let labels = object.metadata.labels.get_or_insert_with(Default::default);
    labels.insert(webhook::TEAM_LABEL.to_owned(), String::new());
    let message = match api.create(&PostParams::default(), &object).await {
        Ok(created) => anyhow::bail!("created despite the empty label: {created:?}"),
        Err(error) => error.to_string(),
    };
    let expected = format!("the label {} is empty", webhook::TEAM_LABEL);
    assert!(message.contains(&expected), "unexpected refusal: {message}");
    println!("refused CronJob with an empty team label: {message}");

    let labels = object.metadata.labels.get_or_insert_with(Default::default);
    labels.insert(webhook::TEAM_LABEL.to_owned(), "storage".to_owned());
    let created = api.create(&PostParams::default(), &object).await?;
    api.delete(&created.name_any(), &Default::default()).await?;
    Ok(())
}

/// CronJob v2 converts to the hub v1 and back without losing a field,
/// in process and through the API server (written as v2, read as v1).
#[tokio::test]
async fn cron_job_v2_converts_to_v1_and_back() -> anyhow::Result<()> {
    use ::cronjob::api::v1::CronJob as Hub;
    use ::cronjob::api::v2::CronJob as Spoke;

    let sample = include_str!("../config/samples/batch_v2_cronjob.yaml");
    let mut spoke: Spoke = serde_saphyr::from_str(sample)?;
    spoke.metadata.name = Some("cronjob-v2".into());
    let value = serde_json::to_value(&spoke)?;
    let hub = kubeforge::webhook::check_round_trip(&value, "batch.tutorial.kubebuilder.io/v1")?;
    println!("CronJob v2 -> v1 -> v2 is lossless: {hub}");

    let (env, _webhooks) = start().await?;
    let spokes: Api<Spoke> = Api::namespaced(env.client(), env.namespace());
    let hubs: Api<Hub> = Api::namespaced(env.client(), env.namespace());
    let created = spokes.create(&PostParams::default(), &spoke).await?;
    let read = hubs.get(&created.name_any()).await?;
    let expected = Hub::from(spoke);
    assert_eq!(read.spec, expected.spec);
    let back = spokes.get(&created.name_any()).await?;
    assert_eq!(back.spec, created.spec);
    println!("CronJob written as v2, read as v1: {:?}", read.spec);
    Ok(())
}
