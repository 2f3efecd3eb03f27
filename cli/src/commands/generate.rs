//! `kubeforge generate`: the project's manifests from its compiled types.
//!
//! Manifests come from the compiled types, not from re-parsing source: this runs the project's
//! own binary, `cargo run -- manifests`, exactly like `make manifests`; `--check` runs
//! `cargo run -- manifests --check` (`make verify-manifests`), which writes nothing and fails
//! naming every file that differs.

use std::ffi::OsStr;
use std::path::Path;
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
    run_cargo(&cargo, &cargo_args(project.namespaced, check), &root)?;
    if check {
        println!("config/ is up to date with the project's types.");
        return Ok(());
    }
    println!(
        "\nNext steps:\n  make install   # the CRDs into the cluster of your kubeconfig\n  make test"
    );
    Ok(())
}

/// Runs `cargo` (the binary) with `args` in `root`; refused when it does not start or fails.
fn run_cargo(cargo: &OsStr, args: &[&str], root: &Path) -> Result<(), Error> {
    let command = format!("cargo {}", args.join(" "));
    let status = Command::new(cargo)
        .args(args)
        .current_dir(root)
        .status()
        .map_err(|source| Error::SubcommandSpawn {
            command: command.clone(),
            dir: root.to_owned(),
            source,
        })?;
    if !status.success() {
        return Err(Error::Subcommand {
            command,
            dir: root.to_owned(),
            status,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn a_cargo_that_does_not_start_keeps_the_spawn_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-cargo");
        let err = run_cargo(missing.as_os_str(), &["run"], dir.path()).unwrap_err();
        assert!(matches!(err, Error::SubcommandSpawn { .. }), "{err}");
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("`cargo run` failed in {}: ", dir.path().display())),
            "{message}"
        );
        let source = err.source().expect("the spawn error is kept");
        let io = source
            .downcast_ref::<std::io::Error>()
            .expect("the source is the I/O error");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn a_cargo_that_fails_names_its_exit_status() {
        let dir = tempfile::tempdir().unwrap();
        let err = run_cargo(OsStr::new("false"), &[], dir.path()).unwrap_err();
        let Error::Subcommand { status, .. } = &err else {
            panic!("{err}");
        };
        assert!(!status.success());
        assert!(err.to_string().contains("exit status: 1"), "{err}");
    }
}
