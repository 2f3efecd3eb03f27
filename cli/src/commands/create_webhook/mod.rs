//! `kubeforge create webhook`: defaulting, validating and conversion webhooks for an API of the
//! project or a built-in kind, registered at the scaffold markers, with their kustomize
//! configuration (config/webhook, config/certmanager, the CRD conversion patch) and tests.
//!
//! validate ([`request`]) → plan ([`plan`], with [`conversion`] and [`config`]) → commit →
//! report ([`report`]).

pub mod config;
pub mod conversion;
pub mod kustomize;
pub mod mapping;
mod order;
pub mod plan;
pub mod report;
pub mod request;
pub mod target;
pub mod values;

#[cfg(test)]
mod tests;

use super::{WRITING, load_project, project_dir};
use crate::cli::CreateWebhookArgs;
use crate::error::Error;
use crate::scaffold::DiskTree;

/// Runs `kubeforge create webhook`.
pub fn run(args: CreateWebhookArgs) -> Result<(), Error> {
    let root = project_dir(args.dir.as_deref())?;
    let tree = DiskTree::new(&root);
    let project = load_project(&tree)?;
    let request = request::validate(&args, &project)?;
    let renderer = crate::template_set::TemplateSet::from_env()?.renderer()?;
    let (plan, outcome) = plan::plan(&project, &request, &tree, &renderer)?;
    let changes = plan.finish();
    println!("{WRITING}");
    let written = changes.commit(&root)?;
    let report = report::report(&request, &project, &outcome, &written);
    print!("{}", report.stdout);
    eprint!("{}", report.stderr);
    Ok(())
}
