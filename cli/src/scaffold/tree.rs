//! The project's files as the plan stage sees them: a read-only view, on disk or in memory.
//!
//! Commands plan against a [`Tree`]; only the commit stage writes, and only to disk. Unit tests
//! (and anything that scaffolds without touching the disk) plan against a [`MemoryTree`] and
//! apply the result to it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::artifact::Template;
use super::changeset::Changeset;
use crate::error::Error;

/// A read-only view of a project's files. Paths are relative to the project root.
pub trait Tree {
    /// The project root, to name files in messages.
    fn root(&self) -> &Path;

    /// The contents of the file `rel`, `None` when there is none.
    fn read(&self, rel: &Path) -> Result<Option<String>, Error>;

    /// Whether anything (a file or a directory) is at `rel`.
    fn exists(&self, rel: &Path) -> bool;

    /// The templates the file `rel` was written from, when the tree knows (a [`MemoryTree`]
    /// remembers them; the disk does not).
    fn templates(&self, _rel: &Path) -> Vec<&'static Template> {
        Vec::new()
    }
}

/// The project on disk.
#[derive(Debug, Clone)]
pub struct DiskTree {
    root: PathBuf,
}

impl DiskTree {
    /// The project rooted at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }
}

impl Tree for DiskTree {
    fn root(&self) -> &Path {
        &self.root
    }

    fn read(&self, rel: &Path) -> Result<Option<String>, Error> {
        let path = self.root.join(rel);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(Error::Read { path, source }),
        }
    }

    fn exists(&self, rel: &Path) -> bool {
        self.root.join(rel).exists()
    }
}

/// A file of a [`MemoryTree`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct MemoryFile {
    contents: String,
    templates: Vec<&'static Template>,
}

/// A project held in memory: commands' unit tests plan against it and apply the plans to it.
#[derive(Debug, Clone)]
pub struct MemoryTree {
    root: PathBuf,
    files: BTreeMap<PathBuf, MemoryFile>,
}

impl Default for MemoryTree {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryTree {
    /// An empty tree (its root, for messages, is `/project`).
    pub fn new() -> Self {
        Self {
            root: PathBuf::from("/project"),
            files: BTreeMap::new(),
        }
    }

    /// Puts a file in the tree, as if a user had written it.
    pub fn write(&mut self, rel: impl AsRef<Path>, contents: impl Into<String>) {
        let file = self.files.entry(rel.as_ref().to_owned()).or_default();
        file.contents = contents.into();
    }

    /// Removes a file from the tree.
    pub fn remove(&mut self, rel: impl AsRef<Path>) {
        self.files.remove(rel.as_ref());
    }

    /// The contents of a file.
    pub fn get(&self, rel: impl AsRef<Path>) -> Option<&str> {
        self.files.get(rel.as_ref()).map(|f| f.contents.as_str())
    }

    /// Every file's path, in order.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.keys().map(PathBuf::as_path)
    }

    /// Applies a committed plan: what the commit stage would have written to disk.
    pub fn apply(&mut self, changes: &Changeset) {
        for file in changes.files() {
            let entry = self.files.entry(file.path.clone()).or_default();
            entry.contents = file.contents.clone();
            for template in &file.templates {
                if !entry.templates.contains(template) {
                    entry.templates.push(template);
                }
            }
        }
    }
}

impl Tree for MemoryTree {
    fn root(&self) -> &Path {
        &self.root
    }

    fn read(&self, rel: &Path) -> Result<Option<String>, Error> {
        Ok(self.get(rel).map(str::to_owned))
    }

    fn exists(&self, rel: &Path) -> bool {
        self.files.contains_key(rel) || self.files.keys().any(|p| p.starts_with(rel))
    }

    fn templates(&self, rel: &Path) -> Vec<&'static Template> {
        self.files
            .get(rel)
            .map(|f| f.templates.clone())
            .unwrap_or_default()
    }
}
