//! `alpha generate`'s replay and carry-over on in-memory projects.

use std::collections::BTreeMap;
use std::path::PathBuf;

use kubeforge_templates::Renderer;

use super::super::create_external::tests::fixture;
use super::super::harness::{Harness, check_anchor};
use super::super::load_project;
use super::{carry, inputs, replay};
use crate::error::Error;
use crate::scaffold::Tree;
use crate::template_set::CURRENT_VERSION;

/// A project with an own API (and its webhooks), a built-in kind's controller, a
/// state-of-world controller and an external kind.
fn project() -> Harness {
    let mut project = Harness::init("--multigroup --owner Example");
    for command in [
        "create api --group cache --version v1 --kind Memcached",
        "create api --group cache --version v1beta1 --kind Memcached --controller=false",
        "create api --group ops --version v1 --kind Policy --namespaced=false --reconcile state-of-world",
        "create api --group apps --version v1 --kind Deployment --resource=false",
        "create webhook --group cache --version v1 --kind Memcached --defaulting --programmatic-validation --conversion --spoke v1beta1",
    ] {
        project.run(command).unwrap();
    }
    let crd = fixture("prometheus-operator/monitoring.coreos.com_prometheusrules.yaml");
    project
        .run(&format!("create api --external --crd {crd}"))
        .unwrap();
    project
}

fn replayed(project: &Harness) -> replay::Replayed {
    let file = load_project(&project.tree).unwrap();
    let inputs = inputs::read(&file, &project.tree, 1999).unwrap();
    assert_eq!(inputs.year, 2026, "the year comes from the boilerplate");
    assert_eq!(inputs.owner.as_deref(), Some("Example"));
    let steps = replay::steps(&file, &inputs);
    replay::replay(&steps, &inputs, &Renderer::new().unwrap(), CURRENT_VERSION).unwrap()
}

#[test]
fn replaying_project_gives_the_same_files() {
    let project = project();
    let replayed = replayed(&project);
    assert_eq!(
        replayed.commands,
        [
            "init --domain example.com --project-name demo --license apache2 --k8s-version 1.35 --owner Example --multigroup",
            "create api --group cache --version v1 --kind Memcached",
            "create api --group cache --version v1beta1 --kind Memcached --controller=false",
            "create api --group ops --version v1 --kind Policy --namespaced=false --reconcile state-of-world",
            "create api --group apps --version v1 --kind Deployment --resource=false",
            "create api --external --crd config/crd/external/monitoring.coreos.com_prometheusrules.yaml --group monitoring.coreos.com --version v1 --kind PrometheusRule",
            "create webhook --group cache --version v1 --kind Memcached --defaulting --programmatic-validation --conversion --spoke v1beta1",
        ]
    );
    let original: Vec<_> = project.tree.paths().collect();
    let again: Vec<_> = replayed.tree.paths().collect();
    assert_eq!(original, again);
    for path in original {
        assert_eq!(
            project.tree.get(path),
            replayed.tree.get(path),
            "{} differs",
            path.display()
        );
    }
}

#[test]
fn the_users_code_is_carried_and_the_rest_listed() {
    let mut project = project();
    let fresh = replayed(&project).tree;
    let controller = "src/controllers/cache/memcached.rs";
    let edited = project.read(controller).replace("TODO(user)", "DONE");
    project.tree.write(controller, edited.clone());
    project.tree.write("src/util.rs", "pub fn help() {}\n");
    let lib = project.read("src/lib.rs").replace(
        "pub mod controllers;\n",
        "pub mod controllers;\npub mod util;\n",
    );
    project.tree.write("src/lib.rs", lib);
    let cargo = project.read("Cargo.toml").replace(
        "\n\n[dev-dependencies]\n",
        "\nfastrand = \"2\"\n\n[dev-dependencies]\n",
    );
    project.tree.write("Cargo.toml", cargo);
    let main = project
        .read("src/main.rs")
        .replace("let cli = Cli::parse();", "let cli = Cli::parse(); // mine");
    project.tree.write("src/main.rs", main);
    let carried = carry::carry(&fresh, &files(&project)).unwrap();
    let file = |p: &str| String::from_utf8(carried.files[&PathBuf::from(p)].clone()).unwrap();
    assert_eq!(file(controller), edited);
    assert!(carried.yours.contains(&PathBuf::from(controller)));
    assert_eq!(carried.added, [PathBuf::from("src/util.rs")]);
    assert!(file("src/lib.rs").contains("pub mod util;\n"));
    assert!(file("Cargo.toml").contains("fastrand = \"2\"\n"));
    assert!(!file("src/main.rs").contains("// mine"));
    let not_carried: Vec<_> = carried
        .not_carried
        .iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert_eq!(not_carried, ["src/main.rs"]);
    assert!(carried.new.is_empty());
}

/// Every file of `project`, as `alpha generate` reads them.
fn files(project: &Harness) -> BTreeMap<PathBuf, Vec<u8>> {
    project
        .tree
        .paths()
        .map(|p| {
            (
                p.to_owned(),
                project.tree.get(p).unwrap().as_bytes().to_vec(),
            )
        })
        .collect()
}

#[test]
fn the_marker_carried_modules_go_to_is_the_new_lib_rs_s() {
    let fresh = replayed(&project()).tree;
    let anchor = carry::modules_anchor();
    check_anchor(&anchor, &fresh.templates(&anchor.path));
}

#[test]
fn a_users_lib_rs_that_does_not_parse_is_refused() {
    let mut project = project();
    let fresh = replayed(&project).tree;
    let lib = format!("{}pub mod half(\n", project.read("src/lib.rs"));
    project.tree.write("src/lib.rs", lib);
    let err = carry::carry(&fresh, &files(&project)).unwrap_err();
    assert!(matches!(err, Error::RustSyntax { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("src/lib.rs does not parse as Rust"),
        "{message}"
    );
    assert!(message.contains("nothing was written"), "{message}");
}

#[test]
fn a_replayed_command_that_fails_keeps_its_error() {
    let project = Harness::init("");
    let file = load_project(&project.tree).unwrap();
    let inputs = inputs::read(&file, &project.tree, 2026).unwrap();
    // `create api` without `init` before it: the in-memory tree has no PROJECT.
    let step = replay::Step {
        args: "create api --group cache --version v1 --kind Memcached"
            .split(' ')
            .map(str::to_owned)
            .collect(),
        crd: None,
        module: None,
    };
    let err =
        replay::replay(&[step], &inputs, &Renderer::new().unwrap(), CURRENT_VERSION).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("re-running `kubeforge create api --group cache"),
        "{message}"
    );
    assert!(message.contains("has no PROJECT file"), "{message}");
    let Error::Alpha(alpha) = &err else {
        panic!("{err:?}");
    };
    let source = std::error::Error::source(alpha.as_ref()).expect("the command's error is kept");
    let cause = source.downcast_ref::<Error>().expect("a kubeforge error");
    assert!(matches!(cause, Error::NotAProject { .. }), "{cause:?}");
}

#[test]
fn replay_keeps_the_api_approval_of_a_protected_domain() {
    let mut project = Harness::empty();
    project
        .run("init --domain sigs.k8s.io --project-name demo --owner Example --api-approved https://github.com/kubernetes/enhancements/pull/1111")
        .unwrap();
    project
        .run("create api --group ops --version v1 --kind Gadget")
        .unwrap();
    let replayed = replayed(&project);
    assert!(
        replayed.commands[0]
            .ends_with(" --api-approved https://github.com/kubernetes/enhancements/pull/1111"),
        "{}",
        replayed.commands[0]
    );
    for path in project.tree.paths() {
        assert_eq!(
            project.tree.get(path),
            replayed.tree.get(path),
            "{} differs",
            path.display()
        );
    }
}
