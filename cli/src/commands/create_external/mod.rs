//! `kubeforge create api --external`: Rust types for kinds the project uses but does not own,
//! generated from their CRD (a file, a URL or the cluster's), a copy of the CRD, and a
//! controller if asked.
//!
//! fetch the CRD → validate ([`request`]) → plan ([`plan`]) → commit → report ([`report`]).

pub mod plan;
pub mod report;
pub mod request;
pub mod values;

#[cfg(test)]
pub(crate) mod tests;

use super::{WRITING, load_project, project_dir};
use crate::cli::CreateApiArgs;
use crate::error::Error;
use crate::external::CrdSource;
use crate::scaffold::DiskTree;
use crate::template_set::TemplateSet;

/// Runs `kubeforge create api --external`.
pub fn run(args: CreateApiArgs) -> Result<(), Error> {
    let root = project_dir(args.dir.as_deref())?;
    let tree = DiskTree::new(&root);
    let project = load_project(&tree)?;
    let cwd = project_dir(None)?;
    let source = CrdSource::parse(args.crd.as_deref().unwrap_or_default(), &cwd);
    let text = source.fetch()?;
    let origin = request::Origin {
        recorded: source.record(&root),
        described: source.describe(),
    };
    let request = request::validate(&args, &project, &origin, &text)?;
    let renderer = TemplateSet::from_env()?.renderer()?;
    let changes = plan::plan(&project, &request, &tree, &renderer)?.finish();
    println!("{WRITING}");
    let written = changes.commit(&root)?;
    let report = report::report(&request, &project, &written);
    eprint!("{}", report.stderr);
    print!("{}", report.stdout);
    Ok(())
}
