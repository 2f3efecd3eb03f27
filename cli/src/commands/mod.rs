//! One module per command. The scaffolding commands (`init`, `create api`, `create webhook`)
//! run in four stages, each in its own file:
//!
//! 1. **validate** (`request.rs`): the arguments and PROJECT become a typed request, or a
//!    refusal naming the rule and the fix.
//! 2. **plan** (`plan.rs`): a pure function of PROJECT, the request and a read-only view of the
//!    project's files ([`Tree`](crate::scaffold::Tree)) to a [`Plan`](crate::scaffold::Plan) of
//!    every write, each file named through its descriptor in [`crate::artifacts`].
//! 3. **commit**: the finished plan is written to disk, all or nothing.
//! 4. **report** (`report.rs`): what was written and the next steps, as text.
//!
//! Each command's `tests.rs` runs its stages on an in-memory tree (`harness.rs`).

pub mod alpha_generate;
pub mod alpha_update;
pub mod completion;
pub mod create_api;
pub mod create_external;
pub mod create_webhook;
#[cfg(feature = "dev-server")]
pub mod dev_server;
pub mod generate;
pub mod init;
pub mod update_external;
pub mod version;

#[cfg(test)]
mod harness;
#[cfg(test)]
mod names_tests;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::context::{self, BOILERPLATE_FILE};
use crate::error::Error;
use crate::project::{self, PROJECT_FILE, ProjectFile};
use crate::scaffold::{Change, Tree};

/// `--dir` or the current directory, made absolute.
pub(crate) fn project_dir(dir: Option<&Path>) -> Result<PathBuf, Error> {
    let dir = dir.map_or_else(|| PathBuf::from("."), Path::to_owned);
    std::path::absolute(&dir).map_err(|source| Error::Read { path: dir, source })
}

/// The line every scaffolding command prints before it writes.
pub(crate) const WRITING: &str = "Writing scaffold for you to edit...";

/// What a command wrote, kubebuilder-style, one line per file.
pub(crate) fn changes_report(changes: &[(Change, PathBuf)]) -> String {
    let mut out = String::new();
    for (change, path) in changes {
        let verb = match change {
            Change::Create => "create",
            Change::Update => "update",
        };
        let _ = writeln!(out, "  {verb} {}", path.display());
    }
    out
}

/// Numbered next steps.
pub(crate) fn next_steps(steps: &[String]) -> String {
    let mut out = String::from("\nNext steps:\n");
    for (number, step) in steps.iter().enumerate() {
        let _ = writeln!(out, "  {}. {step}", number + 1);
    }
    out
}

/// The PROJECT file of the project `tree` shows.
pub(crate) fn load_project(tree: &dyn Tree) -> Result<ProjectFile, Error> {
    let path = Path::new(PROJECT_FILE);
    match tree.read(path)? {
        Some(text) => project::parse(&tree.root().join(path), &text),
        None => Err(Error::NotAProject {
            dir: tree.root().to_owned(),
        }),
    }
}

/// The license header of the Rust files a command adds to the project (from the boilerplate
/// `init` wrote; none without one).
pub(crate) fn rust_header(tree: &dyn Tree) -> Result<String, Error> {
    let boilerplate = tree.read(Path::new(BOILERPLATE_FILE))?;
    Ok(context::rust_header(boilerplate.as_deref()))
}
