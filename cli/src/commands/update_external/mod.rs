//! `kubeforge update external`: the Rust types of external kinds generated again from their
//! CRDs (the source PROJECT records, or `--crd`), with the CRD copies, printed as a unified diff
//! for review; `--dry-run` prints the diff and writes nothing.
//!
//! fetch the CRDs → validate ([`request`]) → plan ([`plan`]) → diff ([`diff`]) → commit →
//! report ([`report`]).

pub mod diff;
pub mod plan;
pub mod report;
pub mod request;

#[cfg(test)]
mod tests;

use super::{load_project, project_dir};
use crate::cli::UpdateExternalArgs;
use crate::error::Error;
use crate::scaffold::DiskTree;
use crate::template_set::TemplateSet;

/// Runs `kubeforge update external`.
pub fn run(args: UpdateExternalArgs) -> Result<(), Error> {
    let root = project_dir(args.dir.as_deref())?;
    let tree = DiskTree::new(&root);
    let project = load_project(&tree)?;
    let cwd = project_dir(None)?;
    let sources = request::sources(&project, &args, &root, &cwd)?;
    let mut fetched = Vec::new();
    for source in sources {
        let text = source.source.fetch()?;
        fetched.push((source, text));
    }
    let request = request::validate(&args, &project, &fetched)?;
    let renderer = TemplateSet::from_env()?.renderer()?;
    let changes = plan::plan(&project, &request, &tree, &renderer)?.finish();
    let diff = diff::diff(&tree, &changes)?;
    print!("{}", diff.text);
    if args.dry_run {
        print!("{}", report::dry_run(&request, &diff));
        return Ok(());
    }
    let written = changes.commit(&root)?;
    eprint!("{}", report::warnings(&request));
    print!("{}", report::report(&request, &diff, &written));
    Ok(())
}
