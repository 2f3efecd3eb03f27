//! `kubeforge alpha update`: brings a project to this kubeforge's scaffold with a three-way
//! git merge, as kubebuilder's `alpha update` does. The base is what the kubeforge version that
//! scaffolded the project (PROJECT's `cliVersion`) scaffolds for its PROJECT, the other side
//! what this version scaffolds for it, and the user's tree the third; conflicts are left as git
//! conflicts on a new branch, and a failure before the merge changes nothing.
//!
//! resolve the version ([`ancestor`]) → scaffold both ([`scaffold`]) → merge on a branch
//! ([`merge`]) → report ([`report`]).

pub mod ancestor;
pub mod merge;
pub mod report;
pub mod scaffold;

use super::alpha_generate::{inputs, replay};
use super::{load_project, project_dir};
use crate::cli::AlphaUpdateArgs;
use crate::context;
use crate::error::Error;
use crate::git::Git;
use crate::scaffold::DiskTree;
use crate::template_set::TemplateSet;

/// Runs `kubeforge alpha update`.
pub fn run(args: AlphaUpdateArgs) -> Result<(), Error> {
    let root = project_dir(args.dir.as_deref())?;
    let git = Git::open(&root, "alpha update")?;
    git.require_clean("alpha update")?;
    let tree = DiskTree::new(&root);
    let project = load_project(&tree)?;
    let current = TemplateSet::current();
    let ancestor = match ancestor::resolve(&args, &project, current.version())? {
        ancestor::Plan::UpToDate(version) => {
            println!(
                "The project was scaffolded by kubeforge {version}, this version: there is nothing to update."
            );
            return Ok(());
        }
        ancestor::Plan::From(ancestor) => ancestor,
    };
    let inputs = inputs::read(&project, &tree, context::year())?;
    let steps = replay::steps(&project, &inputs);
    let scratch = tempfile::tempdir().map_err(|source| Error::Write {
        path: std::env::temp_dir(),
        source,
    })?;
    let base_dir = scratch.path().join("base");
    let upgrade_dir = scratch.path().join("upgrade");
    scaffold::ancestor(&ancestor, &steps, &inputs, &base_dir)?;
    let commands = scaffold::with_templates(&current, &steps, &inputs, &upgrade_dir)?;
    let from = ancestor.version();
    let to = current.version();
    let branch = args
        .branch
        .clone()
        .unwrap_or_else(|| merge::branch_name(from, to));
    println!("Scaffolded PROJECT as kubeforge {from} and as kubeforge {to} did:");
    for command in &commands {
        println!("  kubeforge {command}");
    }
    let merged = merge::merge(&git, from, to, &base_dir, &upgrade_dir, &branch)?;
    print!("{}", report::report(from, to, &merged));
    Ok(())
}
