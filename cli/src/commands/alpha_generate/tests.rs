//! `alpha generate`'s replay and carry-over on in-memory projects.

use std::collections::BTreeMap;
use std::path::PathBuf;

use kubeforge_templates::Renderer;

use super::super::create_external::tests::fixture;
use super::super::harness::Harness;
use super::super::load_project;
use super::{carry, inputs, replay};
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
    let user: BTreeMap<PathBuf, Vec<u8>> = project
        .tree
        .paths()
        .map(|p| {
            (
                p.to_owned(),
                project.tree.get(p).unwrap().as_bytes().to_vec(),
            )
        })
        .collect();
    let carried = carry::carry(&fresh, &user);
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
