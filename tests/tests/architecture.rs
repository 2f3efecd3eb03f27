//! The shape of every crate of the workspace, checked from its source: no two files import each
//! other (directly or through others), and no source file grows past about 700 lines (a file
//! that long usually holds two jobs: split it by job).
//!
//! The import graph comes from `testenv/tests/support/module_graph/`, the std-only reader the
//! embedded API server's own layer test uses. That test
//! (`testenv/tests/embedded/architecture.rs`) also checks testenv's layer order and its loops, so
//! testenv is checked there, not here.

#[path = "../../testenv/tests/support/module_graph/mod.rs"]
mod module_graph;

use std::path::{Path, PathBuf};

use module_graph::ModuleGraph;

/// About 700 lines: past that a file usually holds two jobs.
const MAX_LINES: usize = 700;

/// The crates whose `src/` must be free of import loops here.
const LOOP_CHECKED: &[&str] = &["cli", "derive", "runtime", "schema", "templates", "tests"];

/// The crates whose `src/` files must stay under [`MAX_LINES`].
const SIZE_CHECKED: &[&str] = &[
    "cli",
    "derive",
    "runtime",
    "schema",
    "templates",
    "testenv",
    "tests",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, relative to `root`, with its text.
fn sources(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{} is readable: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a readable source file");
            let relative = path.strip_prefix(root).expect("under root").to_path_buf();
            out.push((relative, text));
        }
    }
}

/// The import graph of one crate's library. A binary root (`main.rs` beside `lib.rs`) is a
/// crate of its own that reaches the library only through its public API, so it is left out.
fn library_graph(krate: &str) -> ModuleGraph {
    let src = workspace().join(krate).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let has_lib = files.iter().any(|(p, _)| p == Path::new("lib.rs"));
    files.retain(|(p, _)| !(has_lib && p == Path::new("main.rs")));
    assert!(!files.is_empty(), "{} has no sources", src.display());
    ModuleGraph::from_sources(&files)
}

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let mut report = Vec::new();
    for krate in LOOP_CHECKED {
        let graph = library_graph(krate);
        assert!(
            graph.files.len() > 1 || *krate == "tests",
            "{krate}/src read as {} files",
            graph.files.len()
        );
        for found in graph.loops() {
            report.push(format!("{krate}/src: {found}"));
        }
    }
    assert!(
        report.is_empty(),
        "{} import loops (move what both sides need into a file of its own, below both):\n{}",
        report.len(),
        report.join("\n")
    );
}

#[test]
fn no_source_file_holds_more_than_about_700_lines() {
    let mut long = Vec::new();
    for krate in SIZE_CHECKED {
        let src = workspace().join(krate).join("src");
        let mut files = Vec::new();
        sources(&src, &src, &mut files);
        for (path, text) in files {
            let lines = text.lines().count();
            if lines > MAX_LINES {
                long.push(format!("{krate}/src/{} has {lines} lines", path.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "files past about {MAX_LINES} lines (each likely holds two jobs: split it by job):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_checks_see_a_loop_where_there_is_one() {
    // The rule can fail: two files of a synthetic crate that use each other form a loop.
    let graph = ModuleGraph::from_sources(&[
        (PathBuf::from("lib.rs"), "mod a;\nmod b;\n".to_string()),
        (
            PathBuf::from("a.rs"),
            "use crate::b::B;\npub struct A;\n".to_string(),
        ),
        (
            PathBuf::from("b.rs"),
            "use crate::a::A;\npub struct B;\n".to_string(),
        ),
    ]);
    let loops = graph.loops();
    assert_eq!(loops.len(), 1, "{loops:?}");
    assert_eq!(
        loops[0].files,
        [PathBuf::from("a.rs"), PathBuf::from("b.rs")]
    );
}
