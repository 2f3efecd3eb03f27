//! The scaffolding commands together, on an in-memory project: markers, refusals, and edits of
//! the user's Rust files.

use std::collections::BTreeSet;

use super::harness::Harness;
use crate::artifacts;
use crate::error::Error;

/// Every command of a broad session, single-group and multigroup: the harness checks each
/// insertion against the templates that wrote its file, and together they insert at every
/// marker the catalogue declares.
#[test]
fn every_marker_a_command_inserts_at_is_in_the_template_that_wrote_the_file() {
    let mut used = BTreeSet::new();
    for init in ["", "--multigroup"] {
        let mut project = Harness::init(init);
        for command in [
            "create api --group cache --version v1 --kind Memcached",
            "create api --group cache --version v1beta1 --kind Memcached --controller=false",
            "create api --group cache --version v1 --kind World --reconcile state-of-world",
            "create api --group apps --version v1 --kind Deployment --resource=false",
            "create api --group core --version v1 --kind ConfigMap --resource=false",
            "create webhook --group cache --version v1 --kind Memcached --defaulting",
            "create webhook --group cache --version v1 --kind Memcached --programmatic-validation --conversion --spoke v1beta1",
            "create webhook --group core --version v1 --kind Pod --defaulting --programmatic-validation",
            "create webhook --group cache --version v1 --kind Memcached --defaulting --programmatic-validation --conversion --spoke v1beta1 --force",
        ] {
            project
                .run(command)
                .unwrap_or_else(|e| panic!("{command}: {e}"));
        }
        if init.is_empty() {
            project
                .run("create api --group cache --version v1alpha1 --kind Memcached --controller=false")
                .unwrap();
        }
        used.extend(project.insertions.iter().map(|(_, _, line)| line.clone()));
    }
    let declared: BTreeSet<String> = artifacts::TEMPLATES
        .iter()
        .flat_map(|t| {
            t.markers
                .iter()
                .map(move |m| format!("{} +kubeforge:scaffold:{m}", t.comment()))
        })
        .collect();
    assert_eq!(used, declared, "markers never inserted at");
}

#[test]
fn a_refused_command_leaves_the_tree_as_it_was() {
    let mut project = Harness::init("");
    project
        .run("create api --group cache --version v1 --kind Memcached")
        .unwrap();
    let before = project.tree.clone();
    let main = project
        .read("src/main.rs")
        .replace("    // +kubeforge:scaffold:webhook-server\n", "");
    project.tree.write("src/main.rs", &main);
    let err = project
        .run("create webhook --group cache --version v1 --kind Memcached --defaulting")
        .unwrap_err();
    assert!(matches!(err, Error::MarkerMissing { .. }), "{err}");
    assert!(!project.has("src/webhooks/mod.rs"));
    assert_eq!(project.read("PROJECT"), before.get("PROJECT").unwrap());
}

#[test]
fn init_then_create_api_report_what_they_wrote() {
    let mut project = Harness::empty();
    let init = project
        .run("init --domain example.com --project-name demo")
        .unwrap();
    assert!(
        init.stdout
            .starts_with("Writing scaffold for you to edit...\n  create .dockerignore\n")
    );
    assert!(
        init.stdout
            .contains("\nNext steps:\n  kubeforge create api"),
        "{}",
        init.stdout
    );
    assert!(
        init.stdout
            .contains("The kubeforge crates come from crates.io, version ")
    );
    assert_eq!(init.changes.files().len(), project.tree.paths().count());
    let api = project
        .run("create api --group cache --version v1alpha1 --kind Memcached")
        .unwrap();
    assert!(
        api.stdout.contains("  update src/main.rs\n"),
        "{}",
        api.stdout
    );
    assert!(
        api.stdout
            .contains("  create src/api/v1alpha1/memcached.rs\n")
    );
    assert!(api.stdout.contains(
        "  1. Define the spec and status of Memcached in src/api/v1alpha1/memcached.rs.\n"
    ));
}
