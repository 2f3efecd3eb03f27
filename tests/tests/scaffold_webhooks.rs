//! Scaffold an operator with every kind of webhook, build it, and run its generated webhook
//! tests against the embedded API server (which calls the webhooks over HTTPS).
//!
//! One project: Memcached v1 (hub) and v1beta1 (spoke) with defaulting, validation and
//! conversion, plus defaulting and validation on the built-in Pod. It builds into the
//! workspace's target directory with the workspace's Cargo.lock.

use std::path::Path;

use kubeforge_e2e::{build_lock, cargo, kubeforge, share_lockfile};

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[track_caller]
fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "expected {needle:?} in:\n{text}");
}

#[test]
fn operator_with_defaulting_validation_conversion_and_a_built_in_webhook() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    kubeforge(
        dir,
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "webhook-operator",
        ],
    );
    share_lockfile(dir);
    let api = |version: &str, extra: &[&str]| {
        let mut args = vec![
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            version,
            "--kind",
            "Memcached",
        ];
        args.extend_from_slice(extra);
        kubeforge(dir, &args);
    };
    api("v1", &[]);
    api("v1beta1", &["--controller=false"]);
    kubeforge(
        dir,
        &[
            "create",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
            "--defaulting",
            "--programmatic-validation",
            "--conversion",
            "--spoke",
            "v1beta1",
        ],
    );
    kubeforge(
        dir,
        &[
            "create",
            "webhook",
            "--group",
            "core",
            "--version",
            "v1",
            "--kind",
            "Pod",
            "--defaulting",
            "--programmatic-validation",
        ],
    );

    let _build = build_lock();
    cargo(dir, &["fmt", "--check"]);
    let test = cargo(dir, &["test", "--", "--nocapture"]);
    for name in [
        "memcached_v1_is_defaulted",
        "memcached_v1_is_validated",
        "memcached_v1beta1_converts_to_v1_and_back",
        "pod_v1_is_defaulted",
        "pod_v1_is_validated",
        "memcached_sample_becomes_ready",
    ] {
        assert_contains(&test.stdout, &format!("test {name} ... ok"));
    }
    assert_contains(
        &test.stdout,
        "refused Memcached with an empty team label: ApiError: admission webhook",
    );
    assert_contains(
        &test.stdout,
        "Memcached v1beta1 -> v1 -> v1beta1 is lossless",
    );
    assert_contains(&test.stdout, "Memcached written as v1beta1, read as v1");

    // The manager's webhook flags, and the manifests of its webhooks.
    let help = cargo(dir, &["run", "--quiet", "--", "--help"]);
    for flag in ["--webhook-port", "--webhook-cert-dir", "--webhook-local"] {
        assert_contains(&help.stdout, flag);
    }
    cargo(dir, &["run", "--quiet", "--", "manifests"]);
    let webhooks = read(dir, "config/webhook/manifests.yaml");
    for needle in [
        "kind: MutatingWebhookConfiguration",
        "kind: ValidatingWebhookConfiguration",
        "name: mmemcached-v1.cache.example.com",
        "name: vmemcached-v1.cache.example.com",
        "name: webhook-service",
        "- pods",
    ] {
        assert_contains(&webhooks, needle);
    }
    let crd = read(dir, "config/crd/bases/cache.example.com_memcacheds.yaml");
    assert_contains(&crd, "strategy: Webhook");
    assert_contains(&crd, "path: /convert");
    cargo(dir, &["run", "--quiet", "--", "manifests", "--check"]);

    // The kustomize bases render with the webhook Service, cert-manager and CA injection.
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
            let rendered = String::from_utf8_lossy(&out.stdout);
            for needle in [
                "name: webhook-operator-webhook-service",
                "cert-manager.io/inject-ca-from: webhook-operator-system/webhook-operator-serving-cert",
                "- webhook-operator-webhook-service.webhook-operator-system.svc",
                "kind: Issuer",
                "containerPort: 9443",
                "secretName: webhook-server-cert",
                "name: mpod-v1.kb.io\n  namespaceSelector:\n    matchExpressions:\n    - key: kubernetes.io/metadata.name\n      operator: NotIn\n      values:\n      - webhook-operator-system\n      - kube-system\n",
            ] {
                assert_contains(&rendered, needle);
            }
            assert_eq!(
                rendered.matches("cert-manager.io/inject-ca-from:").count(),
                3,
                "the mutating and validating configurations and the CRD get the CA:\n{rendered}"
            );
        }
        Err(e) => eprintln!(
            "NOTE: kubectl is not installed ({e}): the kustomize rendering check did not run"
        ),
    }
}
