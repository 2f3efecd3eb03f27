//! The report stage of `alpha generate`: the commands re-run, what was carried over and what
//! was not, and what to do next.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::super::next_steps;
use super::carry::Carried;

fn list(out: &mut String, title: &str, paths: &[PathBuf]) {
    if paths.is_empty() {
        return;
    }
    let _ = writeln!(out, "{title} ({}):", paths.len());
    for path in paths {
        let _ = writeln!(out, "  {}", path.display());
    }
}

/// What `alpha generate` prints.
pub fn report(
    version: &str,
    commands: &[String],
    carried: &Carried,
    target: &Path,
    in_place: bool,
) -> String {
    let mut out = format!(
        "Scaffolded {} again from PROJECT with kubeforge {version}:\n",
        target.display()
    );
    for command in commands {
        let _ = writeln!(out, "  kubeforge {command}");
    }
    list(&mut out, "Carried over your code", &carried.yours);
    list(&mut out, "Copied the files you added", &carried.added);
    list(&mut out, "New from the templates", &carried.new);
    if !carried.not_carried.is_empty() {
        let _ = writeln!(
            out,
            "Not carried over: kubeforge's files you had changed ({}):",
            carried.not_carried.len()
        );
        for (path, reason) in &carried.not_carried {
            let _ = writeln!(out, "  {}: {reason}", path.display());
        }
    }
    let mut steps = Vec::new();
    if in_place {
        steps
            .push("git diff         # review what changed; git checkout -- . takes it back".into());
    } else {
        steps.push(format!("cd {}", target.display()));
    }
    if !carried.not_carried.is_empty() {
        steps.push("Bring over what is listed as not carried over, by hand.".into());
    }
    steps.push("make test".into());
    out.push_str(&next_steps(&steps));
    out
}
