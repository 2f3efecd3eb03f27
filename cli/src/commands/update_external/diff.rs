//! What `update external` changes, as a unified diff: the generated Rust in full, the CRD
//! copies as a line count (the CRD's own diff is `git diff config/crd/external`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use similar::{ChangeTag, TextDiff};

use crate::error::Error;
use crate::external::layout::CRD_DIR;
use crate::scaffold::{Changeset, Tree};

/// The diff of a changeset against the tree it was planned on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    /// The unified diff.
    pub text: String,
    /// Per changed file: its path, lines added, lines removed.
    pub files: Vec<(PathBuf, usize, usize)>,
}

/// `changes` as a diff against `tree`.
pub fn diff(tree: &dyn Tree, changes: &Changeset) -> Result<Diff, Error> {
    let mut text = String::new();
    let mut files = Vec::new();
    for file in changes.files() {
        let old = tree.read(&file.path)?.unwrap_or_default();
        let diff = TextDiff::from_lines(&old, &file.contents);
        let (mut added, mut removed) = (0, 0);
        for change in diff.iter_all_changes() {
            match change.tag() {
                ChangeTag::Insert => added += 1,
                ChangeTag::Delete => removed += 1,
                ChangeTag::Equal => {}
            }
        }
        let path = file.path.display().to_string();
        if file.path.starts_with(Path::new(CRD_DIR)) {
            let _ = writeln!(
                text,
                "--- {path}: the CRD, +{added} -{removed} lines (`git diff {path}` shows them)"
            );
        } else {
            let _ = write!(
                text,
                "{}",
                diff.unified_diff()
                    .context_radius(3)
                    .header(&format!("a/{path}"), &format!("b/{path}"))
            );
        }
        files.push((file.path.clone(), added, removed));
    }
    Ok(Diff { text, files })
}
