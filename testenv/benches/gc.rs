//! One-run benchmark of garbage collection: the time from deleting an owner to all of its
//! 1,000 dependents gone, with Background and Foreground propagation, measured through
//! kube::Client over HTTPS on 127.0.0.1 (the DELETE call, then a watch seeing the last
//! DELETED event).
//!
//! Run with `cargo bench -p kubeforge-testenv --bench gc`; the figures go in the README.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams, WatchEvent, WatchParams};
use kubeforge_testenv::TestEnv;

const DEPENDENTS: usize = 1_000;

fn cm(name: String, owner: Option<OwnerReference>) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name),
            owner_references: owner.map(|o| vec![o]),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Creates an owner and its dependents, deletes the owner with `policy`, and returns (the
/// DELETE call, until the last dependent's DELETED event).
async fn run(env: &TestEnv, policy: &str) -> (Duration, Duration) {
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let owner_name = format!("owner-{}", policy.to_lowercase());
    let owner = cms
        .create(&PostParams::default(), &cm(owner_name.clone(), None))
        .await
        .expect("owner");
    let reference = OwnerReference {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: owner_name.clone(),
        uid: owner.metadata.uid.clone().expect("uid"),
        block_owner_deletion: Some(true),
        controller: Some(true),
    };
    let mut names = HashSet::new();
    for i in 0..DEPENDENTS {
        let name = format!("{owner_name}-dep-{i}");
        cms.create(
            &PostParams::default(),
            &cm(name.clone(), Some(reference.clone())),
        )
        .await
        .expect("dependent");
        names.insert(name);
    }
    let rv = cms
        .get(&format!("{owner_name}-dep-{}", DEPENDENTS - 1))
        .await
        .expect("last dependent")
        .metadata
        .resource_version
        .expect("rv");
    let mut events = cms
        .watch(&WatchParams::default().timeout(120), &rv)
        .await
        .expect("watch")
        .boxed();
    let params = match policy {
        "Foreground" => DeleteParams::foreground(),
        _ => DeleteParams::background(),
    };
    let start = Instant::now();
    cms.delete(&owner_name, &params).await.expect("delete");
    let call = start.elapsed();
    while !names.is_empty() {
        match events.next().await {
            Some(Ok(WatchEvent::Deleted(o))) => {
                names.remove(&o.metadata.name.unwrap_or_default());
            }
            Some(Ok(_)) => {}
            other => panic!("watch ended early: {other:?}"),
        }
    }
    (call, start.elapsed())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let env = TestEnv::start().await.expect("start");
    for policy in ["Background", "Foreground"] {
        let (call, all_gone) = run(&env, policy).await;
        println!(
            "{policy}: owner + {DEPENDENTS} dependents: DELETE answered in {:.1} ms, all dependents gone (last DELETED seen by a watch) after {:.1} ms",
            call.as_secs_f64() * 1000.0,
            all_gone.as_secs_f64() * 1000.0
        );
    }
}
