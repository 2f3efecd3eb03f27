//! `kubeforge create webhook`: every webhook type, the kustomize wiring, kubebuilder's refusals,
//! adding types to a kind without losing the user's code, and built-in kinds.

use crate::common;

use std::path::Path;

use common::{create_api, kubeforge, project, read, refused, tree};

/// `kubeforge create webhook --group G --version V --kind K`, then `extra`.
fn create_webhook<'a>(
    group: &'a str,
    version: &'a str,
    kind: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "create",
        "webhook",
        "--group",
        group,
        "--version",
        version,
        "--kind",
        kind,
    ];
    args.extend_from_slice(extra);
    args
}

/// A project with Memcached at v1 (with its controller) and v1beta1 (type only).
fn memcached_project(init: &[&str]) -> tempfile::TempDir {
    let temp = project(init);
    let dir = temp.path();
    kubeforge(dir, &create_api("cache", "v1", "Memcached", &[])).success();
    kubeforge(
        dir,
        &create_api("cache", "v1beta1", "Memcached", &["--controller=false"]),
    )
    .success();
    temp
}

#[track_caller]
fn assert_has(dir: &Path, file: &str, needles: &[&str]) {
    let text = read(dir, file);
    for needle in needles {
        assert!(text.contains(needle), "{file} lacks {needle:?}:\n{text}");
    }
}

#[test]
fn scaffolds_defaulting_validation_and_conversion() {
    let temp = memcached_project(&[]);
    let dir = temp.path();
    let run = kubeforge(
        dir,
        &create_webhook(
            "cache",
            "v1",
            "Memcached",
            &[
                "--defaulting",
                "--programmatic-validation",
                "--conversion",
                "--spoke",
                "v1beta1",
            ],
        ),
    )
    .success();
    assert!(run.stdout.contains("Next steps:"), "{}", run.stdout);

    assert_has(
        dir,
        "src/webhooks/memcached_v1.rs",
        &[
            "use kubeforge::webhook::{Defaulter, Denied, Validator, Warnings};",
            "use crate::api::v1::Memcached;",
            "pub const TEAM_LABEL: &str = \"example.com/team\";",
            "impl Defaulter<Memcached> for MemcachedDefaulter {",
            "impl Validator<Memcached> for MemcachedValidator {",
        ],
    );
    assert_has(
        dir,
        "src/webhooks/mod.rs",
        &[
            "pub mod memcached_v1;\n// +kubeforge:scaffold:webhook-modules",
            "    builder\n        .defaulter::<crate::api::v1::Memcached>(memcached_v1::MemcachedDefaulter)\n        .validator::<crate::api::v1::Memcached>(memcached_v1::MemcachedValidator)\n        .conversion::<crate::api::v1::Memcached>()\n    // +kubeforge:scaffold:webhooks",
        ],
    );
    assert_has(dir, "src/lib.rs", &["pub mod webhooks;\n"]);
    assert_has(
        dir,
        "src/main.rs",
        &[
            "let webhooks = ::demo::webhooks::register(webhooks);\n    // +kubeforge:scaffold:webhook-builder",
            "kubeforge::manifests::run_with_webhooks(args, &webhooks)?;",
            "kubeforge::webhook::add_to_manager(&mut manager, webhooks, &cli.manager).await?;\n    // +kubeforge:scaffold:webhook-server",
        ],
    );
    assert_has(
        dir,
        "Makefile",
        &[
            "RUN_FLAGS += --webhook-local\n",
            "$(CARGO) run -- $(RUN_FLAGS)",
        ],
    );

    // Conversion lives with the spoke, which stops being the storage version.
    assert_has(
        dir,
        "src/api/v1beta1/memcached_conversion.rs",
        &[
            "use crate::api::v1 as hub;",
            "kubeforge::conversion!(Memcached => hub::Memcached, hub::Memcached => Memcached);",
            "hub::MemcachedSpec { foo: spec.foo }",
            "observed_generation: status.observed_generation,",
        ],
    );
    assert_has(
        dir,
        "src/api/v1beta1/mod.rs",
        &["mod memcached_conversion;\n// +kubeforge:scaffold:modules"],
    );
    assert_has(dir, "src/api/v1beta1/memcached.rs", &["storage = false,"]);
    assert!(!read(dir, "src/api/v1/memcached.rs").contains("storage"));

    assert_has(
        dir,
        "tests/memcached_webhook.rs",
        &[
            "async fn start() -> anyhow::Result<(TestEnv, LocalWebhooks)>",
            "async fn memcached_v1_is_defaulted()",
            "async fn memcached_v1_is_validated()",
            "async fn memcached_v1beta1_converts_to_v1_and_back()",
            "include_str!(\"../config/samples/cache_v1beta1_memcached.yaml\")",
            "check_round_trip(&value, \"cache.example.com/v1\")",
        ],
    );

    // kustomize: the webhook and cert-manager bases, switched on in config/default.
    for file in [
        "config/webhook/kustomization.yaml",
        "config/webhook/service.yaml",
        "config/webhook/kustomizeconfig.yaml",
        "config/certmanager/kustomization.yaml",
        "config/certmanager/kustomizeconfig.yaml",
        "config/certmanager/issuer.yaml",
        "config/certmanager/certificate.yaml",
        "config/default/manager_webhook_patch.yaml",
        "config/crd/kustomizeconfig.yaml",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }
    let default = read(dir, "config/default/kustomization.yaml");
    for line in [
        "\n- ../webhook\n",
        "\n- ../certmanager\n",
        "\n- path: manager_webhook_patch.yaml\n",
        "\nreplacements:\n",
        "      kind: MutatingWebhookConfiguration\n",
        "      kind: ValidatingWebhookConfiguration\n",
        "      name: memcacheds.cache.example.com\n",
    ] {
        assert!(default.contains(line), "lacks {line:?}:\n{default}");
    }
    assert!(!default.contains("#- ../webhook"), "{default}");
    assert_has(
        dir,
        "config/crd/patches/webhook_in_memcacheds.yaml",
        &[
            "name: memcacheds.cache.example.com",
            "strategy: Webhook",
            "path: /convert",
        ],
    );
    assert_has(
        dir,
        "config/crd/kustomization.yaml",
        &[
            "patches:\n- path: patches/webhook_in_memcacheds.yaml\n",
            "configurations:\n- kustomizeconfig.yaml\n",
        ],
    );

    assert_has(
        dir,
        "PROJECT",
        &[
            "  webhooks:\n    conversion: true\n    defaulting: true\n    spoke:\n    - v1beta1\n    validation: true\n    webhookVersion: v1\n",
        ],
    );
}

#[test]
fn a_second_webhook_type_keeps_the_first_and_the_users_code() {
    let temp = memcached_project(&[]);
    let dir = temp.path();
    kubeforge(
        dir,
        &create_webhook("cache", "v1", "Memcached", &["--defaulting"]),
    )
    .success();
    let file = dir.join("src/webhooks/memcached_v1.rs");
    let first = read(dir, "src/webhooks/memcached_v1.rs");
    assert!(first.contains("use kubeforge::webhook::{Defaulter, Denied};"));
    assert!(!first.contains("Validator"), "{first}");
    let edited = first.replace(
        "        Ok(())\n",
        "        obj.spec.foo.get_or_insert_with(|| \"mine\".into());\n        Ok(())\n",
    );
    std::fs::write(&file, &edited).unwrap();
    let tests_before = read(dir, "tests/memcached_webhook.rs");

    kubeforge(
        dir,
        &create_webhook("cache", "v1", "Memcached", &["--programmatic-validation"]),
    )
    .success();
    let second = read(dir, "src/webhooks/memcached_v1.rs");
    assert!(
        second.contains("obj.spec.foo.get_or_insert_with(|| \"mine\".into());"),
        "{second}"
    );
    assert!(second.contains("impl Defaulter<Memcached> for MemcachedDefaulter"));
    assert!(second.contains("impl Validator<Memcached> for MemcachedValidator"));
    assert!(second.contains("use kubeforge::webhook::{Defaulter, Denied, Validator, Warnings};"));
    assert_eq!(second.matches("pub const TEAM_LABEL").count(), 1);
    let tests = read(dir, "tests/memcached_webhook.rs");
    assert!(
        tests.starts_with(&tests_before),
        "the first test was rewritten"
    );
    assert!(tests.contains("async fn memcached_v1_is_validated()"));
    let registry = read(dir, "src/webhooks/mod.rs");
    assert_eq!(registry.matches(".defaulter::<").count(), 1, "{registry}");
    assert_eq!(registry.matches(".validator::<").count(), 1, "{registry}");
    assert_eq!(registry.matches("pub mod memcached_v1;").count(), 1);
    let project_file = read(dir, "PROJECT");
    assert!(
        project_file.contains("    defaulting: true\n    validation: true\n"),
        "{project_file}"
    );

    // Conversion added later keeps both; a later spoke is added without --force.
    kubeforge(
        dir,
        &create_webhook(
            "cache",
            "v1",
            "Memcached",
            &["--conversion", "--spoke", "v1beta1"],
        ),
    )
    .success();
    assert_eq!(read(dir, "src/webhooks/memcached_v1.rs"), second);
    kubeforge(
        dir,
        &create_api("cache", "v1alpha1", "Memcached", &["--controller=false"]),
    )
    .success();
    kubeforge(
        dir,
        &create_webhook(
            "cache",
            "v1",
            "Memcached",
            &["--conversion", "--spoke", "v1alpha1"],
        ),
    )
    .success();
    assert!(
        dir.join("src/api/v1alpha1/memcached_conversion.rs")
            .is_file()
    );
    let tests = read(dir, "tests/memcached_webhook.rs");
    assert_eq!(tests.matches("_converts_to_v1_and_back()").count(), 2);
    assert_eq!(
        read(dir, "src/webhooks/mod.rs")
            .matches(".conversion::<")
            .count(),
        1
    );
    assert!(read(dir, "PROJECT").contains("    spoke:\n    - v1alpha1\n    - v1beta1\n"));
}

#[test]
fn force_scaffolds_the_webhook_again() {
    let temp = memcached_project(&[]);
    let dir = temp.path();
    let args = create_webhook("cache", "v1", "Memcached", &["--defaulting"]);
    kubeforge(dir, &args).success();
    std::fs::write(dir.join("src/webhooks/memcached_v1.rs"), "// mine\n").unwrap();
    refused(
        dir,
        &args,
        &[
            "the defaulting webhook of cache/v1 Memcached already exists",
            "--force",
        ],
    );
    let mut forced = args.clone();
    forced.push("--force");
    kubeforge(dir, &forced).success();
    let file = read(dir, "src/webhooks/memcached_v1.rs");
    assert!(file.contains("impl Defaulter<Memcached>"), "{file}");
    assert_eq!(
        read(dir, "src/webhooks/mod.rs")
            .matches(".defaulter::<")
            .count(),
        1
    );
    // Running the same insertions twice leaves the markers' files as they were.
    let main = read(dir, "src/main.rs");
    kubeforge(dir, &forced).success();
    assert_eq!(read(dir, "src/main.rs"), main);
}

#[test]
fn webhooks_for_built_in_kinds_warn_about_the_operators_own_objects() {
    let temp = project(&[]);
    let dir = temp.path();
    let run = kubeforge(
        dir,
        &create_webhook(
            "core",
            "v1",
            "Pod",
            &["--defaulting", "--programmatic-validation"],
        ),
    )
    .success();
    for needle in [
        "warning: a webhook on Pod (v1)",
        "the operator's own included",
        "config/webhook/pod_v1_mutating_scope.yaml gives it a namespaceSelector that leaves out demo-system",
        "config/webhook/pod_v1_validating_scope.yaml gives it",
        "objectSelector",
    ] {
        assert!(run.stderr.contains(needle), "{needle}:\n{}", run.stderr);
    }
    assert_has(
        dir,
        "src/webhooks/pod_v1.rs",
        &[
            "use k8s_openapi::api::core::v1::Pod;\nuse kubeforge::webhook::{Defaulter, Denied, Validator, Warnings};",
            "impl Defaulter<Pod> for PodDefaulter",
        ],
    );
    assert_has(
        dir,
        "src/webhooks/mod.rs",
        &[".defaulter::<::k8s_openapi::api::core::v1::Pod>(pod_v1::PodDefaulter)"],
    );
    assert_has(
        dir,
        "tests/pod_webhook.rs",
        &[
            "use k8s_openapi::api::core::v1::Pod;",
            r#""apiVersion": "v1", "kind": "Pod""#,
        ],
    );
    assert_has(
        dir,
        "PROJECT",
        &[
            "- domain: k8s.io\n  group: core\n  kind: Pod\n  path: k8s_openapi::api::core::v1::Pod\n  version: v1\n  webhooks:\n",
        ],
    );
    assert!(!dir.join("config/crd/patches").exists());
    assert_has(
        dir,
        "config/webhook/pod_v1_mutating_scope.yaml",
        &[
            "kind: MutatingWebhookConfiguration\nmetadata:\n  name: mutating-webhook-configuration\nwebhooks:\n- name: mpod-v1.kb.io\n  namespaceSelector:",
            "      operator: NotIn\n      values:\n      - demo-system\n      - kube-system\n",
        ],
    );
    assert_has(
        dir,
        "config/webhook/pod_v1_validating_scope.yaml",
        &["- name: vpod-v1.kb.io\n"],
    );
    assert_has(
        dir,
        "config/webhook/kustomization.yaml",
        &["patches:\n- path: pod_v1_validating_scope.yaml\n- path: pod_v1_mutating_scope.yaml\n"],
    );

    // A built-in kind that has a controller (create api --resource=false) keeps it.
    kubeforge(
        dir,
        &create_api("apps", "v1", "Deployment", &["--resource=false"]),
    )
    .success();
    kubeforge(
        dir,
        &create_webhook("apps", "v1", "Deployment", &["--defaulting"]),
    )
    .success();
    assert_has(
        dir,
        "config/webhook/deployment_v1_mutating_scope.yaml",
        &["- name: mdeployment-v1.apps.kb.io\n"],
    );
    let project_file = read(dir, "PROJECT");
    assert!(
        project_file.contains("- controller: true\n  domain: k8s.io\n  group: apps\n  kind: Deployment\n  path: k8s_openapi::api::apps::v1::Deployment\n  version: v1\n  webhooks:\n    defaulting: true\n"),
        "{project_file}"
    );
}

#[test]
fn refuses_what_kubebuilder_refuses_and_writes_nothing() {
    let temp = memcached_project(&[]);
    let dir = temp.path();
    refused(
        dir,
        &create_webhook("cache", "v1", "Memcached", &[]),
        &[
            "no webhook type given",
            "--defaulting, --programmatic-validation and --conversion",
        ],
    );
    refused(
        dir,
        &create_webhook("cache", "v2", "Memcached", &["--defaulting"]),
        &[
            "cache/v2 Memcached is not an API of this project",
            "PROJECT has cache/v1 Memcached, cache/v1beta1 Memcached in group cache.example.com",
            "k8s-openapi has no kind Memcached in a built-in group cache",
            "kubeforge create api --group cache --version v2 --kind Memcached",
        ],
    );
    refused(
        dir,
        &create_webhook("cache", "v1", "Memcache", &["--defaulting"]),
        &["not an API of this project (PROJECT has cache/v1 Memcached"],
    );
    refused(
        dir,
        &create_webhook(
            "cache",
            "v1",
            "Memcached",
            &["--conversion", "--spoke", "v1alpha2"],
        ),
        &[
            "spoke version v1alpha2 of cache Memcached does not exist",
            "PROJECT has cache Memcached at v1, v1beta1",
            "kubeforge create api --group cache --version v1alpha2 --kind Memcached",
        ],
    );
    refused(
        dir,
        &create_webhook("cache", "v1", "Memcached", &["--conversion"]),
        &["--conversion needs at least one --spoke"],
    );
    refused(
        dir,
        &create_webhook("cache", "v1", "Memcached", &["--spoke", "v1beta1"]),
        &["--spoke v1beta1 was given without --conversion"],
    );
    refused(
        dir,
        &create_webhook(
            "cache",
            "v1",
            "Memcached",
            &["--conversion", "--spoke", "v1"],
        ),
        &["--spoke v1 is the hub version itself"],
    );
    refused(
        dir,
        &create_webhook(
            "apps",
            "v1",
            "Deployment",
            &["--conversion", "--spoke", "v1beta1"],
        ),
        &["--conversion is for the project's own APIs"],
    );
    refused(
        dir,
        &create_webhook("cache", "v1", "memcached", &["--defaulting"]),
        &["invalid --kind \"memcached\""],
    );

    kubeforge(
        dir,
        &create_webhook(
            "cache",
            "v1",
            "Memcached",
            &[
                "--defaulting",
                "--programmatic-validation",
                "--conversion",
                "--spoke",
                "v1beta1",
            ],
        ),
    )
    .success();
    for (flag, which) in [
        ("--defaulting", "defaulting"),
        ("--programmatic-validation", "validating"),
    ] {
        refused(
            dir,
            &create_webhook("cache", "v1", "Memcached", &[flag]),
            &[&format!(
                "the {which} webhook of cache/v1 Memcached already exists"
            )],
        );
    }
    refused(
        dir,
        &create_webhook(
            "cache",
            "v1",
            "Memcached",
            &["--conversion", "--spoke", "v1beta1"],
        ),
        &["the conversion webhook of cache/v1 Memcached already exists"],
    );

    // A removed marker refuses the whole command.
    let main = read(dir, "src/main.rs").replace("    // +kubeforge:scaffold:webhook-server\n", "");
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    refused(
        dir,
        &create_webhook("core", "v1", "Pod", &["--defaulting"]),
        &["src/main.rs has no scaffold marker `// +kubeforge:scaffold:webhook-server`"],
    );
}

#[test]
fn multigroup_layout() {
    let temp = project(&["--multigroup"]);
    let dir = temp.path();
    kubeforge(dir, &create_api("cache", "v1", "Memcached", &[])).success();
    kubeforge(
        dir,
        &create_api("cache", "v1beta1", "Memcached", &["--controller=false"]),
    )
    .success();
    kubeforge(
        dir,
        &create_webhook(
            "cache",
            "v1",
            "Memcached",
            &["--defaulting", "--conversion", "--spoke", "v1beta1"],
        ),
    )
    .success();
    assert_has(
        dir,
        "src/webhooks/mod.rs",
        &[
            "pub mod cache_memcached_v1;",
            ".defaulter::<crate::api::cache::v1::Memcached>(cache_memcached_v1::MemcachedDefaulter)",
        ],
    );
    assert_has(
        dir,
        "src/api/cache/v1beta1/memcached_conversion.rs",
        &["use crate::api::cache::v1 as hub;"],
    );
    assert_has(
        dir,
        "tests/cache_memcached_webhook.rs",
        &["use ::demo::api::cache::v1::Memcached as Hub;"],
    );
}

#[test]
fn conversion_maps_the_fields_the_versions_share() {
    let temp = memcached_project(&[]);
    let dir = temp.path();
    // The user has evolved both versions before adding the conversion.
    let hub = read(dir, "src/api/v1/memcached.rs").replace(
        "    pub foo: Option<String>,\n",
        "    pub foo: Option<String>,\n    /// Replicas.\n    #[serde(default)]\n    pub replicas: i32,\n",
    );
    std::fs::write(dir.join("src/api/v1/memcached.rs"), hub).unwrap();
    let spoke = read(dir, "src/api/v1beta1/memcached.rs").replace(
        "    pub foo: Option<String>,\n",
        "    pub foo: Option<String>,\n    #[serde(default)]\n    pub size: i32,\n",
    );
    std::fs::write(dir.join("src/api/v1beta1/memcached.rs"), spoke).unwrap();
    kubeforge(
        dir,
        &create_webhook(
            "cache",
            "v1",
            "Memcached",
            &["--conversion", "--spoke", "v1beta1"],
        ),
    )
    .success();
    assert_has(
        dir,
        "src/api/v1beta1/memcached_conversion.rs",
        &[
            "        hub::MemcachedSpec {\n            foo: spec.foo,\n            // `replicas` is not in v1beta1: it starts at its default.\n            replicas: Default::default(),\n            // `spec.size` has no v1 field of that name",
        ],
    );
}

/// Generated Rust is already formatted as `cargo fmt` would (needs rustfmt, as CI has).
#[test]
fn generated_rust_is_rustfmt_clean() {
    for init in [&[][..], &["--multigroup", "--license", "none"][..]] {
        let temp = memcached_project(init);
        let dir = temp.path();
        kubeforge(
            dir,
            &create_webhook(
                "cache",
                "v1",
                "Memcached",
                &["--defaulting", "--conversion", "--spoke", "v1beta1"],
            ),
        )
        .success();
        kubeforge(
            dir,
            &create_webhook("cache", "v1", "Memcached", &["--programmatic-validation"]),
        )
        .success();
        kubeforge(dir, &create_api("cache", "v1", "MemcachedCluster", &[])).success();
        kubeforge(
            dir,
            &create_webhook(
                "cache",
                "v1",
                "MemcachedCluster",
                &["--defaulting", "--programmatic-validation"],
            ),
        )
        .success();
        for (group, kind) in [("core", "Pod"), ("networking", "NetworkPolicy")] {
            kubeforge(
                dir,
                &create_webhook(
                    group,
                    "v1",
                    kind,
                    &["--defaulting", "--programmatic-validation"],
                ),
            )
            .success();
        }
        let files: Vec<_> = tree(dir)
            .into_keys()
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .map(|p| dir.join(p))
            .collect();
        let out = std::process::Command::new("rustfmt")
            .args(["--check", "--edition", "2024"])
            .args(&files)
            .output()
            .expect("rustfmt is required for this test (rustup component add rustfmt)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
