//! `kubeforge generate`: the project's manifests from its compiled types.
//!
//! Manifests come from the compiled types, not from re-parsing source: this runs the project's
//! own binary, `cargo run -- manifests`, exactly like `make manifests`.

use std::process::Command;

use crate::cli::GenerateArgs;
use crate::error::Error;
use crate::project;

/// Runs `cargo run --quiet -- manifests` in the project.
pub fn run(args: GenerateArgs) -> Result<(), Error> {
    let root = super::project_dir(args.dir.as_deref())?;
    project::load(&root)?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let command = "cargo run --quiet -- manifests";
    let status = Command::new(cargo)
        .args(["run", "--quiet", "--", "manifests"])
        .current_dir(&root)
        .status()
        .map_err(|e| Error::Subcommand {
            command: command.into(),
            dir: root.clone(),
            reason: e.to_string(),
        })?;
    if !status.success() {
        return Err(Error::Subcommand {
            command: command.into(),
            dir: root,
            reason: status.to_string(),
        });
    }
    println!(
        "\nNext steps:\n  make install   # the CRDs into the cluster of your kubeconfig\n  make test"
    );
    Ok(())
}
