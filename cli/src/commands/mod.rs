//! One module per command.

pub mod completion;
pub mod create_api;
pub mod create_webhook;
#[cfg(feature = "dev-server")]
pub mod dev_server;
pub mod generate;
pub mod init;
pub mod version;

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::scaffold::Change;

/// `--dir` or the current directory, made absolute.
pub(crate) fn project_dir(dir: Option<&Path>) -> Result<PathBuf, Error> {
    let dir = dir.map_or_else(|| PathBuf::from("."), Path::to_owned);
    std::path::absolute(&dir).map_err(|source| Error::Read { path: dir, source })
}

/// Prints what a command wrote, kubebuilder-style.
pub(crate) fn print_changes(changes: &[(Change, PathBuf)]) {
    for (change, path) in changes {
        let verb = match change {
            Change::Create => "create",
            Change::Update => "update",
        };
        println!("  {verb} {}", path.display());
    }
}
