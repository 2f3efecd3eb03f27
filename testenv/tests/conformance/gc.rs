//! Garbage collection as kube-controller-manager's collector does it: propagation policies
//! (Background, Foreground, Orphan, the legacy `orphanDependents`), `blockOwnerDeletion`,
//! user finalizers holding an owner, cluster-scoped owners, dangling references, and the
//! order in which a watch sees it all.

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::rbac::v1::ClusterRole;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::Resource;
use kube::api::{
    Api, DeleteParams, ObjectMeta, Patch, PatchParams, PostParams, Preconditions, WatchEvent,
    WatchParams,
};
use serde_json::json;

use crate::common::{api_error, env};
use crate::semantics::wait_for;

const LABEL: &str = "kubeforge.dev/gc-test";
const HOLD: &str = "kubeforge.dev/hold";

fn reference<K: Resource<DynamicType = ()>>(owner: &K, block: bool) -> OwnerReference {
    OwnerReference {
        api_version: K::api_version(&()).into_owned(),
        kind: K::kind(&()).into_owned(),
        name: owner.meta().name.clone().unwrap(),
        uid: owner.meta().uid.clone().unwrap(),
        block_owner_deletion: block.then_some(true),
        controller: None,
    }
}

fn cm(name: &str, group: &str, owners: Vec<OwnerReference>, finalizers: &[&str]) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some([(LABEL.to_string(), group.to_string())].into()),
            owner_references: (!owners.is_empty()).then_some(owners),
            finalizers: (!finalizers.is_empty()).then(|| {
                finalizers
                    .iter()
                    .map(std::string::ToString::to_string)
                    .collect()
            }),
            ..Default::default()
        },
        ..Default::default()
    }
}

async fn create(cms: &Api<ConfigMap>, object: ConfigMap) -> ConfigMap {
    cms.create(&PostParams::default(), &object).await.unwrap()
}

async fn gone(cms: &Api<ConfigMap>, name: &str) -> bool {
    matches!(cms.get(name).await, Err(kube::Error::Api(s)) if s.code == 404)
}

async fn release(cms: &Api<ConfigMap>, name: &str) {
    cms.patch(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
}

/// Watches the configmaps of one test group from `rv` until `done` holds on the events seen
/// so far; returns them as (type, name, finalizers) in order.
async fn events_until(
    cms: &Api<ConfigMap>,
    group: &str,
    rv: &str,
    done: impl Fn(&[(String, String, Vec<String>)]) -> bool,
) -> Vec<(String, String, Vec<String>)> {
    let params = WatchParams::default()
        .labels(&format!("{LABEL}={group}"))
        .timeout(60);
    let mut stream = cms.watch(&params, rv).await.unwrap().boxed();
    let mut seen = Vec::new();
    while !done(&seen) {
        let event = tokio::time::timeout(Duration::from_secs(60), stream.try_next())
            .await
            .expect("an event within 60s")
            .expect("no watch error")
            .expect("the watch goes on");
        let (kind, object) = match event {
            WatchEvent::Added(o) => ("ADDED", o),
            WatchEvent::Modified(o) => ("MODIFIED", o),
            WatchEvent::Deleted(o) => ("DELETED", o),
            _ => continue,
        };
        seen.push((
            kind.to_string(),
            object.metadata.name.unwrap_or_default(),
            object.metadata.finalizers.unwrap_or_default(),
        ));
    }
    seen
}

fn position(events: &[(String, String, Vec<String>)], kind: &str, name: &str) -> usize {
    events
        .iter()
        .position(|(k, n, _)| k == kind && n == name)
        .unwrap_or_else(|| panic!("no {kind} event for {name} in {events:?}"))
}

fn deleted(events: &[(String, String, Vec<String>)], names: &[&str]) -> bool {
    names
        .iter()
        .all(|n| events.iter().any(|(k, m, _)| k == "DELETED" && m == n))
}

#[tokio::test]
async fn background_deletes_the_owner_then_its_dependents() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let owner = create(&cms, cm("bg-owner", "bg", vec![], &[])).await;
    for name in ["bg-a", "bg-b"] {
        create(&cms, cm(name, "bg", vec![reference(&owner, false)], &[])).await;
    }
    let rv = cms
        .get("bg-b")
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let answer = cms
        .delete("bg-owner", &DeleteParams::background())
        .await
        .unwrap();
    assert!(
        answer.is_right(),
        "a background deletion removes the owner at once"
    );
    let events = events_until(&cms, "bg", &rv, |e| deleted(e, &["bg-a", "bg-b"])).await;
    let owner_gone = position(&events, "DELETED", "bg-owner");
    assert!(owner_gone < position(&events, "DELETED", "bg-a"));
    assert!(owner_gone < position(&events, "DELETED", "bg-b"));
}

#[tokio::test]
async fn foreground_waits_for_blocking_dependents() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let owner = create(&cms, cm("fg-owner", "fg", vec![], &[])).await;
    create(
        &cms,
        cm("fg-blocking", "fg", vec![reference(&owner, true)], &[HOLD]),
    )
    .await;
    create(
        &cms,
        cm("fg-free", "fg", vec![reference(&owner, false)], &[]),
    )
    .await;
    let rv = cms
        .get("fg-free")
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();

    let answer = cms
        .delete("fg-owner", &DeleteParams::foreground())
        .await
        .unwrap();
    let marked = answer.left().expect("the owner stays while dependents go");
    assert!(marked.metadata.deletion_timestamp.is_some());
    assert!(
        marked
            .metadata
            .finalizers
            .unwrap_or_default()
            .contains(&"foregroundDeletion".to_string())
    );
    // The free dependent goes; the blocking one is held by its own finalizer, and holds
    // the owner.
    wait_for(|| gone(&cms, "fg-free")).await;
    wait_for(|| async {
        cms.get("fg-blocking")
            .await
            .is_ok_and(|c| c.metadata.deletion_timestamp.is_some())
    })
    .await;
    let owner_now = cms.get("fg-owner").await.unwrap();
    assert!(owner_now.metadata.deletion_timestamp.is_some());

    release(&cms, "fg-blocking").await;
    wait_for(|| gone(&cms, "fg-owner")).await;
    let events = events_until(&cms, "fg", &rv, |e| deleted(e, &["fg-owner"])).await;
    let marked_at = events
        .iter()
        .position(|(k, n, f)| {
            k == "MODIFIED" && n == "fg-owner" && f.contains(&"foregroundDeletion".to_string())
        })
        .expect("the owner is first marked");
    let blocking_gone = position(&events, "DELETED", "fg-blocking");
    assert!(marked_at < position(&events, "DELETED", "fg-free"));
    assert!(marked_at < blocking_gone);
    assert!(blocking_gone < position(&events, "DELETED", "fg-owner"));
}

#[tokio::test]
async fn orphan_removes_references_before_the_owner_goes() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let owner = create(&cms, cm("or-owner", "or", vec![], &[])).await;
    create(
        &cms,
        cm("or-kept", "or", vec![reference(&owner, true)], &[]),
    )
    .await;
    let rv = cms
        .get("or-kept")
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let answer = cms
        .delete("or-owner", &DeleteParams::orphan())
        .await
        .unwrap();
    let marked = answer.left().expect("the owner waits for the orphaning");
    assert_eq!(marked.metadata.finalizers, Some(vec!["orphan".to_string()]));
    let events = events_until(&cms, "or", &rv, |e| deleted(e, &["or-owner"])).await;
    let released = position(&events, "MODIFIED", "or-kept");
    assert!(position(&events, "MODIFIED", "or-owner") < released);
    assert!(released < position(&events, "DELETED", "or-owner"));
    let kept = cms.get("or-kept").await.unwrap();
    // The collector's patch goes through the field manager: no manager owns the reference it
    // dropped any more.
    let managers = kept.metadata.managed_fields.clone().unwrap_or_default();
    let owned: Vec<serde_json::Value> = managers
        .into_iter()
        .map(|e| serde_json::to_value(e.fields_v1).unwrap())
        .collect();
    assert!(
        owned
            .iter()
            .any(|f| f["f:metadata"]["f:labels"].is_object())
    );
    for fields in owned {
        assert!(
            fields["f:metadata"].get("f:ownerReferences").is_none(),
            "{fields}"
        );
    }
    assert!(
        kept.metadata
            .owner_references
            .unwrap_or_default()
            .is_empty()
    );
}

#[tokio::test]
async fn legacy_orphan_dependents_option() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let owner = create(&cms, cm("legacy-owner", "legacy", vec![], &[])).await;
    create(
        &cms,
        cm("legacy-kept", "legacy", vec![reference(&owner, false)], &[]),
    )
    .await;
    let url = format!(
        "/api/v1/namespaces/{}/configmaps/legacy-owner",
        env.namespace()
    );
    let body = serde_json::to_vec(&json!({
        "kind": "DeleteOptions", "apiVersion": "v1", "orphanDependents": true,
    }))
    .unwrap();
    let request = http::Request::delete(&url)
        .header("content-type", "application/json")
        .body(body)
        .unwrap();
    env.client().request_text(request).await.unwrap();
    wait_for(|| gone(&cms, "legacy-owner")).await;
    wait_for(|| async {
        cms.get("legacy-kept")
            .await
            .is_ok_and(|c| c.metadata.owner_references.unwrap_or_default().is_empty())
    })
    .await;

    // orphanDependents together with a propagation policy is refused.
    let body = serde_json::to_vec(&json!({
        "orphanDependents": false, "propagationPolicy": "Foreground",
    }))
    .unwrap();
    let request = http::Request::delete(format!(
        "/api/v1/namespaces/{}/configmaps/legacy-kept",
        env.namespace()
    ))
    .header("content-type", "application/json")
    .body(body)
    .unwrap();
    let status = api_error(env.client().request::<ConfigMap>(request).await);
    assert_eq!(status.code, 422);
    assert!(
        status
            .message
            .contains("orphanDependents and deletionPropagation cannot be both set"),
        "{}",
        status.message
    );
}

#[tokio::test]
async fn user_finalizers_hold_the_owner_and_its_dependents() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let owner = create(&cms, cm("held-owner", "held", vec![], &[HOLD])).await;
    create(
        &cms,
        cm("held-dep", "held", vec![reference(&owner, false)], &[]),
    )
    .await;
    cms.delete("held-owner", &DeleteParams::background())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        cms.get("held-owner").await.is_ok(),
        "the finalizer holds the owner"
    );
    assert!(
        cms.get("held-dep").await.is_ok(),
        "a live owner keeps its dependent"
    );
    release(&cms, "held-owner").await;
    wait_for(|| gone(&cms, "held-owner")).await;
    wait_for(|| gone(&cms, "held-dep")).await;
}

#[tokio::test]
async fn cluster_scoped_owner_of_namespaced_dependents() {
    let env = env().await;
    let roles: Api<ClusterRole> = Api::all(env.client());
    let name = format!("{}-gc-owner", env.namespace());
    let role = roles
        .create(
            &PostParams::default(),
            &ClusterRole {
                metadata: ObjectMeta {
                    name: Some(name.clone()),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    create(&cms, cm("cs-dep", "cs", vec![reference(&role, false)], &[])).await;
    roles.delete(&name, &DeleteParams::default()).await.unwrap();
    wait_for(|| gone(&cms, "cs-dep")).await;
}

#[tokio::test]
async fn cluster_scoped_dependent_of_a_namespaced_owner_is_left_alone() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let owner = create(&cms, cm("ns-owner", "nsowner", vec![], &[])).await;
    let roles: Api<ClusterRole> = Api::all(env.client());
    let name = format!("{}-gc-dependent", env.namespace());
    roles
        .create(
            &PostParams::default(),
            &ClusterRole {
                metadata: ObjectMeta {
                    name: Some(name.clone()),
                    owner_references: Some(vec![reference(&owner, false)]),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .await
        .unwrap();
    cms.delete("ns-owner", &DeleteParams::default())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        roles.get(&name).await.is_ok(),
        "the reference cannot be resolved: the collector leaves the dependent alone"
    );
    roles.delete(&name, &DeleteParams::default()).await.unwrap();
}

#[tokio::test]
async fn an_owner_recreated_with_another_uid_is_gone() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let first = create(&cms, cm("re-owner", "re", vec![], &[])).await;
    cms.delete("re-owner", &DeleteParams::default())
        .await
        .unwrap();
    wait_for(|| gone(&cms, "re-owner")).await;
    let second = create(&cms, cm("re-owner", "re", vec![], &[])).await;
    assert_ne!(first.metadata.uid, second.metadata.uid);
    let other = create(&cms, cm("re-other", "re", vec![], &[])).await;
    // Owned by the live `re-other` and by the first, gone, `re-owner`.
    create(
        &cms,
        cm(
            "re-dep",
            "re",
            vec![reference(&other, false), reference(&first, false)],
            &[],
        ),
    )
    .await;
    // Owned by `re-other` and the second `re-owner`: it survives `re-other`, and only
    // loses the dangling reference.
    create(
        &cms,
        cm(
            "re-kept",
            "re",
            vec![reference(&other, false), reference(&second, false)],
            &[],
        ),
    )
    .await;
    cms.delete("re-other", &DeleteParams::default())
        .await
        .unwrap();
    wait_for(|| gone(&cms, "re-dep")).await;
    wait_for(|| async {
        cms.get("re-kept").await.is_ok_and(|c| {
            let refs = c.metadata.owner_references.unwrap_or_default();
            refs.len() == 1 && refs[0].uid == *second.metadata.uid.as_ref().unwrap()
        })
    })
    .await;
}

#[tokio::test]
async fn delete_options_preconditions_grace_and_dry_run() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let owner = create(&cms, cm("opt-owner", "opt", vec![], &[])).await;
    create(
        &cms,
        cm("opt-dep", "opt", vec![reference(&owner, true)], &[]),
    )
    .await;

    let stale_uid = DeleteParams {
        preconditions: Some(Preconditions {
            uid: Some("not-the-uid".into()),
            resource_version: None,
        }),
        ..Default::default()
    };
    assert_eq!(
        api_error(cms.delete("opt-owner", &stale_uid).await).code,
        409
    );
    let stale_rv = DeleteParams {
        preconditions: Some(Preconditions {
            uid: owner.metadata.uid.clone(),
            resource_version: Some("1".into()),
        }),
        ..Default::default()
    };
    assert_eq!(
        api_error(cms.delete("opt-owner", &stale_rv).await).code,
        409
    );

    let dry = DeleteParams {
        dry_run: true,
        ..DeleteParams::foreground()
    };
    let answer = cms.delete("opt-owner", &dry).await.unwrap();
    assert!(
        answer
            .left()
            .is_some_and(|o| o.metadata.deletion_timestamp.is_some())
    );
    let still = cms.get("opt-owner").await.unwrap();
    assert!(still.metadata.deletion_timestamp.is_none());
    assert!(still.metadata.finalizers.is_none());
    assert!(cms.get("opt-dep").await.is_ok());

    let request = http::Request::delete(format!(
        "/api/v1/namespaces/{}/configmaps/opt-owner?propagationPolicy=Sideways",
        env.namespace()
    ))
    .body(Vec::new())
    .unwrap();
    let status = api_error(env.client().request::<ConfigMap>(request).await);
    assert_eq!(status.code, 422, "{}", status.message);
    assert!(status.message.contains("Unsupported value: \"Sideways\""));

    // A grace period does not keep an object without graceful deletion.
    let graceful = DeleteParams {
        grace_period_seconds: Some(30),
        preconditions: Some(Preconditions {
            uid: owner.metadata.uid.clone(),
            resource_version: None,
        }),
        ..Default::default()
    };
    cms.delete("opt-owner", &graceful).await.unwrap();
    wait_for(|| gone(&cms, "opt-owner")).await;
    wait_for(|| gone(&cms, "opt-dep")).await;
}

#[tokio::test]
async fn foreground_cascades_through_a_chain() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let top = create(&cms, cm("chain-top", "chain", vec![], &[])).await;
    let mid = create(
        &cms,
        cm("chain-mid", "chain", vec![reference(&top, true)], &[]),
    )
    .await;
    create(
        &cms,
        cm("chain-leaf", "chain", vec![reference(&mid, true)], &[HOLD]),
    )
    .await;
    let rv = cms
        .get("chain-leaf")
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    cms.delete("chain-top", &DeleteParams::foreground())
        .await
        .unwrap();
    // The middle object is deleted in the foreground too (it has a dependent), so both
    // wait for the held leaf.
    wait_for(|| async {
        cms.get("chain-mid").await.is_ok_and(|c| {
            c.metadata.deletion_timestamp.is_some()
                && c.metadata
                    .finalizers
                    .unwrap_or_default()
                    .contains(&"foregroundDeletion".to_string())
        })
    })
    .await;
    assert!(cms.get("chain-top").await.is_ok());
    release(&cms, "chain-leaf").await;
    wait_for(|| gone(&cms, "chain-top")).await;
    let events = events_until(&cms, "chain", &rv, |e| deleted(e, &["chain-top"])).await;
    let leaf = position(&events, "DELETED", "chain-leaf");
    let mid = position(&events, "DELETED", "chain-mid");
    assert!(leaf < mid && mid < position(&events, "DELETED", "chain-top"));
}

#[tokio::test]
async fn a_bound_pod_waits_for_its_grace_period() {
    use k8s_openapi::api::core::v1::{Container, Pod, PodSpec};
    let env = env().await;
    let pods: Api<Pod> = Api::namespaced(env.client(), env.namespace());
    let pod = Pod {
        metadata: ObjectMeta {
            name: Some("graceful".into()),
            ..Default::default()
        },
        spec: Some(PodSpec {
            node_name: Some("kubeforge-no-such-node".into()),
            termination_grace_period_seconds: Some(45),
            containers: vec![Container {
                name: "main".into(),
                image: Some("registry.k8s.io/pause:3.10".into()),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    };
    pods.create(&PostParams::default(), &pod).await.unwrap();
    let answer = pods
        .delete("graceful", &DeleteParams::default())
        .await
        .unwrap();
    let pending = answer.left().expect("a bound pod waits for its kubelet");
    assert_eq!(pending.metadata.deletion_grace_period_seconds, Some(45));
    assert!(pending.metadata.deletion_timestamp.is_some());
    assert!(pods.get("graceful").await.is_ok());
    // A shorter period replaces the longer one; zero removes the pod at once.
    let shorter = pods
        .delete("graceful", &DeleteParams::default().grace_period(10))
        .await
        .unwrap();
    assert_eq!(
        shorter
            .left()
            .unwrap()
            .metadata
            .deletion_grace_period_seconds,
        Some(10)
    );
    pods.delete("graceful", &DeleteParams::default().grace_period(0))
        .await
        .unwrap();
    let gone_pod = || async {
        matches!(pods.get("graceful").await, Err(kube::Error::Api(s)) if s.code == 404)
    };
    wait_for(gone_pod).await;
}

#[tokio::test]
async fn a_second_delete_with_another_policy_swaps_the_finalizers() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let owner = create(&cms, cm("swap-owner", "swap", vec![], &[])).await;
    create(
        &cms,
        cm("swap-held", "swap", vec![reference(&owner, true)], &[HOLD]),
    )
    .await;
    cms.delete("swap-owner", &DeleteParams::foreground())
        .await
        .unwrap();
    wait_for(|| async {
        cms.get("swap-held")
            .await
            .is_ok_and(|c| c.metadata.deletion_timestamp.is_some())
    })
    .await;
    assert!(
        cms.get("swap-owner").await.is_ok(),
        "held by its blocking dependent"
    );
    // Orphan now: the owner stops waiting, its dependent loses the reference.
    cms.delete("swap-owner", &DeleteParams::orphan())
        .await
        .unwrap();
    wait_for(|| gone(&cms, "swap-owner")).await;
    let held = cms.get("swap-held").await.unwrap();
    assert!(
        held.metadata
            .owner_references
            .unwrap_or_default()
            .is_empty()
    );
    release(&cms, "swap-held").await;
}

#[tokio::test]
async fn replication_controllers_orphan_by_default() {
    use k8s_openapi::api::core::v1::ReplicationController;
    let env = env().await;
    let rcs: Api<ReplicationController> = Api::namespaced(env.client(), env.namespace());
    let rc: ReplicationController = serde_json::from_value(json!({
        "metadata": {"name": "legacy-rc"},
        "spec": {"replicas": 0, "selector": {"app": "legacy"}, "template": {
            "metadata": {"labels": {"app": "legacy"}},
            "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]}}},
    }))
    .unwrap();
    let rc = rcs.create(&PostParams::default(), &rc).await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    create(&cms, cm("rc-dep", "rc", vec![reference(&rc, false)], &[])).await;
    rcs.delete("legacy-rc", &DeleteParams::default())
        .await
        .unwrap();
    wait_for(|| async {
        matches!(rcs.get("legacy-rc").await, Err(kube::Error::Api(s)) if s.code == 404)
    })
    .await;
    wait_for(|| async {
        cms.get("rc-dep")
            .await
            .is_ok_and(|c| c.metadata.owner_references.unwrap_or_default().is_empty())
    })
    .await;
}

#[tokio::test]
async fn a_dependent_created_for_an_absent_owner_is_collected() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let live = create(&cms, cm("va-live", "va", vec![], &[])).await;
    let mut ghost = reference(&live, false);
    ghost.name = "va-ghost".into();
    ghost.uid = "00000000-0000-0000-0000-000000000000".into();
    cms.create(
        &PostParams::default(),
        &cm("va-orphan", "va", vec![ghost.clone()], &[]),
    )
    .await
    .unwrap();
    cms.create(
        &PostParams::default(),
        &cm("va-mixed", "va", vec![reference(&live, false), ghost], &[]),
    )
    .await
    .unwrap();
    wait_for(|| gone(&cms, "va-orphan")).await;
    wait_for(|| async {
        cms.get("va-mixed")
            .await
            .is_ok_and(|c| c.metadata.owner_references.unwrap_or_default().len() == 1)
    })
    .await;
}
