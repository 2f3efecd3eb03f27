//! The in-memory plan of a command's writes.
//!
//! A plan reads the project through a read-only [`Tree`] and keeps every write in memory. Each
//! step checks what it needs (a file in the way, a marker present, a Rust file that parses) and
//! refuses with a typed [`Error`]; only a finished plan ([`Plan::finish`]) is committed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kubeforge_templates::Renderer;
use serde::Serialize;

use super::artifact::{Anchor, Artifact, Fragment, IfExists, Template};
use super::changeset::{Change, Changeset, FileChange};
use super::markers::{insert_before_marker, insert_block_before_marker};
use super::rust::{RustSource, append_items, insert_at_marker};
use super::tree::Tree;
use crate::error::Error;

#[derive(Debug)]
struct PlannedFile {
    /// Contents in the tree when the plan first touched the file (`None`: absent).
    original: Option<String>,
    /// Contents after the command.
    contents: String,
    /// The templates the command wrote into the file.
    templates: Vec<&'static Template>,
}

/// Every write a command makes, in memory until it is finished and committed.
pub struct Plan<'a> {
    tree: &'a dyn Tree,
    renderer: &'a Renderer,
    files: BTreeMap<PathBuf, PlannedFile>,
    insertions: Vec<Anchor>,
}

impl std::fmt::Debug for Plan<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan")
            .field("root", &self.tree.root())
            .field("files", &self.files.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl<'a> Plan<'a> {
    /// A plan over `tree`, rendering with `renderer`.
    pub fn new(tree: &'a dyn Tree, renderer: &'a Renderer) -> Self {
        Self {
            tree,
            renderer,
            files: BTreeMap::new(),
            insertions: Vec::new(),
        }
    }

    /// The tree the plan reads.
    pub fn tree(&self) -> &'a dyn Tree {
        self.tree
    }

    /// Renders `template` with `values` (for text a command composes itself).
    pub fn render(&self, template: &Template, values: &impl Serialize) -> Result<String, Error> {
        Ok(self.renderer.render(template.name, values)?)
    }

    /// The file's contents as the plan has them now (planned, else in the tree).
    pub fn current(&self, rel: impl AsRef<Path>) -> Result<Option<String>, Error> {
        let rel = rel.as_ref();
        match self.files.get(rel) {
            Some(file) => Ok(Some(file.contents.clone())),
            None => self.tree.read(rel),
        }
    }

    /// Whether the file exists, planned or in the tree.
    pub fn exists(&self, rel: impl AsRef<Path>) -> Result<bool, Error> {
        Ok(self.current(rel)?.is_some())
    }

    fn set(
        &mut self,
        rel: &Path,
        contents: String,
        template: Option<&'static Template>,
    ) -> Result<(), Error> {
        if !self.files.contains_key(rel) {
            let original = self.tree.read(rel)?;
            self.files.insert(
                rel.to_owned(),
                PlannedFile {
                    original,
                    contents: String::new(),
                    templates: Vec::new(),
                },
            );
        }
        let file = self.files.get_mut(rel).expect("inserted above");
        file.contents = contents;
        if let Some(template) = template
            && !file.templates.contains(&template)
        {
            file.templates.push(template);
        }
        Ok(())
    }

    /// Plans `artifact`, rendered with `values`, following its [`IfExists`].
    pub fn add(&mut self, artifact: &Artifact, values: &impl Serialize) -> Result<(), Error> {
        self.add_with(artifact, |plan| plan.render(artifact.template, values))
    }

    /// Plans `artifact` with contents the command computes (only called when the file is to be
    /// written), following its [`IfExists`].
    pub fn add_with(
        &mut self,
        artifact: &Artifact,
        contents: impl FnOnce(&Self) -> Result<String, Error>,
    ) -> Result<(), Error> {
        let exists = self.exists(&artifact.path)?;
        match (exists, artifact.if_exists) {
            (true, IfExists::Refuse) => Err(Error::FileExists {
                path: artifact.path.clone(),
            }),
            (true, IfExists::Keep) => Ok(()),
            _ => {
                let text = contents(self)?;
                self.set(&artifact.path, text, Some(artifact.template))
            }
        }
    }

    /// Plans a file that no template writes (PROJECT), following `if_exists`.
    pub fn put(
        &mut self,
        rel: impl AsRef<Path>,
        contents: String,
        if_exists: IfExists,
    ) -> Result<(), Error> {
        let rel = rel.as_ref();
        match (self.exists(rel)?, if_exists) {
            (true, IfExists::Refuse) => Err(Error::FileExists {
                path: rel.to_owned(),
            }),
            (true, IfExists::Keep) => Ok(()),
            _ => self.set(rel, contents, None),
        }
    }

    /// Appends `template`, rendered with `values`, to an existing (or planned) file. A Rust
    /// file goes through its syntax tree ([`append_items`]): a file that does not parse refuses
    /// the command, and items it defines already are not appended again. Other files (YAML)
    /// get the text appended.
    pub fn append(
        &mut self,
        rel: impl AsRef<Path>,
        template: &'static Template,
        values: &impl Serialize,
    ) -> Result<(), Error> {
        let rel = rel.as_ref();
        let mut text = self.existing(rel, template.name)?;
        let section = self.render(template, values)?;
        if rel.extension().is_some_and(|e| e == "rs") {
            text = append_items(rel, &text, &section)?;
        } else {
            text.push_str(&section);
        }
        self.set(rel, text, Some(template))
    }

    /// Plans inserting `fragment` before the marker of `anchor` in an existing (or planned)
    /// file; refuses when the file or the marker is missing.
    pub fn insert(&mut self, anchor: &Anchor, fragment: Fragment) -> Result<(), Error> {
        let line = anchor.marker.line();
        let text = self.existing(&anchor.path, &line)?;
        let updated = insert_fragment(&anchor.path, &text, &line, &fragment)?.ok_or_else(|| {
            Error::MarkerMissing {
                path: anchor.path.clone(),
                marker: line.clone(),
            }
        })?;
        self.insertions.push(anchor.clone());
        self.set(&anchor.path, updated, None)
    }

    /// Like [`Plan::insert`], but a file without the marker (scaffolded before the marker
    /// existed) is left alone. Returns whether the fragment went in.
    pub fn insert_if_marked(&mut self, anchor: &Anchor, fragment: Fragment) -> Result<bool, Error> {
        let line = anchor.marker.line();
        let marked = self
            .current(&anchor.path)?
            .is_some_and(|text| text.lines().any(|l| l.trim() == line));
        if marked {
            self.insert(anchor, fragment)?;
        }
        Ok(marked)
    }

    /// Plans rewriting an existing (or planned) text file with `edit`, which gets its current
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
        self.set(rel, updated, None)
    }

    /// Plans an edit of an existing (or planned) Rust file: the file is parsed, and `edit`
    /// returns its new text (see [`RustSource`] for edits that keep everything outside the
    /// changed span byte for byte). A file that does not parse refuses the command.
    pub fn edit_rust(
        &mut self,
        rel: impl AsRef<Path>,
        what: &str,
        edit: impl FnOnce(&RustSource<'_>) -> Result<String, Error>,
    ) -> Result<(), Error> {
        let rel = rel.as_ref();
        let text = self.existing(rel, what)?;
        let source = RustSource::parse(rel, &text)?;
        let updated = edit(&source)?;
        self.set(rel, updated, None)
    }

    /// The current contents of a file that must exist; `what` is what the command needs from
    /// it, for the message when it is missing.
    fn existing(&self, rel: &Path, what: &str) -> Result<String, Error> {
        self.current(rel)?.ok_or_else(|| Error::FileMissing {
            path: rel.to_owned(),
            marker: what.to_owned(),
        })
    }

    /// Every marker the plan inserted at, in order.
    pub fn insertions(&self) -> &[Anchor] {
        &self.insertions
    }

    /// The templates a file is written from: those of the tree, then those of this plan.
    pub fn templates(&self, rel: impl AsRef<Path>) -> Vec<&'static Template> {
        let rel = rel.as_ref();
        let mut templates = self.tree.templates(rel);
        if let Some(file) = self.files.get(rel) {
            for template in &file.templates {
                if !templates.contains(template) {
                    templates.push(template);
                }
            }
        }
        templates
    }

    /// The planned changes, in path order (files whose contents end up unchanged are left out).
    pub fn changes(&self) -> Vec<(Change, &Path)> {
        self.changed().map(|(c, p, _)| (c, p)).collect()
    }

    fn changed(&self) -> impl Iterator<Item = (Change, &Path, &PlannedFile)> {
        self.files
            .iter()
            .filter(|(_, f)| f.original.as_deref() != Some(f.contents.as_str()))
            .map(|(path, f)| {
                let change = if f.original.is_some() {
                    Change::Update
                } else {
                    Change::Create
                };
                (change, path.as_path(), f)
            })
    }

    /// The finished plan, ready to commit.
    pub fn finish(self) -> Changeset {
        let files = self
            .changed()
            .map(|(change, path, file)| FileChange {
                change,
                path: path.to_owned(),
                contents: file.contents.clone(),
                templates: file.templates.clone(),
            })
            .collect();
        Changeset::new(files)
    }
}

/// Inserts `fragment` before `marker_line`; `None` when the marker is missing. Rust files are
/// edited through their syntax tree ([`insert_at_marker`]: each line of [`Fragment::Lines`] is
/// a piece of code, a [`Fragment::Block`] one piece); other files (YAML, the Makefile) by lines.
fn insert_fragment(
    path: &Path,
    text: &str,
    marker_line: &str,
    fragment: &Fragment,
) -> Result<Option<String>, Error> {
    if path.extension().is_some_and(|e| e == "rs") {
        let pieces = match fragment {
            Fragment::Lines(lines) => lines.clone(),
            Fragment::Block(block) => vec![block.join("\n")],
        };
        return insert_at_marker(path, text, marker_line, &pieces);
    }
    Ok(match fragment {
        Fragment::Lines(lines) => insert_before_marker(text, marker_line, lines),
        Fragment::Block(block) => insert_block_before_marker(text, marker_line, block),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaffold::artifact::{FixedFile, Marker};
    use crate::scaffold::tree::{DiskTree, MemoryTree};

    const A: Template = Template::new("test/a.rs", &["x"]);
    const A_FILE: FixedFile = FixedFile::new(&A, "a.rs");
    const B_FILE: FixedFile = FixedFile::new(&A, "b.rs");
    const X: Marker = Marker::new(&A, "x");

    fn renderer() -> Renderer {
        Renderer::new().unwrap()
    }

    #[test]
    fn a_missing_marker_fails_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "// +kubeforge:scaffold:x\n").unwrap();
        std::fs::write(dir.path().join("b.rs"), "// no marker\n").unwrap();
        let tree = DiskTree::new(dir.path());
        let renderer = renderer();
        let mut plan = Plan::new(&tree, &renderer);
        plan.put("new.rs", "x".into(), IfExists::Refuse).unwrap();
        plan.insert(&A_FILE.at(X), Fragment::line("mod line;"))
            .unwrap();
        let err = plan
            .insert(&B_FILE.at(X), Fragment::line("mod line;"))
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
        let tree = DiskTree::new(dir.path());
        let renderer = renderer();
        let mut plan = Plan::new(&tree, &renderer);
        plan.put("sub/new.rs", "x".into(), IfExists::Refuse)
            .unwrap();
        plan.insert(&A_FILE.at(X), Fragment::line("mod line;"))
            .unwrap();
        let changes = plan.finish().commit(dir.path()).unwrap();
        assert_eq!(
            changes,
            vec![
                (Change::Update, "a.rs".into()),
                (Change::Create, "sub/new.rs".into())
            ]
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.rs")).unwrap(),
            "mod line;\n// +kubeforge:scaffold:x\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("sub/new.rs")).unwrap(),
            "x"
        );
    }

    #[test]
    fn if_exists_decides_what_happens_to_a_file_in_the_way() {
        let mut tree = MemoryTree::new();
        tree.write("a.rs", "mine");
        let renderer = renderer();
        let mut plan = Plan::new(&tree, &renderer);
        let artifact = |if_exists| Artifact::new(&A, "a.rs", if_exists);
        let refused = plan.add_with(&artifact(IfExists::Refuse), |_| Ok("x".into()));
        assert!(matches!(refused, Err(Error::FileExists { .. })));
        plan.add_with(&artifact(IfExists::Keep), |_| panic!("not rendered"))
            .unwrap();
        assert_eq!(plan.current("a.rs").unwrap().as_deref(), Some("mine"));
        plan.add_with(&artifact(IfExists::Overwrite), |_| Ok("x".into()))
            .unwrap();
        assert_eq!(plan.current("a.rs").unwrap().as_deref(), Some("x"));
        assert_eq!(plan.templates("a.rs"), vec![&A]);
    }

    #[test]
    fn a_file_without_changes_is_not_written() {
        let mut tree = MemoryTree::new();
        tree.write("a.rs", "mod same;\n// +kubeforge:scaffold:x\n");
        let renderer = renderer();
        let mut plan = Plan::new(&tree, &renderer);
        plan.insert(&A_FILE.at(X), Fragment::line("mod same;"))
            .unwrap();
        assert!(plan.changes().is_empty());
        assert_eq!(plan.insertions().len(), 1);
        let changes = plan.finish();
        assert!(changes.files().is_empty());
        tree.apply(&changes);
        assert_eq!(
            tree.get("a.rs"),
            Some("mod same;\n// +kubeforge:scaffold:x\n")
        );
    }

    #[test]
    fn an_optional_marker_that_is_missing_is_skipped() {
        let mut tree = MemoryTree::new();
        tree.write("a.rs", "// old file\n");
        let renderer = renderer();
        let mut plan = Plan::new(&tree, &renderer);
        assert!(
            !plan
                .insert_if_marked(&A_FILE.at(X), Fragment::line("mod y;"))
                .unwrap()
        );
        assert!(plan.changes().is_empty());
    }

    #[test]
    fn rust_edits_refuse_a_file_that_does_not_parse() {
        let mut tree = MemoryTree::new();
        tree.write("a.rs", "fn broken( {\n");
        let renderer = renderer();
        let mut plan = Plan::new(&tree, &renderer);
        let err = plan
            .edit_rust("a.rs", "a function", |_| Ok(String::new()))
            .unwrap_err();
        assert!(matches!(err, Error::RustSyntax { .. }), "{err}");
        assert!(plan.changes().is_empty());
    }
}
