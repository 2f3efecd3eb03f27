//! Shared helpers for the end-to-end tests: scaffold a project with the `kubeforge` CLI, then
//! build and run it with cargo.
//!
//! Generated projects share the workspace's `Cargo.lock` (copied in, so they resolve to the
//! versions the workspace is tested with and fetch nothing new) and its target directory
//! (`$CARGO_TARGET_DIR`, else `<workspace>/target`), so their dependencies are built once.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use clap::Parser as _;

/// The root of the kubeforge checkout these tests belong to.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_owned()
}

/// The target directory generated projects build into.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace_root().join("target"), PathBuf::from)
}

static BUILD: Mutex<()> = Mutex::new(());

/// Serialises builds of generated projects: they share one target directory, and two cargo
/// builds on it would only wait for each other's lock.
pub fn build_lock() -> MutexGuard<'static, ()> {
    BUILD
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `kubeforge <args>` (the CLI's library entry point, the same code as the binary) with
/// `--dir dir` appended.
pub fn kubeforge(dir: &Path, args: &[&str]) {
    if let Err(e) = try_kubeforge(dir, args) {
        panic!("kubeforge {}: {e}", args.join(" "));
    }
}

/// [`kubeforge`], returning the command's error message instead of panicking (arguments clap
/// refuses still panic: they are a mistake of the test).
pub fn try_kubeforge(dir: &Path, args: &[&str]) -> Result<(), String> {
    let mut argv = vec!["kubeforge"];
    argv.extend_from_slice(args);
    let dir_arg = dir.display().to_string();
    if args.first() != Some(&"version") {
        argv.extend(["--dir", &dir_arg]);
    }
    let cli = kubeforge_cli::Cli::try_parse_from(&argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    kubeforge_cli::run(cli).map_err(|e| e.to_string())
}

/// Every file under `dir` with its bytes, and every folder (`None`), by path relative to
/// `dir`: to compare a tree before and after a command.
pub fn tree_bytes(dir: &Path) -> std::collections::BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut files = std::collections::BTreeMap::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let relative = path.strip_prefix(dir).unwrap_or(&path).to_owned();
            if path.is_dir() {
                files.insert(relative, None);
                pending.push(path);
            } else {
                files.insert(relative, Some(std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    files
}

/// Prepares a generated project to build like the workspace: copies the workspace's Cargo.lock.
pub fn share_lockfile(project: &Path) {
    std::fs::copy(
        workspace_root().join("Cargo.lock"),
        project.join("Cargo.lock"),
    )
    .expect("copy Cargo.lock");
}

/// The output of a command that succeeded.
#[derive(Debug)]
pub struct Ran {
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
    /// How long it took.
    pub elapsed: Duration,
}

/// The variable through which CI compiles the workspace with clippy as it builds the tests
/// (`.ci/run`); a generated project is the user's code, built as the user builds it, without it.
pub const LINT_WRAPPER: &str = "RUSTC_WORKSPACE_WRAPPER";
/// The lint flags clippy reads in that mode.
pub const LINT_ARGS: &str = "CLIPPY_ARGS";

/// Leaves out of `command`'s environment the variables cargo sets for the test process it runs
/// (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`, `CARGO_BIN_EXE_*`, ...), which a user's shell does not
/// have. A build script may name them as inputs (ring's names `CARGO_MANIFEST_DIR` and
/// `CARGO_PKG_NAME`), so a cargo run that inherits them rebuilds that crate, and every crate
/// above it, in the shared target dir, and the workspace's next build rebuilds them all again.
pub fn without_test_vars(command: &mut Command) -> &mut Command {
    const PREFIXES: [&str; 4] = [
        "CARGO_PKG_",
        "CARGO_MANIFEST_",
        "CARGO_BIN_",
        "CARGO_CRATE_",
    ];
    const NAMES: [&str; 4] = [
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_TARGET_TMPDIR",
        "CARGO_RUSTC_CURRENT_DIR",
        "OUT_DIR",
    ];
    for (name, _) in std::env::vars_os() {
        let Some(name) = name.to_str() else { continue };
        if NAMES.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p)) {
            command.env_remove(name);
        }
    }
    command
}

/// Runs `cargo <args>` in `project` with the shared target dir; panics with its output when it
/// fails.
pub fn cargo(project: &Path, args: &[&str]) -> Ran {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run(project, &cargo, args, &[])
}

/// Runs `make <args>` in `project` as a user runs the generated Makefile, with `vars` in its
/// environment (`KUBEFORGE_TEST_CLUSTER=binaries`, ...); its recipes call the cargo running
/// these tests (`CARGO`) with the shared target dir. Panics with the output when it fails.
pub fn make(project: &Path, args: &[&str], vars: &[(&str, &str)]) -> Ran {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut vars: Vec<(&str, &str)> = vars.to_vec();
    let cargo = cargo.to_string_lossy().into_owned();
    vars.push(("CARGO", &cargo));
    run(project, "make".as_ref(), args, &vars)
}

/// Runs `program <args>` in `project` with `vars` and the shared target dir, without the
/// workspace's lint wrapper or the test process's cargo variables; panics with its output when it fails.
fn run(project: &Path, program: &std::ffi::OsStr, args: &[&str], vars: &[(&str, &str)]) -> Ran {
    let started = Instant::now();
    let output = without_test_vars(&mut Command::new(program))
        .args(args)
        .envs(vars.iter().copied())
        .current_dir(project)
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .env_remove(LINT_WRAPPER)
        .env_remove(LINT_ARGS)
        .output()
        .unwrap_or_else(|e| panic!("{} runs: {e}", program.to_string_lossy()));
    let shown = format!("{} {}", program.to_string_lossy(), args.join(" "));
    let ran = Ran {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed: started.elapsed(),
    };
    assert!(
        output.status.success(),
        "`{shown}` failed in {}:\n--- stdout\n{}\n--- stderr\n{}",
        project.display(),
        ran.stdout,
        ran.stderr
    );
    eprintln!("`{shown}` took {:.1?}", ran.elapsed);
    ran
}

/// The variable naming envtest's binaries (etcd, kube-apiserver, kube-controller-manager).
pub const ASSETS_VAR: &str = "KUBEBUILDER_ASSETS";

/// A directory of envtest's binaries for binaries mode: `KUBEBUILDER_ASSETS` when set, else
/// the one `../shared/realk8s/assets.sh` (next to the checkout) prints when that script is
/// there. `Err` says why there is none, for the skip message.
pub fn envtest_assets() -> Result<String, String> {
    if let Some(dir) = std::env::var_os(ASSETS_VAR).filter(|d| !d.is_empty()) {
        return Ok(dir.to_string_lossy().into_owned());
    }
    let script = workspace_root().join("../shared/realk8s/assets.sh");
    if !script.exists() {
        return Err(format!(
            "{ASSETS_VAR} is not set and {} does not exist: binaries mode needs envtest's etcd and \
             kube-apiserver (for example {ASSETS_VAR}=$(setup-envtest use -p path))",
            script.display()
        ));
    }
    let output = Command::new(&script)
        .output()
        .map_err(|e| format!("{} did not run: {e}", script.display()))?;
    let dir = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() || dir.is_empty() {
        return Err(format!(
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(dir)
}
