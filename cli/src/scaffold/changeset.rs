//! A finished plan: the files a command changes, ready to be committed to disk (or applied to
//! a [`MemoryTree`](super::MemoryTree)).

use std::path::{Path, PathBuf};

use super::artifact::Template;
use super::commit;
use crate::error::Error;

/// What happens to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// A new file.
    Create,
    /// An existing file gets new contents.
    Update,
}

/// One file a command changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Create or update.
    pub change: Change,
    /// The file, relative to the project root.
    pub path: PathBuf,
    /// Its new contents.
    pub contents: String,
    /// The templates its contents come from (the file's own, then appended sections).
    pub templates: Vec<&'static Template>,
}

/// Every file a command changes, in path order; files whose contents end up unchanged are
/// left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changeset {
    files: Vec<FileChange>,
}

impl Changeset {
    pub(super) fn new(files: Vec<FileChange>) -> Self {
        Self { files }
    }

    /// The changed files.
    pub fn files(&self) -> &[FileChange] {
        &self.files
    }

    /// The new contents of `rel`, when the command changes it.
    pub fn get(&self, rel: impl AsRef<Path>) -> Option<&str> {
        self.files
            .iter()
            .find(|f| f.path == rel.as_ref())
            .map(|f| f.contents.as_str())
    }

    /// What happens to which file, for the report.
    pub fn summary(&self) -> Vec<(Change, PathBuf)> {
        self.files
            .iter()
            .map(|f| (f.change, f.path.clone()))
            .collect()
    }

    /// Writes every file under `root`. Every new content is first written to a temporary file
    /// beside its target; only when all of them are written are they renamed into place, so a
    /// failure leaves no file half-written.
    pub fn commit(&self, root: &Path) -> Result<Vec<(Change, PathBuf)>, Error> {
        let writes: Vec<(PathBuf, &str)> = self
            .files
            .iter()
            .map(|f| (root.join(&f.path), f.contents.as_str()))
            .collect();
        commit::write_all(root, &writes)?;
        Ok(self.summary())
    }
}
