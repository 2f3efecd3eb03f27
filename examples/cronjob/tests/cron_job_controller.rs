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

//! Runs the CronJob controller against the embedded API server: creates the sample
//! (config/samples/batch_v1_cronjob.yaml) and waits until the controller has converged it.

use kubeforge::prelude::*;
use kubeforge_testenv::TestEnv;

use ::cronjob::api::v1::CronJob;

const SAMPLE: &str = include_str!("../config/samples/batch_v1_cronjob.yaml");

#[tokio::test]
async fn cron_job_sample_becomes_ready() -> anyhow::Result<()> {
    let env = TestEnv::builder()
        .crd(<CronJob as kube::CustomResourceExt>::crd())
        .start()
        .await?;
    let mut manager = Manager::new(env.client(), ManagerOptions::default());
    ::cronjob::controllers::cron_job::add_to_manager(&mut manager);
    let shutdown = manager.shutdown_handle();
    let manager_run = manager.run();
    tokio::pin!(manager_run);

    let sample: CronJob = serde_saphyr::from_str(SAMPLE)?;
    let api: Api<CronJob> = Api::namespaced(env.client(), env.namespace());
    let name = api
        .create(&PostParams::default(), &sample)
        .await?
        .name_any();
    println!("created CronJob {name}");

    tokio::select! {
        result = &mut manager_run => anyhow::bail!("the manager stopped early: {result:?}"),
        converged = wait_until_ready(&api, &name) => converged?,
    }

    shutdown.shutdown();
    manager_run.await?;
    Ok(())
}

/// Polls the CronJob until its status reports `Ready` for its current generation.
async fn wait_until_ready(api: &Api<CronJob>, name: &str) -> anyhow::Result<()> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let current = api.get(name).await?;
        let status = current.status.clone().unwrap_or_default();
        let ready =
            conditions::find(&status.conditions, "Ready").is_some_and(|c| c.status == "True");
        if ready && status.observed_generation == current.metadata.generation {
            let status = serde_json::to_string(&status)?;
            println!("reconciled CronJob {name}: status {status}");
            return Ok(());
        }
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "CronJob {name} was not reconciled within 30s; status: {:?}",
            current.status
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
