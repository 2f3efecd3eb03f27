//! The report stage of `update external`: what changed, what could not be updated, and what
//! to check next.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::super::{changes_report, next_steps};
use super::diff::Diff;
use super::request::UpdateRequest;
use crate::scaffold::Change;

/// The warnings (to stderr).
pub fn warnings(request: &UpdateRequest) -> String {
    request
        .warnings
        .iter()
        .map(|w| format!("warning: {w}\n"))
        .collect()
}

fn summary(request: &UpdateRequest, diff: &Diff) -> String {
    let mut out = String::new();
    for kind in &request.kinds {
        for (version, generated) in &kind.versions {
            let _ = writeln!(
                out,
                "{} {} ({}): {} structs, {} enums",
                kind.crd.kind, version, kind.crd.group, generated.structs, generated.enums
            );
        }
    }
    if diff.files.is_empty() {
        out.push_str("The generated types are up to date with their CRDs: nothing changed.\n");
    }
    out
}

/// What `--dry-run` prints after the diff.
pub fn dry_run(request: &UpdateRequest, diff: &Diff) -> String {
    let mut out = format!("\n{}{}", warnings(request), summary(request, diff));
    if !diff.files.is_empty() {
        out.push_str(&next_steps(&[
            "kubeforge update external   # without --dry-run, to write these changes".into(),
        ]));
    }
    out
}

/// What the command prints once the files are written.
pub fn report(request: &UpdateRequest, diff: &Diff, changes: &[(Change, PathBuf)]) -> String {
    let mut out = format!("\n{}{}", summary(request, diff), changes_report(changes));
    if !changes.is_empty() {
        out.push_str(&next_steps(&[
            "Review the changes: git diff".into(),
            "cargo build      # code that used fields the CRD dropped or renamed stops compiling here".into(),
            "make test".into(),
        ]));
    }
    out
}
