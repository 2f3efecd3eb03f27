//! The in-memory plan of a command's writes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::commit;
use super::markers::{Marker, insert_before_marker, insert_block_before_marker};
use crate::error::Error;

/// What will happen to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// A new file.
    Create,
    /// An existing file gets new contents.
    Update,
}

#[derive(Debug)]
struct PlannedFile {
    /// Contents on disk when the plan first touched the file (`None`: absent).
    original: Option<String>,
    /// Contents after the command.
    contents: String,
}

/// Every write a command makes, in memory until [`Plan::commit`].
#[derive(Debug)]
pub struct Plan {
    root: PathBuf,
    files: BTreeMap<PathBuf, PlannedFile>,
}

impl Plan {
    /// A plan for the project rooted at `root`; paths given to the other methods are relative
    /// to it.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            files: BTreeMap::new(),
        }
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn read_disk(&self, rel: &Path) -> Result<Option<String>, Error> {
        let path = self.root.join(rel);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(Error::Read { path, source }),
        }
    }

    /// The file's contents as the plan has it now (planned, else on disk).
    pub fn current(&self, rel: &Path) -> Result<Option<String>, Error> {
        match self.files.get(rel) {
            Some(file) => Ok(Some(file.contents.clone())),
            None => self.read_disk(rel),
        }
    }

    fn set(&mut self, rel: &Path, contents: String) -> Result<(), Error> {
        if let Some(file) = self.files.get_mut(rel) {
            file.contents = contents;
        } else {
            let original = self.read_disk(rel)?;
            self.files
                .insert(rel.to_owned(), PlannedFile { original, contents });
        }
        Ok(())
    }

    /// Plans a new file. An existing file is an error unless `overwrite`.
    pub fn create(
        &mut self,
        rel: impl AsRef<Path>,
        contents: String,
        overwrite: bool,
    ) -> Result<(), Error> {
        let rel = rel.as_ref();
        if !overwrite && self.current(rel)?.is_some() {
            return Err(Error::FileExists {
                path: rel.to_owned(),
            });
        }
        self.set(rel, contents)
    }

    /// Plans a file unless it exists already (then it is left as it is).
    pub fn ensure(
        &mut self,
        rel: impl AsRef<Path>,
        contents: impl FnOnce() -> Result<String, Error>,
    ) -> Result<(), Error> {
        let rel = rel.as_ref();
        if self.current(rel)?.is_none() {
            self.set(rel, contents()?)?;
        }
        Ok(())
    }

    /// Plans inserting `lines` before `marker` in an existing (or planned) file; lines already
    /// there are skipped.
    pub fn insert(
        &mut self,
        rel: impl AsRef<Path>,
        marker: Marker,
        lines: &[String],
    ) -> Result<(), Error> {
        self.insert_with(rel.as_ref(), marker, lines, insert_before_marker)
    }

    /// Plans inserting `block` (lines that belong together, e.g. a YAML list item) before
    /// `marker` in an existing (or planned) file, unless the whole block is there already.
    pub fn insert_block(
        &mut self,
        rel: impl AsRef<Path>,
        marker: Marker,
        block: &[String],
    ) -> Result<(), Error> {
        self.insert_with(rel.as_ref(), marker, block, insert_block_before_marker)
    }

    /// Plans `insert(text, marker_line, lines)` on an existing (or planned) file; None from
    /// it means the marker is missing.
    fn insert_with(
        &mut self,
        rel: &Path,
        marker: Marker,
        lines: &[String],
        insert: fn(&str, &str, &[String]) -> Option<String>,
    ) -> Result<(), Error> {
        let marker_line = marker.line_for(rel);
        let text = self.existing(rel, &marker_line)?;
        let updated = insert(&text, &marker_line, lines).ok_or_else(|| Error::MarkerMissing {
            path: rel.to_owned(),
            marker: marker_line.clone(),
        })?;
        self.set(rel, updated)
    }

    /// Plans rewriting an existing (or planned) file with `edit`, which gets its current
    /// contents; `what` names what the edit needs in the file, for the error when the file is
    /// missing.
    pub fn edit(
        &mut self,
        rel: impl AsRef<Path>,
        what: &str,
        edit: impl FnOnce(&str) -> Result<String, Error>,
    ) -> Result<(), Error> {
        let rel = rel.as_ref();
        let text = self.existing(rel, what)?;
        let updated = edit(&text)?;
        self.set(rel, updated)
    }

    /// The current contents of a file that must exist.
    fn existing(&self, rel: &Path, marker: &str) -> Result<String, Error> {
        self.current(rel)?.ok_or_else(|| Error::FileMissing {
            path: rel.to_owned(),
            marker: marker.to_owned(),
        })
    }

    /// The planned changes, in path order (files whose contents end up unchanged are left out).
    pub fn changes(&self) -> Vec<(Change, &Path)> {
        self.files
            .iter()
            .filter(|(_, f)| f.original.as_deref() != Some(f.contents.as_str()))
            .map(|(path, f)| {
                let change = if f.original.is_some() {
                    Change::Update
                } else {
                    Change::Create
                };
                (change, path.as_path())
            })
            .collect()
    }

    /// Writes every changed file. Every new content is first written to a temporary file beside
    /// its target; only when all of them are written are they renamed into place.
    pub fn commit(self) -> Result<Vec<(Change, PathBuf)>, Error> {
        let changes: Vec<(Change, PathBuf)> = self
            .changes()
            .into_iter()
            .map(|(c, p)| (c, p.to_owned()))
            .collect();
        let writes: Vec<(PathBuf, &str)> = changes
            .iter()
            .map(|(_, rel)| (self.root.join(rel), self.files[rel].contents.as_str()))
            .collect();
        commit::write_all(&self.root, &writes)?;
        Ok(changes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_marker_fails_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "// +kubeforge:scaffold:x\n").unwrap();
        std::fs::write(dir.path().join("b.rs"), "no marker\n").unwrap();
        let mut plan = Plan::new(dir.path());
        plan.create("new.rs", "x".into(), false).unwrap();
        plan.insert("a.rs", Marker("x"), &["line".into()]).unwrap();
        let err = plan
            .insert("b.rs", Marker("x"), &["line".into()])
            .unwrap_err();
        assert!(matches!(err, Error::MarkerMissing { .. }), "{err}");
        drop(plan);
        assert!(!dir.path().join("new.rs").exists());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.rs")).unwrap(),
            "// +kubeforge:scaffold:x\n"
        );
    }

    #[test]
    fn commits_creates_and_updates() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "// +kubeforge:scaffold:x\n").unwrap();
        let mut plan = Plan::new(dir.path());
        plan.create("sub/new.rs", "x".into(), false).unwrap();
        plan.insert("a.rs", Marker("x"), &["line".into()]).unwrap();
        let changes = plan.commit().unwrap();
        assert_eq!(
            changes,
            vec![
                (Change::Update, "a.rs".into()),
                (Change::Create, "sub/new.rs".into())
            ]
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.rs")).unwrap(),
            "line\n// +kubeforge:scaffold:x\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("sub/new.rs")).unwrap(),
            "x"
        );
    }

    #[test]
    fn refuses_to_overwrite_without_permission() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "mine").unwrap();
        let mut plan = Plan::new(dir.path());
        assert!(matches!(
            plan.create("a.rs", "x".into(), false),
            Err(Error::FileExists { .. })
        ));
        plan.create("a.rs", "x".into(), true).unwrap();
    }
}
