//! Helpers of the CLI tests: run the `kubeforge` binary, snapshot and hash a directory tree.

#![allow(dead_code)] // each test file uses a different part

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The outcome of one `kubeforge` run.
pub struct Run {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(output: Output) -> Self {
        Run {
            ok: output.status.success(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Panics with the output unless the run succeeded.
    #[track_caller]
    pub fn success(self) -> Self {
        assert!(
            self.ok,
            "kubeforge failed:\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// Panics unless the run failed with a message containing every one of `parts`.
    #[track_caller]
    pub fn failure(self, parts: &[&str]) -> Self {
        assert!(
            !self.ok,
            "kubeforge should have failed:\nstdout:\n{}",
            self.stdout
        );
        for part in parts {
            assert!(
                self.stderr.contains(part),
                "stderr lacks {part:?}:\n{}",
                self.stderr
            );
        }
        self
    }
}

/// Runs `kubeforge args...` in `dir`, with reproducible settings (crates.io dependencies, a
/// fixed year).
pub fn kubeforge(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .args(args)
        .current_dir(dir)
        .env("KUBEFORGE_SOURCE", "crates-io")
        .env("SOURCE_DATE_EPOCH", "1767225600") // 2026-01-01
        .output()
        .expect("kubeforge runs");
    Run::from(output)
}

/// Every file under `root` (relative path → bytes).
pub fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                // Directories count too, so an empty directory left behind is a change.
                out.insert(path.strip_prefix(root).unwrap().join(""), Vec::new());
                walk(root, &path, out);
            } else {
                out.insert(
                    path.strip_prefix(root).unwrap().to_owned(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// A hash of every path and byte under `root`.
pub fn tree_hash(root: &Path) -> u64 {
    let mut hasher = DefaultHasher::new();
    tree(root).hash(&mut hasher);
    hasher.finish()
}

/// Runs `kubeforge args` in `dir`, expects it to fail naming `parts`, and checks that the tree
/// under `dir` is byte-for-byte what it was before.
#[track_caller]
pub fn refused(dir: &Path, args: &[&str], parts: &[&str]) -> Run {
    let before = tree(dir);
    let hash = tree_hash(dir);
    let run = kubeforge(dir, args).failure(parts);
    let after = tree(dir);
    let changed: Vec<_> = after
        .iter()
        .filter(|(p, c)| before.get(*p) != Some(*c))
        .map(|(p, _)| p.clone())
        .chain(before.keys().filter(|p| !after.contains_key(*p)).cloned())
        .collect();
    assert!(
        changed.is_empty(),
        "a refused `kubeforge {}` changed {changed:?}",
        args.join(" ")
    );
    assert_eq!(hash, tree_hash(dir));
    run
}

/// A temp dir holding an initialized project named `demo` (domain example.com).
pub fn project(extra_init_args: &[&str]) -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let mut args = vec!["init", "--domain", "example.com", "--project-name", "demo"];
    args.extend_from_slice(extra_init_args);
    kubeforge(temp.path(), &args).success();
    temp
}

/// Reads a file of the project.
pub fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The arguments of `kubeforge create api --group G --version V --kind K`, then `extra`.
pub fn create_api<'a>(
    group: &'a str,
    version: &'a str,
    kind: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "create",
        "api",
        "--group",
        group,
        "--version",
        version,
        "--kind",
        kind,
    ];
    args.extend_from_slice(extra);
    args
}
