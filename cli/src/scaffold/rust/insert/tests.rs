//! Insertions at markers on in-memory Rust files.

use std::path::Path;

use super::*;

const MODULES: &str = "// +kubeforge:scaffold:modules";
const BUILDER: &str = "// +kubeforge:scaffold:builder";
const CRDS: &str = "// +kubeforge:scaffold:crds";
const WEBHOOKS: &str = "// +kubeforge:scaffold:webhooks";

const MAIN: &str = "use kubeforge::prelude::*;\n\n// +kubeforge:scaffold:imports\n\nfn main() {\n    let mut manager = Manager::new();\n    // +kubeforge:scaffold:builder\n    manager.run();\n}\n";

fn insert(text: &str, marker: &str, pieces: &[&str]) -> Result<Option<String>, Error> {
    let pieces: Vec<String> = pieces.iter().map(|p| (*p).to_owned()).collect();
    insert_at_marker(Path::new("src/x.rs"), text, marker, &pieces)
}

fn inserted(text: &str, marker: &str, pieces: &[&str]) -> String {
    insert(text, marker, pieces).unwrap().expect("the marker")
}

#[test]
fn statements_go_before_the_marker_with_its_indentation_once() {
    let once = inserted(
        MAIN,
        BUILDER,
        &["a::add(&mut manager);", "b::add(&mut manager);"],
    );
    assert_eq!(
        once,
        MAIN.replace(
            "    // +kubeforge:scaffold:builder",
            "    a::add(&mut manager);\n    b::add(&mut manager);\n    // +kubeforge:scaffold:builder"
        )
    );
    assert_eq!(inserted(&once, BUILDER, &["a::add(&mut manager);"]), once);
}

#[test]
fn a_reformatted_line_is_not_inserted_again() {
    let theirs = MAIN.replace(
        "    // +kubeforge:scaffold:builder",
        "    a :: add( &mut manager ) ;   // mine\n    // +kubeforge:scaffold:builder",
    );
    assert_eq!(
        inserted(&theirs, BUILDER, &["a::add(&mut manager);"]),
        theirs
    );
    let imports = "use ::demo :: {controllers};\n// +kubeforge:scaffold:imports\n";
    assert_eq!(
        inserted(
            imports,
            "// +kubeforge:scaffold:imports",
            &["use ::demo::controllers;"]
        ),
        imports
    );
    let modules = "pub  mod  v1 ;\n// +kubeforge:scaffold:modules\n";
    assert_eq!(inserted(modules, MODULES, &["pub mod v1;"]), modules);
    let crds = "fn crds() -> Vec<C> {\n    vec![\n        < crate::M as CustomResourceExt >::crd() ,\n        // +kubeforge:scaffold:crds\n    ]\n}\n";
    assert_eq!(
        inserted(crds, CRDS, &["<crate::M as CustomResourceExt>::crd(),"]),
        crds
    );
}

#[test]
fn module_declarations_join_the_run_above_the_marker_in_rustfmt_order() {
    let text = "//! Doc.\n\npub mod v1alpha1;\npub mod v2;\n// +kubeforge:scaffold:modules\n";
    assert_eq!(
        inserted(text, MODULES, &["pub mod v1;", "pub mod v10;", "mod v1_b;"]),
        "//! Doc.\n\npub mod v1;\npub mod v10;\nmod v1_b;\npub mod v1alpha1;\npub mod v2;\n// +kubeforge:scaffold:modules\n"
    );
    let raw =
        "pub mod names;\n/// Doc.\n#[cfg(test)]\npub mod self_;\n// +kubeforge:scaffold:modules\n";
    assert_eq!(
        inserted(raw, MODULES, &["pub mod r#gen;", "pub mod r#type;"]),
        "pub mod r#gen;\npub mod names;\n/// Doc.\n#[cfg(test)]\npub mod self_;\npub mod r#type;\n// +kubeforge:scaffold:modules\n"
    );
    // A blank line, a comment or another item ends the run rustfmt sorts.
    let apart = "pub mod z;\n\npub mod y;\npub use self::y::*;\n// +kubeforge:scaffold:modules\n";
    assert_eq!(
        inserted(apart, MODULES, &["pub mod a;"]),
        "pub mod z;\n\npub mod y;\npub use self::y::*;\npub mod a;\n// +kubeforge:scaffold:modules\n"
    );
}

#[test]
fn macro_arguments_are_inserted_once_with_the_comma_before_them() {
    let text = "fn crds() -> Vec<C> {\n    vec![\n        a()\n        // +kubeforge:scaffold:crds\n    ]\n}\n";
    let once = inserted(text, CRDS, &["b(),"]);
    assert_eq!(
        once,
        "fn crds() -> Vec<C> {\n    vec![\n        a(),\n        b(),\n        // +kubeforge:scaffold:crds\n    ]\n}\n"
    );
    assert_eq!(inserted(&once, CRDS, &["b(),"]), once);
}

#[test]
fn calls_extend_the_chain_a_block_ends_with() {
    let text =
        "pub fn register(builder: B) -> B {\n    builder\n    // +kubeforge:scaffold:webhooks\n}\n";
    let one = inserted(
        text,
        WEBHOOKS,
        &[".defaulter::<crate::api::v1::M>(m_v1::MDefaulter)"],
    );
    assert_eq!(
        one,
        "pub fn register(builder: B) -> B {\n    builder.defaulter::<crate::api::v1::M>(m_v1::MDefaulter)\n    // +kubeforge:scaffold:webhooks\n}\n"
    );
    let two = inserted(
        &one,
        WEBHOOKS,
        &[
            ".defaulter::<crate::api::v1::M>(m_v1::MDefaulter)",
            ".conversion::<crate::api::v1::M>()",
        ],
    );
    assert_eq!(
        two,
        "pub fn register(builder: B) -> B {\n    builder\n        .defaulter::<crate::api::v1::M>(m_v1::MDefaulter)\n        .conversion::<crate::api::v1::M>()\n    // +kubeforge:scaffold:webhooks\n}\n"
    );
    assert_eq!(
        inserted(&two, WEBHOOKS, &[".conversion::<crate::api::v1::M>( )"]),
        two
    );
}

#[test]
fn a_file_that_does_not_parse_is_refused() {
    let broken = MAIN.replace("manager.run();", "manager.run(;");
    let err = insert(&broken, BUILDER, &["a::add(&mut manager);"]).unwrap_err();
    assert!(matches!(err, Error::RustSyntax { .. }), "{err}");
    assert!(err.to_string().contains("src/x.rs"), "{err}");
}

#[test]
fn a_marker_inside_a_statement_or_a_missing_one_is_refused() {
    let misplaced = "fn main() {\n    run(\n        // +kubeforge:scaffold:builder\n    );\n}\n";
    let err = insert(misplaced, BUILDER, &["a();"]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::MarkerMisplaced {
                inside: "a statement",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("inside a statement"), "{err}");
    assert_eq!(insert("fn main() {}\n", BUILDER, &["a();"]).unwrap(), None);
}

#[test]
fn a_piece_that_does_not_belong_where_the_marker_is_is_refused() {
    let err = insert(MAIN, BUILDER, &["pub struct"]).unwrap_err();
    assert!(matches!(err, Error::Internal(_)), "{err}");
    let err = insert(
        MAIN,
        MODULES.replace("modules", "imports").as_str(),
        &["let x = 1;"],
    )
    .unwrap_err();
    assert!(matches!(err, Error::Internal(_)), "{err}");
}
