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

//! The cronjob manager: runs the controllers, or writes the manifests.

use clap::{Parser, Subcommand};
use kubeforge::prelude::*;

use ::cronjob::controllers;
// +kubeforge:scaffold:imports

/// The cronjob operator.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(flatten)]
    manager: ManagerArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Write the CustomResourceDefinitions, RBAC and webhook manifests into config/.
    Manifests(kubeforge::manifests::ManifestsArgs),
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    // The operator's webhooks (`kubeforge create webhook` registers them here): `manifests`
    // writes their configurations, the manager serves them.
    let webhooks = kubeforge::webhook::WebhookServer::builder();
    let webhooks = ::cronjob::webhooks::register(webhooks);
    // +kubeforge:scaffold:webhook-builder
    if let Some(Command::Manifests(args)) = cli.command {
        kubeforge::manifests::run_with_webhooks(args, &webhooks)?;
        return Ok(());
    }

    kubeforge::logging::init(&cli.manager);
    // The manager flags include sharding: `--shards auto` (config/manager/manager.yaml) spreads
    // the controllers' work over every replica instead of one leader doing it all.
    let client = Client::try_default().await?;
    let options = cli.manager.clone().into_options("cronjob");
    #[allow(unused_mut)] // mutated once `kubeforge create api` registers a controller
    let mut manager = Manager::new(client, options);
    controllers::cron_job::add_to_manager(&mut manager);
    // +kubeforge:scaffold:builder
    kubeforge::webhook::add_to_manager(&mut manager, webhooks, &cli.manager).await?;
    // +kubeforge:scaffold:webhook-server

    manager.run().await?;
    Ok(())
}
