//! `kubeforge alpha generate`: the project scaffolded again from its PROJECT file with this
//! kubeforge's templates, into a fresh directory (or in place, on a clean git tree), with the
//! user's code carried over; what could not be carried is listed.
//!
//! read the inputs ([`inputs`]) → replay PROJECT's commands in memory ([`replay`]) → carry the
//! user's files over ([`carry`]) → write ([`files`]) → report ([`report`]).

pub mod carry;
pub mod files;
pub mod inputs;
pub mod replay;
pub mod report;

#[cfg(test)]
mod tests;

use super::{load_project, project_dir};
use crate::alpha_error::AlphaError;
use crate::cli::AlphaGenerateArgs;
use crate::context;
use crate::error::Error;
use crate::git::Git;
use crate::scaffold::DiskTree;
use crate::template_set::TemplateSet;

/// Runs `kubeforge alpha generate`.
pub fn run(args: AlphaGenerateArgs) -> Result<(), Error> {
    let root = project_dir(args.dir.as_deref())?;
    let tree = DiskTree::new(&root);
    let project = load_project(&tree)?;
    let target = if args.in_place {
        Git::open(&root, "alpha generate --in-place")?
            .require_clean("alpha generate --in-place")?;
        root.clone()
    } else {
        let out = project_dir(args.output_dir.as_deref())?;
        let empty = std::fs::read_dir(&out).map_or(true, |mut entries| entries.next().is_none());
        if !empty {
            return Err(AlphaError::OutputNotEmpty { dir: out }.into());
        }
        out
    };
    let inputs = inputs::read(&project, &tree, context::year())?;
    let templates = TemplateSet::current();
    let renderer = templates.renderer()?;
    let steps = replay::steps(&project, &inputs);
    let replayed = replay::replay(&steps, &inputs, &renderer, templates.version())?;
    let user = files::read(&root)?;
    let carried = carry::carry(&replayed.tree, &user)?;
    files::write(&target, &carried.files)?;
    print!(
        "{}",
        report::report(
            templates.version(),
            &replayed.commands,
            &carried,
            &target,
            args.in_place
        )
    );
    Ok(())
}
