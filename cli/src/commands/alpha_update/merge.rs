//! The three-way merge of `alpha update`, made by git on a new branch.
//!
//! The two scaffolds become commits of the repository without touching the user's index or
//! work tree: A (the project's version's scaffold, no parent) and U (this version's, parent A).
//! A new branch starts at a commit with the user's tree whose parents are HEAD and A (A counts
//! as merged), then `git merge U` runs there: its base is A, so it brings A → U (what the
//! templates changed) into the user's tree. A clean merge is committed; conflicts are left as
//! git leaves them (conflict markers, `git status`, `git merge --abort`), on that branch. The
//! user's branch is untouched either way.

use crate::alpha_error::AlphaError;
use crate::git::Git;

/// How the merge ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The branch the merge is on.
    pub branch: String,
    /// The branch (or commit) the user was on.
    pub original: String,
    /// Files with conflicts (empty: the merge is committed).
    pub conflicts: Vec<String>,
}

/// The default branch name: `kubeforge-update-<from>-to-<to>`, with characters git refuses in
/// branch names replaced.
pub fn branch_name(from: &str, to: &str) -> String {
    format!("kubeforge-update-{from}-to-{to}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// Merges `upgrade` (this version's scaffold) into the user's tree with `ancestor` as the base,
/// on `branch`.
pub fn merge(
    git: &Git,
    from: &str,
    to: &str,
    ancestor: &std::path::Path,
    upgrade: &std::path::Path,
    branch: &str,
) -> Result<Merged, AlphaError> {
    let head = git.run(&["rev-parse", "HEAD"])?.trim().to_owned();
    let original = git
        .run(&["rev-parse", "--abbrev-ref", "HEAD"])?
        .trim()
        .to_owned();
    let original = if original == "HEAD" {
        head.clone()
    } else {
        original
    };
    let (exists, _, _) = git.try_run(&[
        "rev-parse",
        "--verify",
        "--quiet",
        &format!("refs/heads/{branch}"),
    ])?;
    if exists {
        return Err(AlphaError::GitState {
            what: "alpha update",
            reason: format!("a new branch, and {branch} exists"),
            fix: format!("delete it (git branch -D {branch}) or pass --branch <another name>"),
        });
    }
    let a = git.commit_directory(
        ancestor,
        &[],
        &format!("kubeforge {from}: the scaffold of PROJECT (the base of alpha update)"),
    )?;
    let u = git.commit_directory(
        upgrade,
        &[&a],
        &format!("kubeforge {to}: the scaffold of PROJECT"),
    )?;
    let tree = format!("{head}^{{tree}}");
    let base = git.run(&[
        "commit-tree",
        &tree,
        "-p",
        &head,
        "-p",
        &a,
        "-m",
        &format!("Take kubeforge {from}'s scaffold as merged: the base of the update to {to}"),
    ])?;
    git.run(&["branch", branch, base.trim()])?;
    git.run(&["checkout", "--quiet", branch])?;
    let message = format!("Update the scaffold from kubeforge {from} to {to}");
    let (merged, _, stderr) =
        git.try_run(&["merge", "--no-ff", "--no-edit", "-m", &message, &u])?;
    if merged {
        return Ok(Merged {
            branch: branch.to_owned(),
            original,
            conflicts: Vec::new(),
        });
    }
    let conflicts: Vec<String> = git
        .run(&["diff", "--name-only", "--diff-filter=U"])?
        .lines()
        .map(str::to_owned)
        .collect();
    if conflicts.is_empty() {
        // Not a conflict: git stopped before merging. Put the user back where they were.
        let _ = git.try_run(&["merge", "--abort"]);
        let _ = git.try_run(&["checkout", "--quiet", &original]);
        let _ = git.try_run(&["branch", "-D", branch]);
        return Err(AlphaError::Git {
            args: format!("merge {u}"),
            dir: std::path::PathBuf::from("."),
            stderr: stderr.trim().to_owned(),
        });
    }
    Ok(Merged {
        branch: branch.to_owned(),
        original,
        conflicts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_names() {
        assert_eq!(
            branch_name("0.1.0-rev.6fc8fc2", "0.2.0"),
            "kubeforge-update-0.1.0-rev.6fc8fc2-to-0.2.0"
        );
        assert_eq!(branch_name("a b:c", "d"), "kubeforge-update-a-b-c-to-d");
    }
}
