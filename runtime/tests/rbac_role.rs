//! RBAC declarations gathered into `config/rbac/role.yaml`: explicit rules, rules derived from
//! what a controller reconciles, owns and watches, merged, sorted and deterministic.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Service};
use kube::CustomResource;
use kubeforge::manifests::{self, ManifestsArgs};
use kubeforge::rbac::{self, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

/// A controller: what it reconciles, owns and watches, plus an explicit rule like
/// `+kubebuilder:rbac:groups=core,resources=events,verbs=create;patch`.
#[kubeforge::rbac(reconciles = Memcached, owns = [Deployment, Service], watches = ConfigMap)]
#[kubeforge::rbac(groups = "", resources = "events", verbs = "create;patch")]
#[kubeforge::rbac(groups = "", resources = "pods", verbs = ["get", "list"])]
#[kubeforge::rbac(
    groups = "coordination.k8s.io",
    resources = "leases",
    verbs = "get;create;update",
    namespace = "memcached-system"
)]
#[kubeforge::rbac(urls = "/metrics", verbs = "get")]
pub fn add_to_manager() {}

/// A second controller declaring an overlapping rule (merged, not duplicated).
#[kubeforge::rbac(groups = "", resources = "pods", verbs = "watch;get")]
pub mod other {}

#[test]
fn role_yaml_matches_golden() {
    let g = manifests::generate(&ManifestsArgs::default()).unwrap();
    let role = &g
        .files
        .iter()
        .find(|(p, _)| p.ends_with("rbac/role.yaml"))
        .unwrap()
        .1;
    insta::assert_snapshot!("role", role);
    let again = manifests::generate(&ManifestsArgs::default()).unwrap();
    assert_eq!(g, again);
}

#[test]
fn namespaced_projects_get_roles() {
    let g = manifests::generate(&ManifestsArgs {
        role_namespace: Some("team-a".into()),
        ..Default::default()
    })
    .unwrap();
    let role = &g
        .files
        .iter()
        .find(|(p, _)| p.ends_with("rbac/role.yaml"))
        .unwrap()
        .1;
    assert!(!role.contains("kind: ClusterRole"), "{role}");
    assert_eq!(role.matches("kind: Role").count(), 2, "{role}");
    assert!(
        role.contains("namespace: team-a") && role.contains("namespace: memcached-system"),
        "{role}"
    );
}

#[test]
fn derived_rules_follow_kubebuilder_scaffolding() {
    let rules = rbac::reconciles::<Memcached>();
    assert_eq!(
        rules[0],
        Rule::new(
            &["cache.example.com"],
            &["memcacheds"],
            &[
                "create", "delete", "get", "list", "patch", "update", "watch"
            ]
        )
    );
    assert_eq!(
        rules[1],
        Rule::new(
            &["cache.example.com"],
            &["memcacheds/status"],
            &["get", "patch", "update"]
        )
    );
    assert_eq!(
        rules[2],
        Rule::new(
            &["cache.example.com"],
            &["memcacheds/finalizers"],
            &["update"]
        )
    );
    assert_eq!(
        rbac::watches::<ConfigMap>(),
        vec![Rule::new(&[""], &["configmaps"], &["get", "list", "watch"])]
    );
}

#[test]
fn normalization_merges_verbs_then_resources() {
    let rules = rbac::normalize(&[
        Rule::new(&["apps"], &["deployments"], &["get"]),
        Rule::new(
            &["apps"],
            &["deployments", "statefulsets"],
            &["list", "get"],
        ),
        Rule::new(&["apps"], &["statefulsets"], &["get"]),
        Rule::new(&[""], &["secrets"], &["*", "get"]),
    ]);
    assert_eq!(
        rules,
        vec![
            Rule::new(&[""], &["secrets"], &["*"]),
            Rule::new(
                &["apps"],
                &["deployments", "statefulsets"],
                &["get", "list"]
            ),
        ]
    );
}

#[test]
fn missing_verbs_reports_what_no_declaration_grants() {
    let declared = rbac::declared_rules();
    assert!(
        rbac::missing_verbs(
            &declared,
            "apps",
            "deployments",
            &["get", "list", "watch", "create"]
        )
        .is_empty()
    );
    assert_eq!(
        rbac::missing_verbs(&declared, "", "configmaps", &["get", "create"]),
        vec!["create"]
    );
    assert_eq!(
        rbac::missing_verbs(&declared, "batch", "jobs", &["list"]),
        vec!["list"]
    );
    // Namespaced grants do not cover cluster-wide watches.
    assert_eq!(
        rbac::missing_verbs(&declared, "coordination.k8s.io", "leases", &["get"]),
        vec!["get"]
    );
    let wildcard = [Rule::new(&["*"], &["*"], &["*"])];
    assert!(rbac::missing_verbs(&wildcard, "x", "y", &["delete"]).is_empty());
}
