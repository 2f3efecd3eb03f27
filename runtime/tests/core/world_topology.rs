//! The topology of a state-of-world snapshot: a policy targeting Deployments, owner references
//! from Deployments to ReplicaSets, label selectors from ReplicaSets and Services to Pods, a
//! route naming its parent gateway; parents, children, targets, policies and paths.

use k8s_openapi::{
    api::{
        apps::v1::{Deployment, DeploymentSpec, ReplicaSet, ReplicaSetSpec},
        core::v1::{Pod, Service, ServiceSpec},
    },
    apimachinery::pkg::apis::meta::v1::{LabelSelector, OwnerReference},
};
use kube::{CustomResource, api::ObjectMeta};
use kubeforge::world::{NodeRef, ObjectKey, Snapshot, TargetRef, Topology};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(
    group = "policy.example.com",
    version = "v1",
    kind = "Policy",
    namespaced
)]
pub struct PolicySpec {
    pub target_ref: TargetRef,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(
    group = "net.example.com",
    version = "v1",
    kind = "Gateway",
    namespaced
)]
pub struct GatewaySpec {}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "net.example.com", version = "v1", kind = "Route", namespaced)]
pub struct RouteSpec {
    pub parent_refs: Vec<String>,
    pub backend: String,
}

fn meta(name: &str, labels: &[(&str, &str)]) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        namespace: Some("shop".into()),
        uid: Some(format!("uid-{name}")),
        labels: Some(
            labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        ),
        ..Default::default()
    }
}

fn selector(app: &str) -> LabelSelector {
    LabelSelector {
        match_labels: Some(BTreeMap::from([("app".to_string(), app.to_string())])),
        ..Default::default()
    }
}

fn deployment(name: &str) -> Deployment {
    Deployment {
        metadata: meta(name, &[]),
        spec: Some(DeploymentSpec {
            selector: selector(name),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn replica_set(name: &str, owner: &str) -> ReplicaSet {
    let mut metadata = meta(name, &[]);
    metadata.owner_references = Some(vec![OwnerReference {
        api_version: "apps/v1".into(),
        kind: "Deployment".into(),
        name: owner.into(),
        uid: format!("uid-{owner}"),
        controller: Some(true),
        ..Default::default()
    }]);
    ReplicaSet {
        metadata,
        spec: Some(ReplicaSetSpec {
            selector: selector(owner),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn pod(name: &str, app: &str) -> Pod {
    Pod {
        metadata: meta(name, &[("app", app)]),
        ..Default::default()
    }
}

fn policy(name: &str, target: TargetRef) -> Policy {
    Policy {
        metadata: meta(name, &[]),
        spec: PolicySpec { target_ref: target },
    }
}

fn topology() -> Topology {
    Topology::new()
        .target_ref::<Policy, Deployment, _>(|p| p.spec.target_ref.clone())
        .owner::<Deployment, ReplicaSet>()
        .label_selector::<ReplicaSet, Pod, _>(|rs| {
            rs.spec.as_ref().and_then(|s| s.selector.clone().into())
        })
        .label_selector::<Service, Pod, _>(|s| s.spec.as_ref().and_then(|s| s.selector.clone()))
        .parent_ref::<Route, Gateway, _>(|r| r.spec.parent_refs.clone())
        .target_ref::<Route, Service, _>(|r| r.spec.backend.clone())
}

fn snapshot() -> Snapshot {
    Snapshot::builder()
        .topology(topology())
        .object(deployment("web"))
        .object(deployment("api"))
        .object(replica_set("web-1", "web"))
        .object(replica_set("api-1", "api"))
        // Same name, wrong uid: a stale reference to an earlier "web" is no link.
        .object({
            let mut rs = replica_set("web-old", "web");
            rs.metadata.owner_references.as_mut().unwrap()[0].uid = "uid-gone".into();
            rs
        })
        .object(pod("web-a", "web"))
        .object(pod("web-b", "web"))
        .object(pod("api-a", "api"))
        // Same labels, other namespaces: never selected across namespaces.
        .object({
            let mut p = pod("web-elsewhere", "web");
            p.metadata.namespace = Some("shop-2".into());
            p
        })
        .object({
            let mut p = pod("web-before", "web");
            p.metadata.namespace = Some("sho".into());
            p
        })
        .object(policy("rate-limit", TargetRef::to::<Deployment>("web")))
        .object(policy("dangling", TargetRef::to::<Deployment>("missing")))
        .object(policy(
            "wrong-kind",
            TargetRef {
                group: "apps".into(),
                kind: "StatefulSet".into(),
                name: "web".into(),
                namespace: None,
            },
        ))
        .object(Service {
            metadata: meta("web", &[]),
            spec: Some(ServiceSpec {
                selector: Some(BTreeMap::from([("app".to_string(), "web".to_string())])),
                ..Default::default()
            }),
            ..Default::default()
        })
        .object(Gateway {
            metadata: meta("edge", &[]),
            spec: GatewaySpec {},
        })
        .object(Route {
            metadata: meta("shop", &[]),
            spec: RouteSpec {
                parent_refs: vec!["edge".into()],
                backend: "web".into(),
            },
        })
        .build()
}

fn names<K: kube::Resource>(objects: &[std::sync::Arc<K>]) -> Vec<String> {
    let mut names: Vec<String> = objects
        .iter()
        .map(|o| o.meta().name.clone().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn policies_find_their_targets_and_targets_their_policies() {
    let snapshot = snapshot();
    let topology = snapshot.topology();
    let web = snapshot.get::<Deployment>(Some("shop"), "web").unwrap();
    let rate_limit = snapshot.get::<Policy>(Some("shop"), "rate-limit").unwrap();
    assert_eq!(
        names(&topology.targets_of::<Deployment>(rate_limit.as_ref())),
        ["web"]
    );
    assert_eq!(
        names(&topology.policies_of::<Policy>(web.as_ref())),
        ["rate-limit"]
    );
    let dangling = snapshot.get::<Policy>(Some("shop"), "dangling").unwrap();
    assert!(
        topology
            .targets_of::<Deployment>(dangling.as_ref())
            .is_empty()
    );
    let wrong = snapshot.get::<Policy>(Some("shop"), "wrong-kind").unwrap();
    assert!(topology.targets_of::<Deployment>(wrong.as_ref()).is_empty());
}

#[test]
fn owner_references_and_label_selectors_link_parents_and_children() {
    let snapshot = snapshot();
    let topology = snapshot.topology();
    let web = snapshot.get::<Deployment>(Some("shop"), "web").unwrap();
    assert_eq!(
        names(&topology.children::<ReplicaSet>(web.as_ref())),
        ["web-1"]
    );
    let rs = snapshot.get::<ReplicaSet>(Some("shop"), "web-1").unwrap();
    assert_eq!(
        names(&topology.children::<Pod>(rs.as_ref())),
        ["web-a", "web-b"]
    );
    assert_eq!(names(&topology.parents::<Deployment>(rs.as_ref())), ["web"]);
    let pod = snapshot.get::<Pod>(Some("shop"), "web-a").unwrap();
    assert_eq!(names(&topology.parents::<Service>(pod.as_ref())), ["web"]);
    // Selectors link independently of ownership: the orphaned ReplicaSet selects the pod too.
    assert_eq!(
        names(&topology.parents::<ReplicaSet>(pod.as_ref())),
        ["web-1", "web-old"]
    );
    let stale = snapshot.get::<ReplicaSet>(Some("shop"), "web-old").unwrap();
    assert!(topology.parents::<Deployment>(stale.as_ref()).is_empty());
}

#[test]
fn paths_run_from_a_policy_to_the_pods_it_governs() {
    let snapshot = snapshot();
    let topology = snapshot.topology();
    let policy = snapshot.get::<Policy>(Some("shop"), "rate-limit").unwrap();
    let pod = snapshot.get::<Pod>(Some("shop"), "web-b").unwrap();
    let paths = topology.paths(policy.as_ref(), pod.as_ref());
    let node = |kind: &str, name: &str| NodeRef {
        kind: kind.into(),
        key: ObjectKey::new(Some("shop"), name),
    };
    assert_eq!(
        paths,
        vec![vec![
            node("policy.example.com/v1/Policy", "rate-limit"),
            node("apps/v1/Deployment", "web"),
            node("apps/v1/ReplicaSet", "web-1"),
            node("v1/Pod", "web-b"),
        ]]
    );
    let api_pod = snapshot.get::<Pod>(Some("shop"), "api-a").unwrap();
    assert!(topology.paths(policy.as_ref(), api_pod.as_ref()).is_empty());

    // Gateway -> Route (the route names its parent) -> Service (the route names its backend) -> Pods.
    let gateway = snapshot.get::<Gateway>(Some("shop"), "edge").unwrap();
    let reached: Vec<String> = topology
        .descendants(gateway.as_ref())
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        reached,
        [
            "net.example.com/v1/Route shop/shop",
            "v1/Service shop/web",
            "v1/Pod shop/web-a",
            "v1/Pod shop/web-b",
        ]
    );
    assert_eq!(topology.paths(gateway.as_ref(), pod.as_ref()).len(), 1);
}
