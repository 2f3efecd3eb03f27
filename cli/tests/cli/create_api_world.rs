//! `kubeforge create api --reconcile state-of-world`: a WorldController-based controller and its
//! test; refusals for modes that make no sense; the default stays per-object.

use crate::common;

use common::{create_api, kubeforge, project, read, refused};

#[test]
fn scaffolds_a_state_of_world_controller_and_its_test() {
    let temp = project(&[]);
    let dir = temp.path();
    kubeforge(
        dir,
        &create_api(
            "policy",
            "v1alpha1",
            "RatePolicy",
            &["--reconcile", "state-of-world"],
        ),
    )
    .success();

    let controller = read(dir, "src/controllers/rate_policy.rs");
    for needle in [
        "pub async fn reconcile(\n    snapshot: Arc<Snapshot>,\n    changes: Changes,\n    ctx: Arc<Context>,\n) -> Result<(), Error>",
        "WorldController::new(manager, NAME)",
        ".watches::<RatePolicy>()",
        ".resync(Duration::from_secs(300))",
        "#[kubeforge::rbac(reconciles = RatePolicy)]",
        "for obj in snapshot.list::<RatePolicy>()",
        "changes.of::<RatePolicy>()",
        "use crate::api::v1alpha1::RatePolicy;",
        "let api: Api<RatePolicy> = Api::namespaced(ctx.client.clone(), &namespace);",
    ] {
        assert!(
            controller.contains(needle),
            "controller lacks {needle:?}:\n{controller}"
        );
    }
    assert!(!controller.contains("Controller::<RatePolicy>"));

    let test = read(dir, "tests/rate_policy_controller.rs");
    for needle in [
        "async fn rate_policy_world_converges_every_object()",
        "rate_policy::add_to_manager(&mut manager);",
        "include_str!(\"../config/samples/policy_v1alpha1_ratepolicy.yaml\")",
        "with {} RatePolicy object(s) in the world",
    ] {
        assert!(test.contains(needle), "test lacks {needle:?}:\n{test}");
    }
    // Registered like any controller.
    assert!(
        read(dir, "src/main.rs")
            .contains("controllers::rate_policy::add_to_manager(&mut manager);")
    );
    assert!(read(dir, "src/controllers/mod.rs").contains("pub mod rate_policy;"));
}

#[test]
fn cluster_scoped_kinds_use_a_cluster_api() {
    let temp = project(&[]);
    let dir = temp.path();
    kubeforge(
        dir,
        &create_api(
            "policy",
            "v1",
            "ClusterPolicy",
            &["--namespaced=false", "--reconcile", "state-of-world"],
        ),
    )
    .success();
    let controller = read(dir, "src/controllers/cluster_policy.rs");
    assert!(controller.contains("let api: Api<ClusterPolicy> = Api::all(ctx.client.clone());"));
    assert!(!controller.contains("Api::namespaced"));
    assert!(read(dir, "tests/cluster_policy_controller.rs").contains("Api::all(env.client())"));
}

#[test]
fn the_default_stays_per_object() {
    let temp = project(&[]);
    let dir = temp.path();
    kubeforge(dir, &create_api("cache", "v1alpha1", "Memcached", &[])).success();
    let controller = read(dir, "src/controllers/memcached.rs");
    assert!(controller.contains("Controller::<Memcached>::new(manager, NAME)"));
    assert!(!controller.contains("WorldController"));
}

#[test]
fn refuses_state_of_world_without_a_controller_or_for_a_builtin_kind() {
    let temp = project(&[]);
    let dir = temp.path();
    refused(
        dir,
        &create_api(
            "policy",
            "v1alpha1",
            "RatePolicy",
            &["--controller=false", "--reconcile", "state-of-world"],
        ),
        &[
            "invalid --reconcile \"state-of-world\"",
            "used with a controller",
        ],
    );
    refused(
        dir,
        &create_api(
            "apps",
            "v1",
            "Deployment",
            &["--resource=false", "--reconcile", "state-of-world"],
        ),
        &[
            "the built-in kind Deployment",
            "add .watches::<K>() for the built-in kinds",
        ],
    );
    refused(
        dir,
        &create_api(
            "policy",
            "v1alpha1",
            "RatePolicy",
            &["--reconcile", "everything"],
        ),
        &["invalid value 'everything'", "per-object", "state-of-world"],
    );
}
