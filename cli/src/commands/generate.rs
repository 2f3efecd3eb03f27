//! `kubeforge generate`: the project's manifests from its compiled types.
//!
//! Manifests come from the compiled types, not from re-parsing source: this runs the project's
//! own binary, `cargo run -- manifests`, exactly like `make manifests`.

use std::process::Command;

use crate::cli::GenerateArgs;
use crate::error::Error;
use crate::project;

/// Runs `cargo run -- manifests` in the project (with `--role-namespace system` for a
/// namespaced project); cargo's progress shows while the operator compiles.
pub fn run(args: GenerateArgs) -> Result<(), Error> {
    let root = super::project_dir(args.dir.as_deref())?;
    let project = project::load(&root)?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut args = vec!["run", "--", "manifests"];
    if project.namespaced {
        // The rules go into a Role in the manager's namespace (kustomize renames `system`).
        args.extend(["--role-namespace", "system"]);
    }
    let command = format!("cargo {}", args.join(" "));
    let status = Command::new(cargo)
        .args(&args)
        .current_dir(&root)
        .status()
        .map_err(|e| Error::Subcommand {
            command: command.clone(),
            dir: root.clone(),
            reason: e.to_string(),
        })?;
    if !status.success() {
        return Err(Error::Subcommand {
            command,
            dir: root,
            reason: status.to_string(),
        });
    }
    println!(
        "\nNext steps:\n  make install   # the CRDs into the cluster of your kubeconfig\n  make test"
    );
    Ok(())
}
