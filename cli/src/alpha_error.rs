//! Why `kubeforge alpha generate` or `kubeforge alpha update` stopped. Each message names the
//! problem and the fix; neither command leaves a half-written tree behind.

use std::path::PathBuf;

/// What stopped `alpha generate` or `alpha update`.
#[derive(Debug, thiserror::Error)]
pub enum AlphaError {
    /// `--output-dir` names a directory with files in it.
    #[error(
        "{} is not empty: alpha generate writes a whole new project there.\n  fix: pass a new or empty --output-dir, or --in-place on a clean git tree",
        dir.display()
    )]
    OutputNotEmpty {
        /// The directory.
        dir: PathBuf,
    },
    /// `--in-place` or `alpha update` on a tree git does not track, or with changes.
    #[error("{what} needs {reason}.\n  fix: {fix}")]
    GitState {
        /// The command.
        what: &'static str,
        /// What is missing.
        reason: String,
        /// How to get there.
        fix: String,
    },
    /// A git command could not be started.
    #[error(
        "`git {args}` failed in {}: git could not run ({source}); install git",
        dir.display()
    )]
    GitSpawn {
        /// Its arguments.
        args: String,
        /// Where it was to run.
        dir: PathBuf,
        /// Why it did not start.
        #[source]
        source: std::io::Error,
    },
    /// A git command failed.
    #[error("`git {args}` failed in {}: {stderr}", dir.display())]
    Git {
        /// Its arguments.
        args: String,
        /// Where it ran.
        dir: PathBuf,
        /// What it printed.
        stderr: String,
    },
    /// The scaffold of the project's version cannot be made.
    #[error("{reason}\n  fix: {fix}")]
    NoAncestor {
        /// Why.
        reason: String,
        /// How to give kubeforge what it needs.
        fix: String,
    },
    /// Re-running a command of PROJECT failed.
    #[error("re-running `kubeforge {command}` from PROJECT failed: {source}")]
    Replay {
        /// The command line.
        command: String,
        /// Its error (a kubeforge `Error`; held as a trait object so that this file and
        /// `error.rs`, which holds an `AlphaError`, do not import each other).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The kubeforge binary of the older version could not be started.
    #[error("`{} {command}` failed: {source}", binary.display())]
    OldBinarySpawn {
        /// The binary.
        binary: PathBuf,
        /// The command line.
        command: String,
        /// Why it did not start.
        #[source]
        source: std::io::Error,
    },
    /// The kubeforge binary of the older version failed.
    #[error("`{} {command}` failed: {stderr}", binary.display())]
    OldBinary {
        /// The binary.
        binary: PathBuf,
        /// The command line.
        command: String,
        /// What it printed.
        stderr: String,
    },
}
