//! The worked example of docs/state-of-world.md, compiled and run so it cannot rot: a
//! `ReplicaPolicy` kind that targets Deployments and guarantees them a minimum number of
//! replicas, reconciled in state-of-world mode.
//!
//! Why state-of-world: whether a policy is accepted depends on every other policy targeting the
//! same Deployment (the oldest wins, Gateway API's conflict rule), and deleting the winner must
//! hand the Deployment to the next one. A per-object controller would need cross-object
//! indexes and requeues for that; here one function sees the whole world.

use k8s_openapi::api::apps::v1::Deployment;
use kubeforge::prelude::*;
use kubeforge::world::{Change, TargetRef};
use kubeforge_testenv::TestEnv;
use serde_json::json;

// --- the API type -------------------------------------------------------------------------

/// Keeps the targeted Deployment at `minReplicas` or more.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(
    group = "policy.example.com",
    version = "v1alpha1",
    kind = "ReplicaPolicy",
    namespaced,
    status = "ReplicaPolicyStatus"
)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaPolicySpec {
    /// The Deployment this policy applies to.
    pub target_ref: TargetRef,
    /// The fewest replicas the Deployment may run.
    pub min_replicas: i32,
}

/// Whether the policy is accepted and enforced.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
pub struct ReplicaPolicyStatus {
    /// `Accepted`: True, or False with reason `Conflicted` / `TargetNotFound`.
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

// --- the controller -----------------------------------------------------------------------

/// What every reconcile shares.
pub struct Context {
    client: Client,
}

/// The policy's verdict in this world.
fn verdict(snapshot: &Snapshot, policy: &ReplicaPolicy) -> (bool, &'static str, String) {
    let topology = snapshot.topology();
    let Some(target) = topology.targets_of::<Deployment>(policy).into_iter().next() else {
        let name = &policy.spec.target_ref.name;
        return (
            false,
            "TargetNotFound",
            format!("Deployment {name} does not exist"),
        );
    };
    // Every policy on the same Deployment: the oldest wins (then the name, for a stable order).
    let mut rivals = topology.policies_of::<ReplicaPolicy>(target.as_ref());
    rivals.sort_by_key(|p| (p.metadata.creation_timestamp.clone(), p.name_any()));
    match rivals.first() {
        Some(winner) if winner.name_any() != policy.name_any() => (
            false,
            "Conflicted",
            format!(
                "ReplicaPolicy {} already targets Deployment {}",
                winner.name_any(),
                target.name_any()
            ),
        ),
        _ => (
            true,
            "Accepted",
            format!("Enforced on Deployment {}", target.name_any()),
        ),
    }
}

/// Reconciles the whole world: every accepted policy's Deployment runs at least
/// `minReplicas`; every policy's status says whether it is accepted. Idempotent: writes only
/// what differs.
pub async fn reconcile(
    snapshot: Arc<Snapshot>,
    changes: Changes,
    ctx: Arc<Context>,
) -> Result<(), ReconcileError> {
    for change in changes.of::<ReplicaPolicy>() {
        if let Change::Deleted(p) = change {
            tracing::info!(policy = %p.name_any(), "policy deleted; its Deployment goes to the next one");
        }
    }
    for policy in snapshot.list::<ReplicaPolicy>() {
        let namespace = policy.namespace().unwrap_or_default();
        let (accepted, reason, message) = verdict(&snapshot, &policy);
        if accepted {
            for target in snapshot
                .topology()
                .targets_of::<Deployment>(policy.as_ref())
            {
                let replicas = target.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
                if replicas < policy.spec.min_replicas {
                    let deployments: Api<Deployment> =
                        Api::namespaced(ctx.client.clone(), &namespace);
                    let patch = json!({"spec": {"replicas": policy.spec.min_replicas}});
                    deployments
                        .patch(
                            &target.name_any(),
                            &PatchParams::default(),
                            &Patch::Merge(&patch),
                        )
                        .await?;
                }
            }
        }
        let mut status = policy.status.clone().unwrap_or_default();
        let condition = Condition {
            type_: "Accepted".into(),
            status: if accepted { "True" } else { "False" }.into(),
            reason: reason.into(),
            message,
            observed_generation: policy.metadata.generation,
            last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                k8s_openapi::jiff::Timestamp::now(),
            ),
        };
        if conditions::set(&mut status.conditions, condition) {
            let policies: Api<ReplicaPolicy> = Api::namespaced(ctx.client.clone(), &namespace);
            policies
                .patch_status(
                    &policy.name_any(),
                    &PatchParams::default(),
                    &Patch::Merge(json!({"status": status})),
                )
                .await?;
        }
    }
    Ok(())
}

/// Registers the controller: policies and Deployments in one world, linked by `targetRef`.
pub fn add_to_manager(manager: &mut Manager) {
    let context = Arc::new(Context {
        client: manager.client(),
    });
    let world = WorldController::new(manager, "replica-policies")
        .watches::<ReplicaPolicy>()
        .watches::<Deployment>()
        .debounce(Duration::from_millis(50))
        .resync(Duration::from_secs(300))
        .topology(
            Topology::new()
                .target_ref::<ReplicaPolicy, Deployment, _>(|p| p.spec.target_ref.clone()),
        )
        .reconcile(reconcile, context);
    manager.add(world);
}

// --- the scenario -------------------------------------------------------------------------

async fn deployment(api: &Api<Deployment>, name: &str, replicas: i32) -> anyhow::Result<()> {
    let labels = json!({"app": name});
    let d: Deployment = serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "app", "image": "nginx"}]}}
        }
    }))?;
    api.create(&PostParams::default(), &d).await?;
    Ok(())
}

async fn policy(
    api: &Api<ReplicaPolicy>,
    name: &str,
    target: &str,
    min: i32,
) -> anyhow::Result<()> {
    let p = ReplicaPolicy::new(
        name,
        ReplicaPolicySpec {
            target_ref: TargetRef::to::<Deployment>(target),
            min_replicas: min,
        },
    );
    api.create(&PostParams::default(), &p).await?;
    Ok(())
}

async fn wait_for<F, Fut>(what: &str, mut check: F) -> anyhow::Result<()>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<bool>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while !check().await? {
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

async fn reason(api: &Api<ReplicaPolicy>, name: &str) -> anyhow::Result<Option<String>> {
    let p = api.get(name).await?;
    Ok(p.status
        .and_then(|s| conditions::find(&s.conditions, "Accepted").map(|c| c.reason.clone())))
}

async fn replicas(api: &Api<Deployment>, name: &str) -> anyhow::Result<Option<i32>> {
    Ok(api.get(name).await?.spec.and_then(|s| s.replicas))
}

#[tokio::test]
async fn replica_policies_are_reconciled_as_one_world() -> anyhow::Result<()> {
    let env = TestEnv::builder()
        .crd(<ReplicaPolicy as kube::CustomResourceExt>::crd())
        .start()
        .await?;
    let deployments: Api<Deployment> = Api::namespaced(env.client(), env.namespace());
    let policies: Api<ReplicaPolicy> = Api::namespaced(env.client(), env.namespace());
    deployment(&deployments, "web", 1).await?;
    policy(&policies, "web-min-3", "web", 3).await?;
    policy(&policies, "web-min-5", "web", 5).await?;
    policy(&policies, "ghost", "missing", 2).await?;

    let mut manager = Manager::new(env.client(), ManagerOptions::default());
    add_to_manager(&mut manager);
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());

    wait_for("web scaled by the winning policy", || async {
        Ok(replicas(&deployments, "web").await? == Some(3)
            && reason(&policies, "web-min-3").await?.as_deref() == Some("Accepted")
            && reason(&policies, "web-min-5").await?.as_deref() == Some("Conflicted")
            && reason(&policies, "ghost").await?.as_deref() == Some("TargetNotFound"))
    })
    .await?;

    // The winner goes: the world hands web to the next policy.
    policies.delete("web-min-3", &Default::default()).await?;
    wait_for("the next policy takes over", || async {
        Ok(replicas(&deployments, "web").await? == Some(5)
            && reason(&policies, "web-min-5").await?.as_deref() == Some("Accepted"))
    })
    .await?;

    // The missing target appears: the dangling policy is accepted and enforced.
    deployment(&deployments, "missing", 1).await?;
    wait_for("the dangling policy's target", || async {
        Ok(replicas(&deployments, "missing").await? == Some(2)
            && reason(&policies, "ghost").await?.as_deref() == Some("Accepted"))
    })
    .await?;

    shutdown.shutdown();
    running.await??;
    Ok(())
}
