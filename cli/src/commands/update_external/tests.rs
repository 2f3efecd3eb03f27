//! `update external`'s stages on an in-memory project.

use serde_json::json;

use super::super::harness::Harness;

/// A Widget CRD whose spec has `properties`, at the versions `versions` (the first stored).
fn widget_crd(properties: serde_json::Value, versions: &[&str]) -> String {
    let versions: Vec<_> = versions
        .iter()
        .enumerate()
        .map(|(i, name)| {
            json!({
                "name": name,
                "served": true,
                "storage": i == 0,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": properties},
                }}},
            })
        })
        .collect();
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.io"},
        "spec": {
            "group": "example.io",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": versions,
        },
    });
    serde_saphyr::to_string(&crd).unwrap()
}

const TYPES: &str = "src/external/example_io/v1/widget.rs";

/// A project with the Widget types generated from crds/widget.yaml.
fn project_with_widget() -> Harness {
    let mut project = Harness::init("");
    project.tree.write(
        "crds/widget.yaml",
        widget_crd(json!({"size": {"type": "integer"}}), &["v1"]),
    );
    project
        .run("create api --external --crd crds/widget.yaml --controller=false")
        .unwrap();
    project
}

#[test]
fn regenerates_after_the_crd_changes_and_prints_the_diff() {
    let mut project = project_with_widget();
    assert!(project.read(TYPES).contains("    pub size: Option<i64>,\n"));
    project.tree.write(
        "crds/widget.yaml",
        widget_crd(json!({"color": {"type": "string"}}), &["v1"]),
    );
    // --dry-run: the diff, nothing written.
    let before = project.tree.clone();
    let ran = project.run("update external --dry-run").unwrap();
    assert!(ran.changes.files().is_empty());
    assert_eq!(project.read(TYPES), before.get(TYPES).unwrap());
    assert!(
        ran.stdout
            .contains("--- a/src/external/example_io/v1/widget.rs\n+++ b/src/external/example_io/v1/widget.rs\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("\n-    pub size: Option<i64>,\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("\n+    pub color: Option<String>,\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("--- config/crd/external/example.io_widgets.yaml: the CRD, +")
    );
    assert!(
        ran.stdout
            .contains("without --dry-run, to write these changes")
    );
    // For real: the types and the CRD copy change, nothing else.
    let ran = project.run("update external").unwrap();
    let changed: Vec<String> = ran
        .changes
        .files()
        .iter()
        .map(|f| f.path.display().to_string())
        .collect();
    assert_eq!(
        changed,
        ["config/crd/external/example.io_widgets.yaml", TYPES]
    );
    assert!(
        project
            .read(TYPES)
            .contains("    pub color: Option<String>,\n")
    );
    assert!(!project.read(TYPES).contains("size"));
    assert!(
        ran.stdout
            .contains("cargo build      # code that used fields")
    );
    // Up to date now.
    let ran = project.run("update external").unwrap();
    assert!(ran.changes.files().is_empty());
    assert!(ran.stdout.contains("nothing changed"), "{}", ran.stdout);
}

#[test]
fn a_new_source_a_kind_filter_and_versions_gone() {
    let mut project = Harness::init("");
    project.tree.write(
        "crds/widget.yaml",
        widget_crd(json!({"size": {"type": "integer"}}), &["v1", "v1beta1"]),
    );
    project
        .run("create api --external --crd crds/widget.yaml --version all --controller=false")
        .unwrap();
    let certificates = super::super::create_external::tests::fixture(
        "cert-manager/cert-manager.io_certificates.yaml",
    );
    project
        .run(&format!(
            "create api --external --crd {certificates} --controller=false"
        ))
        .unwrap();
    // A newer Widget CRD elsewhere, without v1beta1: --crd takes it and PROJECT records it.
    project.tree.write(
        "crds/widget-2.yaml",
        widget_crd(
            json!({"size": {"type": "integer"}, "shape": {"type": "string"}}),
            &["v1"],
        ),
    );
    let ran = project
        .run("update external --kind Widget --crd crds/widget-2.yaml")
        .unwrap();
    assert!(
        ran.stderr.contains(
            "the CRD of Widget no longer has version v1beta1: its types were left as they are"
        ),
        "{}",
        ran.stderr
    );
    assert!(project.read(TYPES).contains("pub shape: Option<String>,"));
    assert!(project.has("src/external/example_io/v1beta1/widget.rs"));
    let project_file = project.read("PROJECT");
    assert_eq!(
        project_file.matches("module: crds/widget-2.yaml").count(),
        2
    );
    assert!(project_file.contains(&format!("module: {certificates}")));
    // The Certificate was not asked for: untouched.
    assert!(
        ran.changes
            .files()
            .iter()
            .all(|f| !f.path.starts_with("src/external/cert_manager_io"))
    );
    // No such kind.
    let err = project.run("update external --kind Nope").unwrap_err();
    assert!(
        err.to_string()
            .contains("PROJECT has no external kind named Nope."),
        "{err}"
    );
    // A source that lost the kind.
    project.tree.write(
        "crds/widget-2.yaml",
        widget_crd(json!({}), &["v1"])
            .replace("Widget", "Gadget")
            .replace("widgets", "gadgets"),
    );
    let err = project.run("update external --kind Widget").unwrap_err();
    assert!(
        err.to_string()
            .contains("has no CRD of kind Widget (example.io) (it has Gadget (example.io))"),
        "{err}"
    );
}
