//! The graph's own tests: small synthetic trees, including ones that must fail the rules.

use super::*;

fn graph(files: &[(&str, &str)]) -> ModuleGraph {
    let sources: Vec<(PathBuf, String)> = files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect();
    ModuleGraph::from_sources(&sources)
}

fn targets(g: &ModuleGraph, module: &str) -> Vec<String> {
    let mut t: Vec<String> = g.files[module]
        .imports
        .iter()
        .map(|i| i.to.clone())
        .collect();
    t.sort();
    t
}

/// A small tree: `top` over `mid` over `low`, where `low` imports `mid` (upward) and
/// `mid/a.rs` and `mid/b.rs` import each other through a re-export.
fn knotted() -> ModuleGraph {
    graph(&[
        (
            "lib.rs",
            "mod top;\nmod mid;\nmod low;\npub use top::Run;\n",
        ),
        ("top.rs", "use crate::mid::Thing;\npub struct Run;\n"),
        (
            "mid/mod.rs",
            "mod a;\nmod b;\npub use a::Thing;\npub(crate) use b::Other;\n",
        ),
        (
            "mid/a.rs",
            "// crate::low::nothing here\npub struct Thing;\nfn f() { super::Other::go(\"crate::top\") }\n",
        ),
        (
            "mid/b.rs",
            "pub struct Other;\nimpl Other { pub fn go() { let _ = crate::mid::a::Thing; } }\n",
        ),
        (
            "low.rs",
            "use crate::{mid::{self, Thing as T}};\npub fn g() { let _: T; mid::helper(); }\n",
        ),
    ])
}

const LAYERS: &[(&str, &[&str])] = &[
    ("root", &["crate"]),
    ("top", &["top"]),
    ("mid", &["mid"]),
    ("low", &["low"]),
];

#[test]
fn resolves_use_trees_reexports_and_code_paths() {
    let g = knotted();
    // `mod` declarations place files in the tree; only the re-export is an import.
    assert_eq!(targets(&g, "crate"), ["top"]);
    // `crate::mid::Thing` is `mid::a::Thing` re-exported: the import is of mid/a.rs.
    assert_eq!(targets(&g, "top"), ["mid::a"]);
    // `super::Other` resolves through mid/mod.rs's re-export; comments and strings are
    // not paths.
    assert_eq!(targets(&g, "mid::a"), ["mid::b"]);
    assert_eq!(targets(&g, "mid::b"), ["mid::a"]);
    // `use crate::mid::{self}` and `mid::helper()` (unknown item) name mid/mod.rs.
    assert_eq!(targets(&g, "low"), ["mid", "mid::a"]);
}

#[test]
fn finds_the_loop_and_names_its_files() {
    let loops = knotted().loops();
    assert_eq!(loops.len(), 1, "{loops:?}");
    assert_eq!(
        loops[0].files,
        [PathBuf::from("mid/a.rs"), PathBuf::from("mid/b.rs")]
    );
    let text = loops[0].to_string();
    assert!(
        text.contains("mid/a.rs:3 imports `super::Other::go`"),
        "{text}"
    );
    assert!(
        text.contains("mid/b.rs:2 imports `crate::mid::a::Thing`"),
        "{text}"
    );
}

#[test]
fn finds_the_upward_import() {
    let violations = knotted().layer_violations(LAYERS);
    let text: Vec<String> = violations
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    assert_eq!(violations.len(), 2, "{text:#?}");
    assert!(
        text[0].starts_with(
            "low.rs:1 (layer `low`) imports `use crate::mid` from mid/mod.rs (layer `mid`, higher)"
        ),
        "{text:#?}"
    );
    assert_eq!(violations[1].to, PathBuf::from("mid/a.rs"));
    assert!(knotted().unlayered(LAYERS).is_empty());
    assert_eq!(knotted().unlayered(&LAYERS[..3]), [PathBuf::from("low.rs")]);
}

#[test]
fn a_child_may_use_its_parent_unless_the_parent_uses_it() {
    let declared = graph(&[
        ("lib.rs", "mod a;\n"),
        (
            "a/mod.rs",
            "mod b;\n#[cfg(test)]\nmod tests;\npub fn helper() {}\n",
        ),
        ("a/b.rs", "pub fn f() { super::helper() }\n"),
        ("a/tests.rs", "use super::*;\n"),
    ]);
    assert!(declared.loops().is_empty());
    assert!(targets(&declared, "a").is_empty());
    assert_eq!(targets(&declared, "a::tests"), ["a"]);
    let used = graph(&[
        ("lib.rs", "mod a;\n"),
        ("a/mod.rs", "mod b;\npub use b::f;\npub fn helper() {}\n"),
        ("a/b.rs", "pub fn f() { super::helper() }\n"),
    ]);
    let loops = used.loops();
    assert_eq!(loops.len(), 1, "{loops:?}");
    assert_eq!(
        loops[0].files,
        [PathBuf::from("a/mod.rs"), PathBuf::from("a/b.rs")]
    );
}

#[test]
fn inline_test_modules_and_longer_loops() {
    let g = graph(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
        (
            "a.rs",
            "pub fn x() { crate::b::y() }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::b::y;\n}\n",
        ),
        (
            "b.rs",
            "pub fn y() { let s = r#\"crate::a\"#; c::z() }\nuse crate::c;\n",
        ),
        (
            "c.rs",
            "pub fn z() { let _ = 'a'; let _l: &'static str; crate::a::x() }\n",
        ),
    ]);
    let loops = g.loops();
    assert_eq!(loops.len(), 1);
    assert_eq!(loops[0].cycle.len(), 3, "{}", loops[0]);
    assert_eq!(targets(&g, "a"), ["b"]);
}
