//! `kubeforge generate`: the project's manifests from its compiled types.
//!
//! Manifests come from the compiled types, not from re-parsing source: this runs the project's
//! own binary, `cargo run -- manifests`, exactly like `make manifests`; `--check` runs
//! `cargo run -- manifests --check` (`make verify-manifests`), which writes nothing and fails
//! naming every file that differs.

use std::process::Command;

use crate::cli::GenerateArgs;
use crate::error::Error;
use crate::project;

/// The arguments of the `cargo` command `kubeforge generate` runs.
pub fn cargo_args(namespaced: bool, check: bool) -> Vec<&'static str> {
    let mut args = vec!["run", "--", "manifests"];
    if check {
        args.push("--check");
    }
    if namespaced {
        // The rules go into a Role in the manager's namespace (kustomize renames `system`).
        args.extend(["--role-namespace", "system"]);
    }
    args
}

/// Runs `cargo run -- manifests` in the project (with `--role-namespace system` for a
/// namespaced project, `--check` to compare instead of writing); cargo's progress shows while
/// the operator compiles.
pub fn run(args: GenerateArgs) -> Result<(), Error> {
    let root = super::project_dir(args.dir.as_deref())?;
    let project = project::load(&root)?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let check = args.check;
    let args = cargo_args(project.namespaced, check);
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
    if check {
        println!("config/ is up to date with the project's types.");
        return Ok(());
    }
    println!(
        "\nNext steps:\n  make install   # the CRDs into the cluster of your kubeconfig\n  make test"
    );
    Ok(())
}
