//! Scaffold operators with `kubeforge`, build them, and run their own generated tests against
//! the embedded API server (and, when `KUBEBUILDER_ASSETS` names envtest's binaries, against a
//! private kube-apiserver: binaries mode).
//!
//! One single-group project (one namespaced API) and one multigroup, namespace-scoped project
//! (a namespaced API, a cluster-scoped API, controllers for the built-in Deployment and
//! ConfigMap, and a state-of-world controller) cover every template; both build into the workspace's target directory.
//!
//! Beside them: `torture` (every name the CLI accepts compiles, in one `cargo check`; every
//! name it refuses changes nothing), `tutorials` (the book's tutorials against `examples/`),
//! `packages` (`cargo install kubeforge-cli` from a local registry of the packaged crates;
//! opt-in, it builds in its own target directory) and `external` (`create api --external` on vendored real CRDs,
//! `alpha generate` of such a project).

/// `create api --external` on vendored real CRDs: generate, build, round-trip.
mod external;
#[path = "scaffold_build_run/packages.rs"]
mod packages;
#[path = "scaffold_build_run/torture.rs"]
mod torture;
#[path = "scaffold_build_run/tutorials.rs"]
mod tutorials;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use kubeforge_e2e::{
    ASSETS_VAR, build_lock, cargo, envtest_assets, kubeforge, make, share_lockfile, target_dir,
    workspace_root,
};

fn init(dir: &Path, name: &str, extra: &[&str]) {
    let mut args = vec!["init", "--domain", "example.com", "--project-name", name];
    args.extend_from_slice(extra);
    kubeforge(dir, &args);
    share_lockfile(dir);
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[track_caller]
fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "expected {needle:?} in:\n{text}");
}

/// Renders `config/default` with `kubectl kustomize` when kubectl is installed.
fn kustomize_default(dir: &Path) -> Option<String> {
    match std::process::Command::new("kubectl")
        .args(["kustomize", "config/default"])
        .current_dir(dir)
        .output()
    {
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success(),
                "kubectl kustomize config/default: {stderr}"
            );
            Some(String::from_utf8_lossy(&out.stdout).into_owned())
        }
        Err(e) => {
            eprintln!(
                "NOTE: kubectl is not installed ({e}): the kustomize rendering check did not run"
            );
            None
        }
    }
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
    assert_contains(&test.stdout, "test memcached_sample_becomes_ready ... ok");
    assert_contains(&test.stdout, "reconciled Memcached memcached-sample");

    // The manager binary: kubebuilder's flags, and the manifests subcommand.
    let help = cargo(dir, &["run", "--quiet", "--", "--help"]);
    for flag in [
        "--leader-elect",
        "--health-probe-bind-address",
        "--metrics-bind-address",
        "manifests",
    ] {
        assert_contains(&help.stdout, flag);
    }
    cargo(dir, &["run", "--quiet", "--", "manifests"]);
    let crd = read(dir, "config/crd/bases/cache.example.com_memcacheds.yaml");
    assert_contains(&crd, "kind: CustomResourceDefinition");
    assert_contains(&crd, "subresources:");
    let role = read(dir, "config/rbac/role.yaml");
    assert_contains(&role, "kind: ClusterRole");
    assert_contains(&role, "memcacheds");

    // The user adds a field with a validation attribute: `manifests --check` reports the drift
    // (for CI), and the regenerated CRD carries the field with its bounds.
    let type_file = dir.join("src/api/v1alpha1/memcached.rs");
    let source = read(dir, "src/api/v1alpha1/memcached.rs");
    let anchor = "pub struct MemcachedSpec {\n";
    assert_contains(&source, anchor);
    assert!(!crd.contains("replicas:"), "{crd}");
    let field = "    /// How many memcached instances to run.\n    \
                 #[kubeforge(minimum = 1, maximum = 5)]\n    \
                 #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    \
                 pub replicas: Option<i32>,\n";
    std::fs::write(
        &type_file,
        source.replacen(anchor, &format!("{anchor}{field}"), 1),
    )
    .unwrap();
    let mut command =
        std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    let check = kubeforge_e2e::without_test_vars(&mut command)
        .args(["run", "--quiet", "--", "manifests", "--check"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove(kubeforge_e2e::LINT_WRAPPER)
        .env_remove(kubeforge_e2e::LINT_ARGS)
        .output()
        .unwrap();
    assert!(
        !check.status.success(),
        "--check must fail once the type changed"
    );
    assert_contains(
        &String::from_utf8_lossy(&check.stderr),
        "cache.example.com_memcacheds.yaml",
    );
    cargo(dir, &["run", "--quiet", "--", "manifests"]);
    let crd = read(dir, "config/crd/bases/cache.example.com_memcacheds.yaml");
    let replicas: String = crd
        .split("replicas:")
        .nth(1)
        .unwrap_or_else(|| panic!("no replicas field in the CRD:\n{crd}"))
        .lines()
        .take(8)
        .collect::<Vec<_>>()
        .join("\n");
    for needle in [
        "maximum: 5",
        "minimum: 1",
        "type: integer",
        "How many memcached instances to run.",
    ] {
        assert_contains(&replicas, needle);
    }
    cargo(dir, &["run", "--quiet", "--", "manifests", "--check"]);

    // The kustomize bases render into one install manifest.
    if let Some(rendered) = kustomize_default(dir) {
        for needle in [
            "name: memcached-operator-controller-manager",
            "namespace: memcached-operator-system",
            "kind: CustomResourceDefinition",
            "name: memcached-operator-manager-role",
            "--metrics-bind-address=:8443",
            "name: memcached-operator-memcached-editor-role",
        ] {
            assert_contains(&rendered, needle);
        }
    }
}

/// The generated controller test of a scaffolded operator, run as a user runs it against
/// envtest's binaries (`make test KUBEFORGE_TEST_CLUSTER=binaries KUBEBUILDER_ASSETS=<dir>`):
/// the same test, unchanged, against a private etcd and kube-apiserver. Runs when
/// `KUBEBUILDER_ASSETS` is set or `../shared/realk8s` is next to the checkout.
#[test]
fn generated_tests_run_against_a_real_kube_apiserver_in_binaries_mode() {
    let assets = match envtest_assets() {
        Ok(assets) => assets,
        Err(reason) => {
            println!("SKIPPED: {reason}");
            return;
        }
    };
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    // The project of the single-group test: the same dependencies, built once.
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
    let test = make(
        dir,
        &["test"],
        &[
            ("KUBEFORGE_TEST_CLUSTER", "binaries"),
            (ASSETS_VAR, &assets),
            // libtest's --nocapture, through make: the test's own output shows the mode.
            ("RUST_TEST_NOCAPTURE", "1"),
        ],
    );
    assert_contains(&test.stdout, "API server: binaries");
    assert_contains(&test.stdout, "test memcached_sample_becomes_ready ... ok");
    assert_contains(&test.stdout, "reconciled Memcached memcached-sample");
    // `make test` wrote the manifests first, as it does against the embedded server.
    assert_contains(
        &read(dir, "config/crd/bases/cache.example.com_memcacheds.yaml"),
        "kind: CustomResourceDefinition",
    );
}

#[test]
fn multigroup_operator_with_cluster_scoped_api_and_built_in_controllers() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    init(
        dir,
        "fleet-operator",
        &["--multigroup", "--namespaced", "--license", "none"],
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
        &[
            "--group",
            "policy",
            "--version",
            "v1alpha1",
            "--kind",
            "RatePolicy",
            "--reconcile",
            "state-of-world",
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
        "rate_policy_world_converges_every_object",
    ] {
        assert_contains(&test.stdout, &format!("test {name} ... ok"));
    }

    // A namespaced project keeps its rules in a Role (what `make manifests` runs for it).
    cargo(
        dir,
        &[
            "run",
            "--quiet",
            "--",
            "manifests",
            "--role-namespace",
            "system",
        ],
    );
    let role = read(dir, "config/rbac/role.yaml");
    assert_contains(&role, "kind: Role");
    assert!(!role.contains("kind: ClusterRole"), "{role}");
    for resource in [
        "memcacheds",
        "clusters",
        "deployments",
        "configmaps",
        "ratepolicies",
    ] {
        assert_contains(&role, resource);
    }
    for crd in [
        "cache.example.com_memcacheds.yaml",
        "infra.example.com_clusters.yaml",
    ] {
        assert!(
            dir.join("config/crd/bases").join(crd).is_file(),
            "{crd} was not generated"
        );
    }
    assert_contains(&read(dir, "Makefile"), "manifests --role-namespace system");
    if let Some(rendered) = kustomize_default(dir) {
        assert_contains(&rendered, "kind: RoleBinding");
        assert_contains(&rendered, "name: WATCH_NAMESPACE");
    }
}

/// Each package's resolved features (`cargo tree -e <edges>` in `dir`), keyed by package: a
/// package built for the host and for the target can resolve twice, hence a set.
fn resolved_features(
    dir: &Path,
    edges: &str,
    workspace: bool,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut args = vec!["tree", "-e", edges, "-f", "{p} [{f}]", "--prefix", "none"];
    args.push("--no-dedupe");
    if workspace {
        args.push("--workspace");
    }
    let mut features: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in cargo(dir, &args).stdout.lines() {
        let line = line.replace(" (*)", "").replace(" (proc-macro)", "");
        if let Some((package, list)) = line.split_once(" [") {
            features
                .entry(package.to_owned())
                .or_default()
                .insert(list.to_owned());
        }
    }
    features
}

/// The packages of `a` that `b` also holds but never with a feature list `a` resolves: each
/// is a build of that package (and of everything above it) that `b`'s builds cannot serve.
fn not_served_by(
    a: &BTreeMap<String, BTreeSet<String>>,
    b: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    a.iter()
        .filter(|(package, features)| {
            b.get(*package)
                .is_some_and(|other| !features.is_subset(other))
        })
        .map(|(package, _)| package.split(' ').next().unwrap_or(package).to_owned())
        .collect()
}

/// Generated projects build into the workspace's target directory, and reuse its builds of
/// kube, k8s-openapi and the runtime only where cargo resolves the same features for them. A
/// feature only the workspace turns on (through a dev-dependency, say) makes every end-to-end
/// project build everything above it again; a feature only a project's dev-dependencies turn
/// on makes a user's first `cargo run` after `cargo test` build kube's stack a second time.
#[test]
fn generated_projects_resolve_the_features_of_the_workspace_build() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    init(dir, "feature-check", &[]);
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
    let run = resolved_features(dir, "normal,build", false);
    let test = resolved_features(dir, "normal,build,dev", false);
    let workspace = resolved_features(&workspace_root(), "normal,build,dev", true);
    assert_eq!(
        (not_served_by(&run, &test), not_served_by(&test, &run)),
        (Vec::<String>::new(), Vec::<String>::new()),
        "`cargo run` and `cargo test` of a generated project resolve these packages differently"
    );
    // The workspace builds more (the CLI's own syn, say), which costs a project nothing. Two
    // known misses, each one more build of kube's client stack and the runtime above it:
    // - bitflags' `std`, which the workspace turns on through tempfile (a dependency of insta),
    //   and which kube's client reaches through tower-http;
    // - serde_core's `alloc` on the host, which trybuild (a dev-dependency of the derive crate,
    //   so built for the host) turns on, and which kube-derive and kubeforge-derive reach.
    assert_eq!(
        not_served_by(&test, &workspace),
        vec!["bitflags".to_owned(), "serde_core".to_owned()],
        "a generated project and the workspace resolve these packages differently"
    );
}
