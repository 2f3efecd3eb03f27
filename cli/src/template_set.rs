//! Which templates a command renders with, and which kubeforge version they are: this
//! binary's embedded templates, or another version's read from a directory (the templates of
//! the version that scaffolded a project, for `kubeforge alpha update`).
//!
//! A template directory is laid out as kubeforge's `templates/templates/` (`project/Makefile.hbs`,
//! `api/type.rs.hbs`, ...) with a `VERSION` file naming its kubeforge version. Templates it lacks
//! are this binary's. `KUBEFORGE_TEMPLATES=<dir>` makes `init`, `create api` and `create webhook`
//! render with such a directory (and `init` record its version in PROJECT).

use std::path::{Path, PathBuf};

use kubeforge_templates::Renderer;

use crate::error::Error;

/// The environment variable naming a template directory to scaffold with.
pub const ENV: &str = "KUBEFORGE_TEMPLATES";

/// The file of a template directory that names its kubeforge version.
pub const VERSION_FILE: &str = "VERSION";

/// This binary's kubeforge version.
pub const CURRENT_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A set of templates and the kubeforge version they belong to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateSet {
    version: String,
    dir: Option<PathBuf>,
    overrides: Vec<(String, String)>,
}

impl TemplateSet {
    /// This binary's templates.
    pub fn current() -> Self {
        Self {
            version: CURRENT_VERSION.to_owned(),
            dir: None,
            overrides: Vec::new(),
        }
    }

    /// The templates of the directory `dir` (see the module documentation).
    pub fn load(dir: &Path) -> Result<Self, Error> {
        let bad = |reason: String, source: Option<std::io::Error>| Error::BadTemplateSet {
            dir: dir.to_owned(),
            reason,
            source,
        };
        let unreadable =
            |what: String| move |e: std::io::Error| bad(format!("{what} does not read"), Some(e));
        let version = std::fs::read_to_string(dir.join(VERSION_FILE))
            .map_err(unreadable(format!("its {VERSION_FILE} file")))?
            .trim()
            .to_owned();
        if version.is_empty() {
            return Err(bad(format!("its {VERSION_FILE} file is empty"), None));
        }
        let mut overrides = Vec::new();
        let mut pending = vec![dir.to_owned()];
        while let Some(current) = pending.pop() {
            let entries =
                std::fs::read_dir(&current).map_err(unreadable(current.display().to_string()))?;
            for entry in entries {
                let path = entry
                    .map_err(unreadable(current.display().to_string()))?
                    .path();
                if path.is_dir() {
                    pending.push(path);
                    continue;
                }
                let Some(rel) = path
                    .strip_prefix(dir)
                    .ok()
                    .and_then(|r| r.to_str())
                    .and_then(|r| r.strip_suffix(".hbs"))
                else {
                    continue;
                };
                let source = std::fs::read_to_string(&path)
                    .map_err(unreadable(path.display().to_string()))?;
                overrides.push((rel.replace('\\', "/"), source));
            }
        }
        overrides.sort();
        Ok(Self {
            version,
            dir: Some(dir.to_owned()),
            overrides,
        })
    }

    /// The directory of `KUBEFORGE_TEMPLATES` when it is set, else this binary's templates.
    pub fn from_env() -> Result<Self, Error> {
        match std::env::var_os(ENV) {
            Some(dir) if !dir.is_empty() => Self::load(Path::new(&dir)),
            _ => Ok(Self::current()),
        }
    }

    /// The kubeforge version of the templates.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The directory the templates came from (`None`: this binary's).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// A renderer of these templates.
    pub fn renderer(&self) -> Result<Renderer, Error> {
        Ok(Renderer::with_overrides(
            self.overrides
                .iter()
                .map(|(name, source)| (name.as_str(), source.as_str())),
        )?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_replaces_the_templates_it_has() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        std::fs::write(dir.path().join("VERSION"), "0.0.9\n").unwrap();
        std::fs::write(
            dir.path().join("project/gitignore.hbs"),
            "old {{project_name}}\n",
        )
        .unwrap();
        let set = TemplateSet::load(dir.path()).unwrap();
        assert_eq!(set.version(), "0.0.9");
        let renderer = set.renderer().unwrap();
        let values = serde_json::json!({"project_name": "demo"});
        assert_eq!(
            renderer.render("project/gitignore", &values).unwrap(),
            "old demo\n"
        );
        // A template the directory lacks is this binary's.
        assert!(renderer.has("api/type.rs"));
    }

    #[test]
    fn a_directory_names_its_version() {
        let dir = tempfile::tempdir().unwrap();
        let err = TemplateSet::load(dir.path()).unwrap_err();
        assert!(
            err.to_string().contains("VERSION file does not read"),
            "{err}"
        );
    }
}
