//! `#[kubeforge::rbac]` on the function that builds a controller: the role grants what the
//! controller reconciles, owns and watches, read from the builder calls, with nothing listed
//! twice by hand.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::CustomResource;
use kubeforge::manifests::{self, ManifestsArgs};
use kubeforge::{Action, Controller, Manager};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The operator's kind.
#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "cache.example.com",
    version = "v1alpha1",
    kind = "Memcached",
    namespaced
)]
pub struct MemcachedSpec {
    /// Size.
    pub size: i32,
}

async fn reconcile(_: Arc<Memcached>, _: Arc<()>) -> Result<Action, std::io::Error> {
    Ok(Action::await_change())
}

/// Registers the controller; its kinds are the role's only source.
#[kubeforge::rbac]
pub fn add_to_manager(manager: &mut Manager) {
    let controller = Controller::<Memcached>::new(manager, "memcached")
        .owns::<Deployment>()
        .watches::<ConfigMap>(Vec::new(), |_| Vec::new());
    manager.add(controller.reconcile(reconcile, Arc::new(())));
}

#[test]
fn role_grants_what_the_builder_reconciles_owns_and_watches() {
    let generated = manifests::generate(&ManifestsArgs::default()).unwrap();
    let role = &generated
        .files
        .iter()
        .find(|(path, _)| path.ends_with("rbac/role.yaml"))
        .unwrap()
        .1;
    let role: serde_json::Value = serde_saphyr::from_str(role).unwrap();
    let rules = role["rules"].as_array().unwrap();
    let verbs_of = |group: &str, resource: &str| -> Vec<String> {
        rules
            .iter()
            .filter(|r| {
                r["apiGroups"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|g| g == group)
                    && r["resources"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|x| x == resource)
            })
            .flat_map(|r| r["verbs"].as_array().unwrap().clone())
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let memcacheds = verbs_of("cache.example.com", "memcacheds");
    for verb in ["get", "list", "watch", "update", "patch"] {
        assert!(
            memcacheds.iter().any(|v| v == verb),
            "memcacheds {verb}: {role}"
        );
    }
    assert!(
        verbs_of("cache.example.com", "memcacheds/status")
            .iter()
            .any(|v| v == "patch"),
        "{role}"
    );
    let deployments = verbs_of("apps", "deployments");
    for verb in ["create", "delete", "get", "list", "watch"] {
        assert!(
            deployments.iter().any(|v| v == verb),
            "deployments {verb}: {role}"
        );
    }
    let configmaps = verbs_of("", "configmaps");
    assert!(configmaps.iter().any(|v| v == "watch"), "{role}");
    assert!(
        !configmaps.iter().any(|v| v == "create"),
        "watching is read-only: {role}"
    );
}
