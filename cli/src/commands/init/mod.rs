//! `kubeforge init`: a new operator project.
//!
//! validate ([`request`]) → plan ([`plan`]) → commit → report ([`report`]).

pub mod plan;
pub mod report;
pub mod request;

use super::{WRITING, project_dir};
use crate::cli::InitArgs;
use crate::error::Error;
use crate::scaffold::DiskTree;
use crate::template_set::TemplateSet;

/// Runs `kubeforge init`.
pub fn run(args: InitArgs) -> Result<(), Error> {
    let dir = project_dir(args.dir.as_deref())?;
    let tree = DiskTree::new(&dir);
    let request = request::validate(args, &dir, &tree)?;
    let environment = request::Environment::detect()?;
    let renderer = TemplateSet::from_env()?.renderer()?;
    let changes = plan::plan(&request, &environment, &tree, &renderer)?.finish();
    println!("{WRITING}");
    let written = changes.commit(&dir)?;
    print!("{}", report::report(&request, &environment, &written));
    Ok(())
}
