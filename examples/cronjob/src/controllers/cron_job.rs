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

//! The CronJob controller: converges every CronJob towards its spec and reports the result
//! in its status.

use kubeforge::prelude::*;

use crate::api::v1::CronJob;

/// The name of the controller (in logs, metrics and leader election).
pub const NAME: &str = "cronjob";

/// What a reconcile of a CronJob can fail with; failures are retried with backoff.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A call to the Kubernetes API failed.
    #[error("Kubernetes API call failed: {0}")]
    Kube(#[from] kube::Error),
}

/// What every reconcile of this controller shares.
pub struct Context {
    /// Client for writes and uncached reads.
    pub client: Client,
}

/// Reconciles one CronJob: reads its current state, converges the cluster towards its spec and
/// records what it observed in `status` (`observedGeneration` and a `Ready` condition). It is
/// level-triggered and idempotent: called again with the same object, it changes nothing.
pub async fn reconcile(obj: Arc<CronJob>, ctx: Arc<Context>) -> Result<Action, Error> {
    // TODO(user): converge the cluster towards obj.spec here (create, update or delete the
    // objects this kind stands for), then report the outcome below.
    let generation = obj.metadata.generation;
    let observed = generation.unwrap_or_default();
    let mut status = obj.status.clone().unwrap_or_default();
    let ready = Condition {
        type_: "Ready".into(),
        status: "True".into(),
        reason: "Reconciled".into(),
        message: format!("Reconciled at generation {observed}"),
        observed_generation: generation,
        last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
            k8s_openapi::jiff::Timestamp::now(),
        ),
    };
    let conditions_changed = conditions::set(&mut status.conditions, ready);
    if !conditions_changed && status.observed_generation == generation {
        return Ok(Action::await_change());
    }
    status.observed_generation = generation;

    // Write the status through the status subresource.
    let namespace = obj.namespace().unwrap_or_default();
    let api: Api<CronJob> = Api::namespaced(ctx.client.clone(), &namespace);
    let name = obj.name_any();
    let patch = serde_json::json!({ "status": status });
    api.patch_status(&name, &PatchParams::default(), &Patch::Merge(&patch))
        .await?;
    tracing::info!(%name, ?generation, "CronJob is ready");
    Ok(Action::await_change())
}

/// Registers the CronJob controller with the manager. `#[kubeforge::rbac]` reads the kinds
/// the controller is built with (`Controller::<K>::new`, `.owns::<C>()`, `.watches::<O>(..)`)
/// and grants the manager's role what they need; add `#[kubeforge::rbac(groups = .., resources =
/// .., verbs = ..)]` lines for anything else the reconcile reads or writes.
#[kubeforge::rbac]
pub fn add_to_manager(manager: &mut Manager) {
    let context = Arc::new(Context {
        client: manager.client(),
    });
    let controller = Controller::<CronJob>::new(manager, NAME);
    manager.add(controller.reconcile(reconcile, context));
}
