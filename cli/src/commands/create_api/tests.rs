//! `create api`'s stages on an in-memory project.

use super::super::harness::Harness;
use crate::error::Error;

const MEMCACHED: &str = "create api --group cache --version v1alpha1 --kind Memcached";

#[test]
fn scaffolds_the_type_the_controller_and_their_registrations() {
    let mut project = Harness::init("");
    let ran = project.run(MEMCACHED).unwrap();
    assert!(ran.stderr.is_empty(), "{}", ran.stderr);
    let ty = project.read("src/api/v1alpha1/memcached.rs");
    assert!(
        ty.contains("    kind = \"Memcached\",\n    plural = \"memcacheds\",\n    namespaced,\n")
    );
    assert!(
        project
            .read("src/main.rs")
            .contains("use ::demo::controllers;\n// +kubeforge:scaffold:imports")
    );
    assert!(project.read("src/main.rs").contains(
        "    controllers::memcached::add_to_manager(&mut manager);\n    // +kubeforge:scaffold:builder"
    ));
    assert!(project.read("src/lib.rs").contains(
        "        <crate::api::v1alpha1::Memcached as ::kube::CustomResourceExt>::crd(),\n"
    ));
    assert_eq!(
        project.read("src/api/v1alpha1/mod.rs"),
        "//! The v1alpha1 API types (cache.example.com): one module per kind.\n\npub mod memcached;\npub use self::memcached::*;\n// +kubeforge:scaffold:modules\n"
            .replace("//! The", &format!("{}//! The", header(&project)))
    );
    for role in ["admin", "editor", "viewer"] {
        assert!(project.has(&format!("config/rbac/memcached_{role}_role.yaml")));
        assert!(
            project
                .read("config/rbac/kustomization.yaml")
                .contains(&format!("- memcached_{role}_role.yaml\n"))
        );
    }
    assert!(project.has("tests/memcached_controller.rs"));
    assert!(
        project
            .read("PROJECT")
            .contains("  path: demo::api::v1alpha1::Memcached\n")
    );
}

/// The license header `init` wrote, as a Rust comment block.
fn header(project: &Harness) -> String {
    crate::context::rust_header(project.tree.get(crate::context::BOILERPLATE_FILE))
}

#[test]
fn multigroup_lays_out_per_group() {
    let mut project = Harness::init("--multigroup");
    project.run(MEMCACHED).unwrap();
    project
        .run("create api --group apps --version v1 --kind Deployment --resource=false")
        .unwrap();
    assert!(project.has("src/api/cache/v1alpha1/memcached.rs"));
    assert!(
        project
            .read("src/api/cache/mod.rs")
            .contains("pub mod v1alpha1;\n")
    );
    assert!(project.read("src/api/mod.rs").contains("pub mod cache;\n"));
    assert!(
        project
            .read("src/controllers/apps/mod.rs")
            .contains("pub mod deployment;\n")
    );
    assert!(
        project
            .read("src/controllers/mod.rs")
            .contains("pub mod apps;\npub mod cache;\n")
    );
    assert!(project.has("tests/apps_deployment_controller.rs"));
    assert!(project.has("config/rbac/cache_memcached_viewer_role.yaml"));
}

#[test]
fn refusals_name_the_rule_and_change_nothing() {
    let mut project = Harness::init("");
    project.run(MEMCACHED).unwrap();
    let before = project.tree.clone();
    let refused = |project: &mut Harness, command: &str| {
        let err = project.run(command).unwrap_err();
        for path in before.paths() {
            assert_eq!(
                project.tree.get(path),
                before.get(path),
                "{command} changed {}",
                path.display()
            );
        }
        err
    };
    assert!(matches!(
        refused(&mut project, MEMCACHED),
        Error::ResourceExists { .. }
    ));
    assert!(matches!(
        refused(
            &mut project,
            "create api --group infra --version v1 --kind Cluster"
        ),
        Error::SecondGroup { .. }
    ));
    assert!(matches!(
        refused(
            &mut project,
            "create api --group cache --version v1 --kind memcached"
        ),
        Error::InvalidInput { flag: "--kind", .. }
    ));
    assert!(matches!(
        refused(
            &mut project,
            "create api --group nope --version v1 --kind Thing --resource=false"
        ),
        Error::UnknownKind { .. }
    ));
    assert!(matches!(
        refused(
            &mut project,
            "create api --group cache --version v1 --kind Redis --resource=false --controller=false"
        ),
        Error::NothingToDo
    ));
    // A file in the way, and a marker removed by the user.
    project.tree.write("src/api/v1/redis.rs", "// mine\n");
    let err = project
        .run("create api --group cache --version v1 --kind Redis")
        .unwrap_err();
    assert!(matches!(err, Error::FileExists { .. }), "{err}");
    project.tree.remove("src/api/v1/redis.rs");
    let lib = project
        .read("src/lib.rs")
        .replace("// +kubeforge:scaffold:crds", "");
    project.tree.write("src/lib.rs", &lib);
    let err = project
        .run("create api --group cache --version v1 --kind Redis")
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("src/lib.rs has no scaffold marker `// +kubeforge:scaffold:crds`"),
        "{err}"
    );
    assert!(!project.has("src/api/v1/redis.rs"));
}

#[test]
fn force_scaffolds_again_and_insertions_are_idempotent() {
    let mut project = Harness::init("");
    project.run(MEMCACHED).unwrap();
    let once = project.tree.clone();
    let again = project.run(&format!("{MEMCACHED} --force")).unwrap();
    assert!(
        again.changes.files().is_empty(),
        "{:?}",
        again.changes.summary()
    );
    for path in once.paths() {
        assert_eq!(project.tree.get(path), once.get(path));
    }
}

#[test]
fn generate_check_runs_the_manifests_check() {
    use super::super::generate::cargo_args;
    assert_eq!(
        cargo_args(false, true),
        ["run", "--", "manifests", "--check"]
    );
    assert_eq!(
        cargo_args(true, false),
        ["run", "--", "manifests", "--role-namespace", "system"]
    );
}

#[test]
fn unusual_versions_are_a_warning() {
    let mut project = Harness::init("");
    let ran = project
        .run("create api --group cache --version first --kind Memcached")
        .unwrap();
    assert!(
        ran.stderr
            .starts_with("warning: version \"first\" is not of the form v1, v1beta1 or v2alpha3"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_second_version_is_served_not_stored_and_gets_no_second_controller() {
    let mut project = Harness::init("");
    project
        .run("create api --group batch --version v1 --kind CronJob")
        .unwrap();
    let controller = project.read("src/controllers/cron_job.rs").to_owned();
    let ran = project
        .run("create api --group batch --version v2 --kind CronJob")
        .unwrap();
    assert_eq!(project.read("src/controllers/cron_job.rs"), controller);
    let v2 = project.read("src/api/v2/cron_job.rs");
    assert!(v2.contains("    plural = \"cronjobs\",\n"), "{v2}");
    assert!(
        v2.contains("    // CronJob v1 is the storage version"),
        "{v2}"
    );
    assert!(v2.contains("    storage = false,\n"), "{v2}");
    assert!(!project.read("src/api/v1/cron_job.rs").contains("storage"));
    for step in [
        "No controller was scaffolded for CronJob v2: CronJob has one (src/controllers/cron_job.rs, written for v1)",
        "CronJob v2 is served, and stored as v1",
        "kubeforge create webhook --group batch --version v1 --kind CronJob --conversion --spoke v2",
    ] {
        assert!(ran.stdout.contains(step), "{}", ran.stdout);
    }
    // One CRD per kind in lib.rs; PROJECT records no second controller.
    assert_eq!(project.read("src/lib.rs").matches("CronJob as").count(), 1);
    assert!(
        project
            .read("PROJECT")
            .contains("  kind: CronJob\n  path: demo::api::v2::CronJob\n  version: v2\n")
    );
    // Asked for, the controller moves to v2 with --force, and PROJECT follows.
    let refused = project
        .run("create api --group batch --version v3 --kind CronJob --controller")
        .unwrap_err();
    assert!(
        matches!(refused, Error::ControllerOfKindExists { .. }),
        "{refused}"
    );
    project
        .run("create api --group batch --version v3 --kind CronJob --controller --force")
        .unwrap();
    assert!(
        project
            .read("src/controllers/cron_job.rs")
            .contains("use crate::api::v3::CronJob;")
    );
    let project_file = project.read("PROJECT");
    assert_eq!(
        project_file.matches("controller: true").count(),
        1,
        "{project_file}"
    );
}

#[test]
fn kinds_named_like_rust_or_kubeforge_names_get_a_type_of_their_own_name() {
    let mut project = Harness::init("");
    project
        .run("create api --group names --version v1 --kind Error")
        .unwrap();
    let ty = project.read("src/api/v1/error.rs");
    assert!(
        ty.contains("    kind = \"Error\",\n    // The Rust type of Error objects: the name Error is one Rust code uses for another.\n    root = \"ErrorResource\",\n"),
        "{ty}"
    );
    assert!(
        project
            .read("src/controllers/error.rs")
            .contains("use crate::api::v1::ErrorResource;\n")
    );
    assert!(
        project
            .read("tests/error_controller.rs")
            .contains("use ::demo::api::v1::ErrorResource;\n")
    );
}

#[test]
fn the_api_approval_lands_on_every_crd_of_a_protected_domain() {
    let mut project = Harness::empty();
    let refused = project
        .run("init --domain k8s.io --project-name demo")
        .unwrap_err();
    assert!(
        matches!(refused, Error::ProtectedDomain { .. }),
        "{refused}"
    );
    assert_eq!(project.tree.paths().count(), 0);
    project
        .run("init --domain x-k8s.io --project-name demo")
        .unwrap();
    let mut project = Harness::empty();
    project
        .run("init --domain sigs.k8s.io --project-name demo --api-approved https://github.com/kubernetes/enhancements/pull/1111")
        .unwrap();
    assert!(
        project
            .read("PROJECT")
            .starts_with("# Code generated by kubeforge. DO NOT EDIT.")
    );
    assert!(
        project
            .read("PROJECT")
            .contains("apiApproved: https://github.com/kubernetes/enhancements/pull/1111\n")
    );
    project.run(MEMCACHED).unwrap();
    assert!(project.read("src/api/v1alpha1/memcached.rs").contains(
        "    annotation(\"api-approved.kubernetes.io\", \"https://github.com/kubernetes/enhancements/pull/1111\"),\n"
    ));
}

#[test]
fn the_kind_self_and_path_keyword_versions_get_names_of_their_own() {
    let mut project = Harness::init("");
    project
        .run("create api --group names --version self --kind Self")
        .unwrap();
    let ty = project.read("src/api/self_/self_.rs");
    assert!(
        ty.contains("    version = \"self\",\n    kind = \"Self\",\n    // The Rust type of Self objects: the name Self is one Rust code uses for another.\n    root = \"SelfResource\",\n"),
        "{ty}"
    );
    assert!(ty.contains("pub struct SelfSpec {"), "{ty}");
    assert!(
        project.read("src/api/mod.rs").contains("pub mod self_;\n"),
        "{}",
        project.read("src/api/mod.rs")
    );
    assert!(
        project
            .read("src/api/self_/mod.rs")
            .contains("pub mod self_;\npub use self::self_::*;\n")
    );
    assert!(
        project
            .read("src/controllers/self_.rs")
            .contains("use crate::api::self_::SelfResource;\n")
    );
    assert!(
        project
            .read("tests/self_controller.rs")
            .contains("use ::demo::api::self_::SelfResource;\n")
    );
    assert!(project.has("config/samples/names_self_self.yaml"));
    // A kind whose type would be another kind's renamed type is refused.
    let refused = project
        .run("create api --group names --version v1 --kind SelfResource")
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("Self's type is named SelfResource"),
        "{refused}"
    );
    for version in ["super", "crate", "mod", "type", "gen"] {
        project
            .run(&format!(
                "create api --group names --version {version} --kind Thing"
            ))
            .unwrap_or_else(|e| panic!("{version}: {e}"));
    }
    let api = project.read("src/api/mod.rs");
    for module in ["super_", "crate_", "mod_", "r#type", "r#gen"] {
        assert!(api.contains(&format!("pub mod {module};\n")), "{api}");
    }
    assert!(project.has("src/api/super_/thing.rs"));
    assert!(project.has("src/api/type/thing.rs"));
}

#[test]
fn a_project_named_like_a_keyword_names_its_crate_raw() {
    let mut project = Harness::empty();
    project
        .run("init --domain example.com --project-name match")
        .unwrap();
    project
        .run("create api --group cache --version v1 --kind Memcached")
        .unwrap();
    assert!(
        project
            .read("src/main.rs")
            .contains("use ::r#match::controllers;\n")
    );
    assert!(
        project
            .read("tests/memcached_controller.rs")
            .contains("use ::r#match::api::v1::Memcached;\n")
    );
    assert!(project.read("Cargo.toml").contains("name = \"match\"\n"));
    for refused in ["self", "super", "crate"] {
        let mut empty = Harness::empty();
        let err = empty
            .run(&format!(
                "init --domain example.com --project-name {refused}"
            ))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("path keyword")
                && err.contains(&format!("--project-name {refused}-operator")),
            "{err}"
        );
    }
}

#[test]
fn registrations_the_user_reformatted_are_not_inserted_again() {
    let mut project = Harness::init("");
    project.run(MEMCACHED).unwrap();
    // The user reformats what the first command inserted (same tokens, other spacing).
    let main = project
        .read("src/main.rs")
        .replace("use ::demo::controllers;", "use ::demo::{controllers};");
    project.tree.write("src/main.rs", &main);
    let modules = project
        .read("src/api/mod.rs")
        .replace("pub mod v1alpha1;", "pub  mod  v1alpha1 ;");
    project.tree.write("src/api/mod.rs", &modules);
    project
        .run("create api --group cache --version v1 --kind Other")
        .unwrap();
    let main = project.read("src/main.rs");
    assert_eq!(main.matches("use ::demo::").count(), 1, "{main}");
    assert!(main.contains(
        "    controllers::memcached::add_to_manager(&mut manager);\n    controllers::other::add_to_manager(&mut manager);\n"
    ));
    // `v1` goes before the user's `v1alpha1`, as rustfmt orders module declarations.
    assert!(
        project
            .read("src/api/mod.rs")
            .ends_with("pub mod v1;\npub  mod  v1alpha1 ;\n// +kubeforge:scaffold:modules\n"),
        "{}",
        project.read("src/api/mod.rs")
    );
}

#[test]
fn a_main_rs_that_does_not_parse_refuses_the_command() {
    let mut project = Harness::init("");
    let broken = project
        .read("src/main.rs")
        .replace("manager.run().await?;", "manager.run(.await?;");
    project.tree.write("src/main.rs", &broken);
    let snapshot = |tree: &crate::scaffold::MemoryTree| -> Vec<(std::path::PathBuf, String)> {
        tree.paths()
            .map(|p| (p.to_owned(), tree.get(p).unwrap_or_default().to_owned()))
            .collect()
    };
    let before = snapshot(&project.tree);
    let err = project.run(MEMCACHED).unwrap_err();
    assert!(matches!(err, Error::RustSyntax { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("src/main.rs does not parse as Rust"),
        "{message}"
    );
    assert!(message.contains("fix:"), "{message}");
    assert_eq!(snapshot(&project.tree), before);
}
