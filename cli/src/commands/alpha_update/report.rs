//! The report stage of `alpha update`: where the merge is, and what to do next.

use std::fmt::Write as _;

use super::super::next_steps;
use super::merge::Merged;

/// What `alpha update` prints.
pub fn report(from: &str, to: &str, merged: &Merged) -> String {
    let mut out = format!(
        "Merged kubeforge {to}'s scaffold into the project (scaffolded by kubeforge {from}) on the new branch {}; {} is unchanged.\n",
        merged.branch, merged.original
    );
    let branch = &merged.branch;
    let original = &merged.original;
    let steps: Vec<String> = if merged.conflicts.is_empty() {
        out.push_str("The merge had no conflicts and is committed.\n");
        vec![
            format!("git diff {original}..{branch}   # review what the update changed"),
            "make test".into(),
            format!("git checkout {original} && git merge {branch}"),
        ]
    } else {
        let _ = writeln!(
            out,
            "{} files have conflicts between your changes and the new scaffold, left as git conflicts:",
            merged.conflicts.len()
        );
        for file in &merged.conflicts {
            let _ = writeln!(out, "  {file}");
        }
        vec![
            "Resolve them: between <<<<<<< and ======= is yours, between ======= and >>>>>>> the new scaffold's.".into(),
            "git add <each file> && git commit".into(),
            "make test".into(),
            format!("git checkout {original} && git merge {branch}"),
            format!("(To give up: git merge --abort && git checkout {original} && git branch -D {branch})"),
        ]
    };
    out.push_str(&next_steps(&steps));
    out
}
