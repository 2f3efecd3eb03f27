//! `kubeforge create api`: an API type and/or its controller, registered at the scaffold
//! markers.
//!
//! validate ([`request`]) → plan ([`plan`]) → commit → report ([`report`]).

pub mod plan;
pub mod report;
pub mod request;
pub mod values;

#[cfg(test)]
mod tests;

use super::{WRITING, load_project, project_dir};
use crate::cli::CreateApiArgs;
use crate::error::Error;
use crate::scaffold::DiskTree;

/// Runs `kubeforge create api`.
pub fn run(args: CreateApiArgs) -> Result<(), Error> {
    let root = project_dir(args.dir.as_deref())?;
    let tree = DiskTree::new(&root);
    let project = load_project(&tree)?;
    let request = request::validate(&args, &project)?;
    for warning in &request.warnings {
        eprintln!("warning: {warning}");
    }
    let renderer = crate::template_set::TemplateSet::from_env()?.renderer()?;
    let changes = plan::plan(&project, &request, &tree, &renderer)?.finish();
    println!("{WRITING}");
    let written = changes.commit(&root)?;
    print!("{}", report::report(&request, &project, &written));
    Ok(())
}
