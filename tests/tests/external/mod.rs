//! `kubeforge create api --external` on real CRDs users meet daily (vendored with their
//! licences in cli/tests/fixtures/crds/): one project generates the types of every one (every
//! served version), plus kubeforge's own test kinds, and a controller for cert-manager's
//! Certificate. The project builds once (that is the compile check of all generated code), and
//! its tests run: the Certificate controller against the test environment's API server with the
//! vendored CRD installed, and `round_trip.rs`, which sends kubeforge's example objects of every
//! kind through that API server under the vendored CRD and under the CRD regenerated from the
//! Rust types, reads objects without spec where the CRD allows that, and round-trips an object
//! of a kind whose schema nests 200 objects (its CRD is generated here: [`deep_crd`]).
//!
//! The API server is the embedded one, or a real control plane with
//! `KUBEFORGE_TEST_CLUSTER=binaries` and `KUBEBUILDER_ASSETS` (the project's tests inherit the
//! environment; `TestEnv` picks the mode from it).

mod regenerate;

use std::path::Path;

use kubeforge_e2e::{build_lock, cargo, kubeforge, share_lockfile, workspace_root};

/// The CRD files, relative to cli/tests/fixtures/crds/, and the extra flags of each.
const CRDS: &[(&str, &[&str])] = &[
    ("cert-manager/cert-manager.io_certificates.yaml", &[]),
    (
        "cert-manager/cert-manager.io_issuers.yaml",
        &["--controller=false"],
    ),
    (
        "prometheus-operator/monitoring.coreos.com_servicemonitors.yaml",
        &["--controller=false"],
    ),
    (
        "prometheus-operator/monitoring.coreos.com_prometheusrules.yaml",
        &["--controller=false"],
    ),
    (
        "gateway-api/gateway.networking.k8s.io_httproutes.yaml",
        &["--controller=false"],
    ),
    (
        "gateway-api/gateway.networking.k8s.io_gateways.yaml",
        &["--controller=false"],
    ),
    (
        "crossplane/apiextensions.crossplane.io_compositions.yaml",
        &["--controller=false"],
    ),
    (
        "argo-cd/argoproj.io_applications.yaml",
        &["--controller=false"],
    ),
    (
        "kubeforge/typegen.kubeforge.dev_crds.yaml",
        &["--controller=false"],
    ),
];

/// How many objects the deep test kind's schema nests below `spec`.
const DEEP_LEVELS: usize = 200;

/// The CRD of the deep test kind (`Deep`, typegen.kubeforge.dev/v1): `spec` holds `child`
/// (and `note`) `DEEP_LEVELS` times, the last `child` a `leaf` string. Built as JSON text
/// without recursion; it nests about 2 × `DEEP_LEVELS` JSON levels, within the 512 the CRD
/// reader allows.
fn deep_crd() -> String {
    let mut schema = String::from(r#"{"type":"object","properties":{"leaf":{"type":"string"}}}"#);
    for _ in 0..DEEP_LEVELS {
        schema = format!(
            r#"{{"type":"object","properties":{{"child":{schema},"note":{{"type":"string"}}}}}}"#
        );
    }
    format!(
        r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{{"name":"deeps.typegen.kubeforge.dev"}},"spec":{{"group":"typegen.kubeforge.dev","names":{{"kind":"Deep","listKind":"DeepList","plural":"deeps","singular":"deep"}},"scope":"Namespaced","versions":[{{"name":"v1","served":true,"storage":true,"schema":{{"openAPIV3Schema":{{"type":"object","required":["spec"],"properties":{{"apiVersion":{{"type":"string"}},"kind":{{"type":"string"}},"metadata":{{"type":"object"}},"spec":{schema}}}}}}}}}]}}}}"#
    )
}

/// The folders of example objects.
const EXAMPLES: &[&str] = &[
    "cert-manager",
    "prometheus-operator",
    "gateway-api",
    "crossplane",
    "argo-cd",
    "kubeforge",
];

#[track_caller]
fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "expected {needle:?} in:\n{text}");
}

/// Counts the generated files and lines under src/external (for the report).
fn generated_size(dir: &Path) -> (usize, usize) {
    let mut files = 0;
    let mut lines = 0;
    let mut pending = vec![dir.join("src/external")];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.file_name().is_some_and(|n| n != "mod.rs") {
                files += 1;
                lines += std::fs::read_to_string(&path).unwrap().lines().count();
            }
        }
    }
    (files, lines)
}

#[test]
fn external_crds_generate_build_and_round_trip_through_the_api_server() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    kubeforge(
        dir,
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "crd-consumer",
        ],
    );
    share_lockfile(dir);
    let fixtures = workspace_root().join("cli/tests/fixtures/crds");
    for (file, extra) in CRDS {
        let crd = fixtures.join(file).display().to_string();
        let mut args = vec![
            "create",
            "api",
            "--external",
            "--crd",
            &crd,
            "--version",
            "all",
        ];
        args.extend_from_slice(extra);
        kubeforge(dir, &args);
    }
    let deep = temp.path().join("deeps.typegen.kubeforge.dev.json");
    std::fs::write(&deep, deep_crd()).unwrap();
    let deep = deep.display().to_string();
    // Reading YAML that deep recurses: on the stack the binary gives its commands (main.rs).
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(256 * 1024 * 1024)
            .spawn_scoped(scope, || {
                let args = ["create", "api", "--external", "--crd", &deep];
                kubeforge(dir, &[&args[..], &["--controller=false"]].concat());
            })
            .unwrap()
            .join()
            .unwrap();
    });
    // Types that deep need a higher recursion limit in the crates that use them: the command
    // raised it in the library and the binary.
    for root in ["src/lib.rs", "src/main.rs"] {
        let text = std::fs::read_to_string(dir.join(root)).unwrap();
        assert_contains(&text, "#![recursion_limit = \"512\"]");
    }
    for project in EXAMPLES {
        let target = dir.join("tests/fixtures").join(project);
        std::fs::create_dir_all(&target).unwrap();
        std::fs::copy(
            fixtures.join(project).join("examples.yaml"),
            target.join("examples.yaml"),
        )
        .unwrap();
    }
    std::fs::write(
        dir.join("tests/external_round_trip.rs"),
        include_str!("round_trip.rs"),
    )
    .unwrap();
    let (files, lines) = generated_size(dir);
    eprintln!("generated {files} type files, {lines} lines under src/external");

    let _build = build_lock();
    cargo(dir, &["fmt", "--check"]);
    let test = cargo(dir, &["test", "--", "--nocapture"]);
    assert_contains(&test.stdout, "test external_kinds_round_trip ... ok");
    for kind in [
        "Certificate",
        "Issuer",
        "ServiceMonitor",
        "PrometheusRule",
        "Gateway",
        "HTTPRoute",
        "Composition",
        "Application",
        "Exotic",
        "Bare",
    ] {
        assert_contains(&test.stdout, &format!(" {kind} objects"));
    }
    // The kinds whose CRD does not require spec read an object without one.
    assert_contains(&test.stdout, "read Certificate without spec");
    assert_contains(&test.stdout, "read Composition without spec");
    assert_contains(&test.stdout, "test deep_schema_round_trips ... ok");
    assert_contains(&test.stdout, "round-tripped a Deep object 200 levels deep");
    assert_contains(&test.stdout, "test certificate_is_reconciled ... ok");
    assert_contains(&test.stdout, "reconciled Certificate certificate-sample");
}
