//! The descriptor types of generated files: which template writes a file, where the file goes,
//! what to do when it exists, and which scaffold markers its text defines. The catalogue of
//! every concrete descriptor is [`crate::artifacts`].

use std::path::{Path, PathBuf};

/// A template of `kubeforge-templates` and the scaffold markers its output defines.
#[derive(Debug)]
pub struct Template {
    /// Its name in `kubeforge-templates` (`project/src/main.rs`).
    pub name: &'static str,
    /// The names of the markers its output holds (`builder` for
    /// `// +kubeforge:scaffold:builder`); later commands insert code just before them.
    pub markers: &'static [&'static str],
}

impl Template {
    /// A template and the markers its output defines.
    pub const fn new(name: &'static str, markers: &'static [&'static str]) -> Self {
        Self { name, markers }
    }

    /// The comment that starts a marker line in this template's output: `//` in Rust files,
    /// `#` in YAML files and the Makefile.
    pub fn comment(&self) -> &'static str {
        if self.name.ends_with(".rs") {
            "//"
        } else {
            "#"
        }
    }

    /// Whether its output defines the marker `name`.
    pub fn defines(&self, name: &str) -> bool {
        self.markers.contains(&name)
    }

    /// The handlebars source of the template (`None` when `kubeforge-templates` has no
    /// template of that name: a bug the catalogue's tests catch).
    pub fn source(&self) -> Option<&'static str> {
        kubeforge_templates::TEMPLATES
            .iter()
            .find(|t| t.name == self.name)
            .map(|t| t.source)
    }
}

impl PartialEq for Template {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Template {}

/// `needle` is one of `names` (a `const fn`, so a marker that its template does not declare is a
/// compile error).
const fn declares(names: &[&str], needle: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        let name = names[i].as_bytes();
        let wanted = needle.as_bytes();
        if name.len() == wanted.len() {
            let mut j = 0;
            while j < name.len() && name[j] == wanted[j] {
                j += 1;
            }
            if j == name.len() {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// A scaffold marker, named through the template whose output defines it. Commands insert at
/// markers only through these constants (see [`crate::artifacts`]), never by a bare name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    template: &'static Template,
    name: &'static str,
}

impl Marker {
    /// The marker `name` of `template`. Evaluated at compile time in the catalogue's constants,
    /// where a name the template does not declare fails the build.
    pub const fn new(template: &'static Template, name: &'static str) -> Self {
        assert!(
            declares(template.markers, name),
            "a marker must be declared by the template that defines it"
        );
        Self { template, name }
    }

    /// The template whose output defines the marker.
    pub fn template(&self) -> &'static Template {
        self.template
    }

    /// The marker's name (`builder`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The marker line, without indentation (`// +kubeforge:scaffold:builder`).
    pub fn line(&self) -> String {
        format!(
            "{} +kubeforge:scaffold:{}",
            self.template.comment(),
            self.name
        )
    }
}

/// What planning a file does when the file already exists (kubebuilder's `IfExistsAction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IfExists {
    /// Refuse the command: the file is in the way (the fix is `--force` or moving it).
    Refuse,
    /// Write it anew.
    Overwrite,
    /// Leave it as it is (files shared by several APIs, written on first use).
    Keep,
}

impl IfExists {
    /// [`IfExists::Overwrite`] with `--force`, else [`IfExists::Refuse`].
    pub fn refuse_unless(force: bool) -> Self {
        if force { Self::Overwrite } else { Self::Refuse }
    }

    /// [`IfExists::Overwrite`] with `--force`, else [`IfExists::Keep`].
    pub fn keep_unless(force: bool) -> Self {
        if force { Self::Overwrite } else { Self::Keep }
    }
}

/// One generated file: the template that writes it, its path in the project, and what to do
/// when it exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// The template of its contents.
    pub template: &'static Template,
    /// Its path, relative to the project root.
    pub path: PathBuf,
    /// What to do when it exists.
    pub if_exists: IfExists,
}

impl Artifact {
    /// A file at `path` written from `template`.
    pub fn new(template: &'static Template, path: impl Into<PathBuf>, if_exists: IfExists) -> Self {
        Self {
            template,
            path: path.into(),
            if_exists,
        }
    }

    /// The marker `marker` in this file. The marker must be one its template defines.
    pub fn at(&self, marker: Marker) -> Anchor {
        Anchor::new(self.template, &self.path, marker)
    }
}

/// A file that is always at the same path (what `init` writes, files shared by every API).
#[derive(Debug, PartialEq, Eq)]
pub struct FixedFile {
    /// The template of its contents.
    pub template: &'static Template,
    /// Its path, relative to the project root.
    pub path: &'static str,
}

impl FixedFile {
    /// The file at `path` written from `template`.
    pub const fn new(template: &'static Template, path: &'static str) -> Self {
        Self { template, path }
    }

    /// The file as an artifact with `if_exists`.
    pub fn artifact(&self, if_exists: IfExists) -> Artifact {
        Artifact::new(self.template, self.path, if_exists)
    }

    /// The marker `marker` in this file. The marker must be one its template defines.
    pub fn at(&self, marker: Marker) -> Anchor {
        Anchor::new(self.template, Path::new(self.path), marker)
    }
}

/// A marker in one file: where an insertion goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    /// The file, relative to the project root.
    pub path: PathBuf,
    /// The marker in it.
    pub marker: Marker,
}

impl Anchor {
    /// `marker` in the file at `path`, which `template` writes.
    ///
    /// # Panics
    /// When `marker` is not a marker of `template`: a command names a marker of another file, a
    /// bug every command's unit tests would show.
    fn new(template: &'static Template, path: &Path, marker: Marker) -> Self {
        assert!(
            marker.template() == template,
            "{} is written from {}, which does not define the marker {} (it is {}'s)",
            path.display(),
            template.name,
            marker.name(),
            marker.template().name
        );
        Self {
            path: path.to_owned(),
            marker,
        }
    }
}

/// What is inserted at a marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fragment {
    /// Independent pieces, each skipped when the file has it already. In a Rust file each is a
    /// piece of code (an item, a statement, a macro argument, a `.call(...)` of the chain a
    /// block ends with) compared as syntax, and a module declaration joins those above the
    /// marker at its rustfmt place; in YAML and the Makefile each is a line.
    Lines(Vec<String>),
    /// Lines that belong together (a YAML list item): skipped only when all of them stand
    /// together in the file already (in a Rust file: one piece of code).
    Block(Vec<String>),
}

impl Fragment {
    /// One line.
    pub fn line(line: impl Into<String>) -> Self {
        Self::Lines(vec![line.into()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUST: Template = Template::new("x/main.rs", &["builder", "imports"]);
    const YAML: Template = Template::new("x/kustomization.yaml", &["rbac"]);

    #[test]
    fn marker_lines_follow_the_syntax_of_the_file() {
        assert_eq!(
            Marker::new(&RUST, "builder").line(),
            "// +kubeforge:scaffold:builder"
        );
        assert_eq!(
            Marker::new(&YAML, "rbac").line(),
            "# +kubeforge:scaffold:rbac"
        );
    }

    #[test]
    fn a_marker_must_be_declared_by_its_template() {
        assert!(declares(RUST.markers, "imports"));
        assert!(!declares(RUST.markers, "import"));
        assert!(!declares(RUST.markers, "rbac"));
        let refused = std::panic::catch_unwind(|| Marker::new(&RUST, "rbac"));
        assert!(refused.is_err());
    }

    #[test]
    fn anchors_belong_to_the_file_of_their_marker() {
        let main = FixedFile::new(&RUST, "src/main.rs");
        let anchor = main.at(Marker::new(&RUST, "imports"));
        assert_eq!(anchor.path, Path::new("src/main.rs"));
        let refused = std::panic::catch_unwind(|| main.at(Marker::new(&YAML, "rbac")));
        assert!(refused.is_err());
    }
}
