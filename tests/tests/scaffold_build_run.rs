//! Scaffold operators with `kubeforge`, build them, and run their own generated tests against
//! the embedded API server.
//!
//! One single-group project (one namespaced API) and one multigroup project (a namespaced API,
//! a cluster-scoped API, and controllers for the built-in Deployment and ConfigMap) cover every
//! template; both build into the workspace's target directory.

use std::path::Path;

use kubeforge_e2e::{build_lock, cargo, kubeforge, share_lockfile};

fn init(dir: &Path, name: &str, extra: &[&str]) {
    let mut args = vec!["init", "--domain", "example.com", "--project-name", name];
    args.extend_from_slice(extra);
    kubeforge(dir, &args);
    share_lockfile(dir);
}

#[test]
fn single_group_operator_builds_reconciles_and_writes_manifests() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    init(dir, "memcached-operator", &[]);
    kubeforge(
        dir,
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
        ],
    );

    let _build = build_lock();
    cargo(dir, &["fmt", "--check"]);
    let test = cargo(dir, &["test", "--", "--nocapture"]);
    assert!(
        test.stdout
            .contains("test memcached_sample_becomes_ready ... ok"),
        "the generated controller test ran and passed:\n{}",
        test.stdout
    );
    assert!(
        test.stdout
            .contains("reconciled Memcached memcached-sample"),
        "{}",
        test.stdout
    );

    // The manager binary: kubebuilder's flags, and the manifests subcommand.
    let help = cargo(dir, &["run", "--quiet", "--", "--help"]);
    for flag in [
        "--leader-elect",
        "--health-probe-bind-address",
        "--metrics-bind-address",
        "manifests",
    ] {
        assert!(
            help.stdout.contains(flag),
            "--help lacks {flag}:\n{}",
            help.stdout
        );
    }
    cargo(dir, &["run", "--quiet", "--", "manifests"]);
    let crd =
        std::fs::read_to_string(dir.join("config/crd/bases/cache.example.com_memcacheds.yaml"))
            .expect("manifests writes the CRD named in config/crd/kustomization.yaml");
    assert!(crd.contains("kind: CustomResourceDefinition"), "{crd}");
    assert!(crd.contains("subresources:"), "status subresource:\n{crd}");
    let role = std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    assert!(
        role.contains("memcacheds"),
        "the manager role covers the reconciled kind:\n{role}"
    );
}

#[test]
fn multigroup_operator_with_cluster_scoped_api_and_built_in_controllers() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    init(
        dir,
        "fleet-operator",
        &["--multigroup", "--license", "none"],
    );
    for args in [
        &[
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
        ][..],
        &[
            "--group",
            "infra",
            "--version",
            "v1",
            "--kind",
            "Cluster",
            "--namespaced=false",
        ],
        &[
            "--group",
            "apps",
            "--version",
            "v1",
            "--kind",
            "Deployment",
            "--resource=false",
        ],
        &[
            "--group",
            "core",
            "--version",
            "v1",
            "--kind",
            "ConfigMap",
            "--resource=false",
        ],
    ] {
        let mut all = vec!["create", "api"];
        all.extend_from_slice(args);
        kubeforge(dir, &all);
    }

    let _build = build_lock();
    cargo(dir, &["fmt", "--check"]);
    let test = cargo(dir, &["test", "--", "--nocapture"]);
    for name in [
        "memcached_sample_becomes_ready",
        "cluster_sample_becomes_ready",
        "deployment_is_reconciled",
        "config_map_is_reconciled",
    ] {
        assert!(
            test.stdout.contains(&format!("test {name} ... ok")),
            "{name} did not pass:\n{}",
            test.stdout
        );
    }
}
