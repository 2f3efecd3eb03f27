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
