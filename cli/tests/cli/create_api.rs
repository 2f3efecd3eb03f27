//! `kubeforge create api`: every flag, every refusal, idempotent insertion.

use crate::common;

use common::{create_api, kubeforge, project, read, refused, tree};

const MEMCACHED: &[&str] = &[
    "create",
    "api",
    "--group",
    "cache",
    "--version",
    "v1alpha1",
    "--kind",
    "Memcached",
];

#[test]
fn scaffolds_an_api_and_its_controller() {
    let temp = project(&[]);
    let dir = temp.path();
    let run = kubeforge(dir, MEMCACHED).success();
    assert!(run.stdout.contains("Next steps:"));

    let ty = read(dir, "src/api/v1alpha1/memcached.rs");
    for needle in [
        "pub struct MemcachedSpec",
        "pub struct MemcachedStatus",
        "group = \"cache.example.com\"",
        "version = \"v1alpha1\"",
        "plural = \"memcacheds\"",
        "namespaced,",
        "status = \"MemcachedStatus\"",
        "printcolumn(",
        "/// MemcachedSpec defines the desired state",
        "pub observed_generation: Option<i64>",
        "pub conditions: Vec<Condition>",
    ] {
        assert!(ty.contains(needle), "type file lacks {needle}:\n{ty}");
    }
    let controller = read(dir, "src/controllers/memcached.rs");
    assert!(controller.contains("pub async fn reconcile(obj: Arc<Memcached>, ctx: Arc<Context>)"));
    assert!(controller.contains("pub fn add_to_manager(manager: &mut Manager)"));
    assert!(controller.contains("conditions::set(&mut status.conditions, ready)"));
    assert!(controller.contains("patch_status"));

    assert!(read(dir, "src/main.rs").contains("    controllers::memcached::add_to_manager(&mut manager);\n    // +kubeforge:scaffold:builder"));
    assert!(
        read(dir, "src/main.rs")
            .contains("use ::demo::controllers;\n// +kubeforge:scaffold:imports")
    );
    assert!(
        read(dir, "src/lib.rs")
            .contains("<crate::api::v1alpha1::Memcached as ::kube::CustomResourceExt>::crd(),")
    );
    assert!(
        read(dir, "src/api/mod.rs").contains("pub mod v1alpha1;\n// +kubeforge:scaffold:modules")
    );
    assert!(
        read(dir, "src/api/v1alpha1/mod.rs")
            .contains("pub mod memcached;\npub use self::memcached::*;\n")
    );
    assert!(read(dir, "src/controllers/mod.rs").contains("pub mod memcached;\n"));

    let sample = read(dir, "config/samples/cache_v1alpha1_memcached.yaml");
    assert!(sample.contains("apiVersion: cache.example.com/v1alpha1\nkind: Memcached\n"));
    assert!(
        read(dir, "config/samples/kustomization.yaml")
            .contains("- cache_v1alpha1_memcached.yaml\n")
    );
    assert!(
        read(dir, "config/crd/kustomization.yaml")
            .contains("- bases/cache.example.com_memcacheds.yaml\n")
    );
    for role in ["admin", "editor", "viewer"] {
        let file = format!("memcached_{role}_role.yaml");
        assert!(
            read(dir, &format!("config/rbac/{file}"))
                .contains(&format!("name: memcached-{role}-role"))
        );
        assert!(read(dir, "config/rbac/kustomization.yaml").contains(&format!("- {file}\n")));
    }
    let test = read(dir, "tests/memcached_controller.rs");
    assert!(
        test.contains("TestEnv::builder()")
            && test.contains("memcached::add_to_manager(&mut manager)")
    );
    assert!(test.contains("include_str!(\"../config/samples/cache_v1alpha1_memcached.yaml\")"));

    let project_file = read(dir, "PROJECT");
    for line in [
        "- api:\n    crdVersion: v1\n    namespaced: true\n  controller: true\n",
        "  group: cache\n",
        "  kind: Memcached\n",
        "  version: v1alpha1\n",
        "  path: demo::api::v1alpha1::Memcached\n",
    ] {
        assert!(
            project_file.contains(line),
            "PROJECT lacks {line:?}:\n{project_file}"
        );
    }
    assert!(
        !project_file.contains("plural:"),
        "default plurals are not recorded"
    );
}

#[test]
fn plural_and_cluster_scope() {
    let temp = project(&[]);
    let dir = temp.path();
    kubeforge(
        dir,
        &create_api(
            "ops",
            "v1",
            "Fleet",
            &["--plural", "fleetz", "--namespaced=false"],
        ),
    )
    .success();
    let ty = read(dir, "src/api/v1/fleet.rs");
    assert!(ty.contains("plural = \"fleetz\""));
    assert!(!ty.contains("namespaced,"), "cluster-scoped:\n{ty}");
    assert!(read(dir, "src/controllers/fleet.rs").contains("Api::all("));
    assert!(read(dir, "tests/fleet_controller.rs").contains("Api::all("));
    assert!(
        read(dir, "config/crd/kustomization.yaml").contains("- bases/ops.example.com_fleetz.yaml")
    );
    let project_file = read(dir, "PROJECT");
    assert!(
        project_file.contains("plural: fleetz") && project_file.contains("namespaced: false"),
        "{project_file}"
    );
}

#[test]
fn controller_for_built_in_kinds() {
    let temp = project(&[]);
    let dir = temp.path();
    kubeforge(dir, MEMCACHED).success();
    kubeforge(
        dir,
        &create_api("apps", "v1", "Deployment", &["--resource=false"]),
    )
    .success();
    kubeforge(
        dir,
        &create_api("core", "v1", "ConfigMap", &["--resource", "false"]),
    )
    .success();
    let deployment = read(dir, "src/controllers/deployment.rs");
    assert!(
        deployment.contains("use k8s_openapi::api::apps::v1::Deployment;"),
        "{deployment}"
    );
    let config_map = read(dir, "src/controllers/config_map.rs");
    assert!(config_map.contains("use k8s_openapi::api::core::v1::ConfigMap;"));
    assert!(
        read(dir, "tests/config_map_controller.rs")
            .contains(r#""apiVersion": "v1", "kind": "ConfigMap""#)
    );
    assert!(read(dir, "tests/deployment_controller.rs").contains(r#""apiVersion": "apps/v1""#));
    assert!(
        !dir.join("src/api/v1/mod.rs").exists(),
        "no type for built-in kinds"
    );
    let main = read(dir, "src/main.rs");
    assert!(main.contains("controllers::deployment::add_to_manager(&mut manager);"));
    assert!(main.contains("controllers::config_map::add_to_manager(&mut manager);"));
    assert_eq!(main.matches("use ::demo::controllers;").count(), 1);
    let project_file = read(dir, "PROJECT");
    assert!(
        project_file.contains("path: k8s_openapi::api::apps::v1::Deployment"),
        "{project_file}"
    );
    assert!(project_file.contains("domain: k8s.io"));
}

#[test]
fn resource_only_then_controller_only() {
    let temp = project(&[]);
    let dir = temp.path();
    let mut args = MEMCACHED.to_vec();
    args.push("--controller=false");
    kubeforge(dir, &args).success();
    assert!(dir.join("src/api/v1alpha1/memcached.rs").exists());
    assert!(!dir.join("src/controllers/memcached.rs").exists());
    assert!(!read(dir, "src/main.rs").contains("add_to_manager"));
    assert!(!read(dir, "PROJECT").contains("controller: true"));

    let mut args = MEMCACHED.to_vec();
    args.push("--resource=false");
    kubeforge(dir, &args).success();
    assert!(
        read(dir, "src/controllers/memcached.rs").contains("use crate::api::v1alpha1::Memcached;")
    );
    let project_file = read(dir, "PROJECT");
    assert!(
        project_file.contains("controller: true") && project_file.contains("crdVersion: v1"),
        "{project_file}"
    );
}

#[test]
fn multigroup_layout() {
    let temp = project(&["--multigroup"]);
    let dir = temp.path();
    kubeforge(dir, MEMCACHED).success();
    kubeforge(dir, &create_api("ship", "v1beta1", "Frigate", &[])).success();
    kubeforge(
        dir,
        &create_api("apps", "v1", "Deployment", &["--resource=false"]),
    )
    .success();
    for file in [
        "src/api/cache/mod.rs",
        "src/api/cache/v1alpha1/mod.rs",
        "src/api/cache/v1alpha1/memcached.rs",
        "src/api/ship/v1beta1/frigate.rs",
        "src/controllers/cache/memcached.rs",
        "src/controllers/ship/frigate.rs",
        "src/controllers/apps/deployment.rs",
        "tests/cache_memcached_controller.rs",
        "tests/apps_deployment_controller.rs",
        "config/rbac/cache_memcached_editor_role.yaml",
        "config/samples/ship_v1beta1_frigate.yaml",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }
    assert!(read(dir, "src/api/mod.rs").contains("pub mod cache;\npub mod ship;\n"));
    assert!(
        read(dir, "src/controllers/mod.rs")
            .contains("pub mod apps;\npub mod cache;\npub mod ship;\n")
    );
    assert!(
        read(dir, "src/main.rs")
            .contains("controllers::ship::frigate::add_to_manager(&mut manager);")
    );
    assert!(
        read(dir, "src/lib.rs").contains(
            "<crate::api::cache::v1alpha1::Memcached as ::kube::CustomResourceExt>::crd(),"
        )
    );
    assert!(
        read(dir, "config/rbac/cache_memcached_viewer_role.yaml")
            .contains("name: cache-memcached-viewer-role")
    );
}

#[test]
fn force_rescaffolds_and_insertions_are_idempotent() {
    let temp = project(&[]);
    let dir = temp.path();
    kubeforge(dir, MEMCACHED).success();
    let after_first = tree(dir);
    std::fs::write(dir.join("src/controllers/memcached.rs"), "// my edits\n").unwrap();
    let mut args = MEMCACHED.to_vec();
    args.push("--force");
    kubeforge(dir, &args).success();
    assert_eq!(
        tree(dir),
        after_first,
        "--force rewrites the scaffolded files and inserts nothing twice"
    );
    kubeforge(dir, &args).success();
    assert_eq!(tree(dir), after_first);
    assert_eq!(
        read(dir, "src/main.rs").matches("add_to_manager").count(),
        1
    );
}

#[test]
fn warns_about_unusual_versions() {
    let temp = project(&[]);
    let run = kubeforge(temp.path(), &create_api("cache", "first", "Memcached", &[])).success();
    assert!(
        run.stderr
            .contains("warning: version \"first\" is not of the form v1, v1beta1 or v2alpha3"),
        "{}",
        run.stderr
    );
    let run = kubeforge(
        temp.path(),
        &create_api("cache", "v1", "Memcached", &["--controller=false"]),
    )
    .success();
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
}

#[test]
fn refuses_bad_names() {
    let temp = project(&[]);
    let dir = temp.path();
    let api = |group: &'static str, version: &'static str, kind: &'static str| {
        vec![
            "create",
            "api",
            "--group",
            group,
            "--version",
            version,
            "--kind",
            kind,
        ]
    };
    refused(
        dir,
        &api("Cache", "v1", "Memcached"),
        &[
            "--group",
            "\"Cache.example.com\"",
            "DNS-1123 subdomain",
            "fix:",
        ],
    );
    refused(
        dir,
        &api("ca_che", "v1", "Memcached"),
        &["DNS-1123 subdomain"],
    );
    refused(
        dir,
        &api("cache", "V1", "Memcached"),
        &["--version", "DNS-1035 label", "fix:"],
    );
    refused(dir, &api("cache", "v1.0", "Memcached"), &["DNS-1035 label"]);
    refused(dir, &api("cache", "1", "Memcached"), &["DNS-1035 label"]);
    refused(
        dir,
        &api("cache", "v1", "memcached"),
        &["--kind", "upper-case letter", "fix:"],
    );
    refused(
        dir,
        &api("cache", "v1", "Mem-cached"),
        &["--kind", "CamelCase"],
    );
    refused(dir, &api("cache", "v1", "1Memcached"), &["--kind"]);
    let mut plural = api("cache", "v1", "Memcached");
    plural.extend(["--plural", "Memcached_s"]);
    refused(dir, &plural, &["--plural", "DNS-1035 label", "fix:"]);
    let mut plural = api("cache", "v1", "Memcached");
    plural.extend(["--plural", "9lives"]);
    refused(dir, &plural, &["DNS-1035 label"]);
    let mut neither = api("cache", "v1", "Memcached");
    neither.extend(["--resource=false", "--controller=false"]);
    refused(dir, &neither, &["nothing to scaffold"]);
    let mut unknown = api("widgets", "v1", "Widget");
    unknown.push("--resource=false");
    refused(
        dir,
        &unknown,
        &["is neither an API of this project", "fix:"],
    );
}

#[test]
fn refuses_an_existing_api_or_controller_without_force() {
    let temp = project(&[]);
    let dir = temp.path();
    kubeforge(dir, MEMCACHED).success();
    refused(dir, MEMCACHED, &["API resource already exists", "--force"]);
    let mut controller_only = MEMCACHED.to_vec();
    controller_only.push("--resource=false");
    refused(
        dir,
        &controller_only,
        &["controller already exists", "--force"],
    );
}

#[test]
fn refuses_a_second_group_in_a_single_group_project() {
    let temp = project(&[]);
    let dir = temp.path();
    kubeforge(dir, MEMCACHED).success();
    refused(
        dir,
        &create_api("ship", "v1", "Frigate", &[]),
        &["multiple groups", "\"cache\"", "--multigroup"],
    );
    // Same group, and built-in kinds, are fine.
    kubeforge(dir, &create_api("cache", "v1", "Redis", &[])).success();
    kubeforge(
        dir,
        &create_api("apps", "v1", "Deployment", &["--resource=false"]),
    )
    .success();
}

#[test]
fn refuses_outside_a_project_and_a_broken_project_file() {
    let temp = tempfile::tempdir().unwrap();
    refused(
        temp.path(),
        MEMCACHED,
        &["has no PROJECT file", "kubeforge init", "fix:"],
    );
    refused(temp.path(), &["generate"], &["has no PROJECT file"]);

    let temp = project(&[]);
    let dir = temp.path();
    std::fs::write(dir.join("PROJECT"), "domain: [unclosed\n").unwrap();
    refused(dir, MEMCACHED, &["PROJECT does not parse", "fix:"]);
    std::fs::write(
        dir.join("PROJECT"),
        "domain: x\nlayout: [other/v1]\nprojectName: demo\nversion: \"3\"\n",
    )
    .unwrap();
    refused(dir, MEMCACHED, &["PROJECT does not parse", "other/v1"]);
    std::fs::write(dir.join("PROJECT"), "domian: x\n").unwrap();
    refused(dir, MEMCACHED, &["PROJECT does not parse", "domian"]);
}

#[test]
fn refuses_when_a_marker_was_deleted() {
    let cases: &[(&str, &str)] = &[
        ("src/main.rs", "// +kubeforge:scaffold:builder"),
        ("src/main.rs", "// +kubeforge:scaffold:imports"),
        ("src/lib.rs", "// +kubeforge:scaffold:crds"),
        ("src/api/mod.rs", "// +kubeforge:scaffold:modules"),
        ("src/controllers/mod.rs", "// +kubeforge:scaffold:modules"),
        (
            "config/rbac/kustomization.yaml",
            "# +kubeforge:scaffold:rbac",
        ),
    ];
    for (file, marker) in cases {
        let temp = project(&[]);
        let dir = temp.path();
        let text = read(dir, file);
        assert!(text.contains(marker), "{file} has {marker}");
        std::fs::write(dir.join(file), text.replace(marker, "")).unwrap();
        refused(
            dir,
            MEMCACHED,
            &[file, marker, "nothing was written", "fix:"],
        );
    }
    // A marker deleted from a file a previous `create api` made.
    let temp = project(&[]);
    let dir = temp.path();
    kubeforge(dir, MEMCACHED).success();
    let file = "config/crd/kustomization.yaml";
    std::fs::write(
        dir.join(file),
        read(dir, file).replace("# +kubeforge:scaffold:crdkustomizeresource", ""),
    )
    .unwrap();
    refused(
        dir,
        &create_api("cache", "v1", "Redis", &[]),
        &[file, "crdkustomizeresource"],
    );
    // A deleted file.
    std::fs::remove_file(dir.join("src/controllers/mod.rs")).unwrap();
    refused(
        dir,
        &create_api("apps", "v1", "Deployment", &["--resource=false"]),
        &["src/controllers/mod.rs is missing"],
    );
}

#[test]
fn refuses_to_overwrite_a_file_the_project_does_not_know() {
    let temp = project(&[]);
    let dir = temp.path();
    std::fs::create_dir_all(dir.join("src/api/v1alpha1")).unwrap();
    std::fs::write(
        dir.join("src/api/v1alpha1/memcached.rs"),
        "// hand-written\n",
    )
    .unwrap();
    refused(
        dir,
        MEMCACHED,
        &["src/api/v1alpha1/memcached.rs already exists", "--force"],
    );
}

/// Generated Rust is already formatted the way `cargo fmt` would (needs rustfmt, as CI has).
#[test]
fn generated_rust_is_rustfmt_clean() {
    if std::process::Command::new("rustfmt")
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("rustfmt is required for this test (rustup component add rustfmt)");
    }
    for init in [&[][..], &["--multigroup", "--namespaced"][..]] {
        let temp = project(init);
        let dir = temp.path();
        kubeforge(dir, MEMCACHED).success();
        kubeforge(
            dir,
            &create_api("cache", "v1", "MemcachedCluster", &["--namespaced=false"]),
        )
        .success();
        kubeforge(
            dir,
            &create_api("apps", "v1", "Deployment", &["--resource=false"]),
        )
        .success();
        kubeforge(
            dir,
            &create_api("core", "v1", "ConfigMap", &["--resource=false"]),
        )
        .success();
        let files: Vec<_> = tree(dir)
            .into_keys()
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .map(|p| dir.join(p))
            .collect();
        let out = std::process::Command::new("rustfmt")
            .args(["--check", "--edition", "2024"])
            .args(&files)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
