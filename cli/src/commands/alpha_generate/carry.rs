//! The user's code carried into a re-scaffolded project. A file the scaffold writes for the
//! user to fill in (API types, controllers, webhooks, conversions, their tests, samples, the
//! README and the boilerplate) is taken as the user has it; a file the user added is copied; a
//! file kubeforge keeps (main.rs, lib.rs, the `mod.rs` files, Cargo.toml, the Makefile,
//! config/...) is the new scaffold's, with the user's extra dependencies and module
//! declarations carried into Cargo.toml and lib.rs. Any other difference is listed, not merged
//! (`alpha update` merges).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::artifacts::{api, external, project, webhook};
use crate::error::Error;
use crate::scaffold::rust::{RustSource, insert_at_marker, module_declarations};
use crate::scaffold::{Anchor, MemoryTree, Template, Tree};

/// Templates whose files are the user's once written.
const USER_TEMPLATES: &[&Template] = &[
    &api::TYPE,
    &api::CONTROLLER,
    &api::CONTROLLER_TEST,
    &api::CONTROLLER_BUILTIN,
    &api::CONTROLLER_BUILTIN_TEST,
    &api::CONTROLLER_WORLD,
    &api::CONTROLLER_WORLD_TEST,
    &api::SAMPLE,
    &webhook::MODULE,
    &webhook::CONVERSION,
    &webhook::TEST,
    &external::CONTROLLER,
    &external::CONTROLLER_TEST,
    &project::README,
    &project::BOILERPLATE,
];

/// The files of the new project and where each came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Carried {
    /// Every file of the new project.
    pub files: BTreeMap<PathBuf, Vec<u8>>,
    /// The user's code, taken as it is.
    pub yours: Vec<PathBuf>,
    /// Files the user added, copied.
    pub added: Vec<PathBuf>,
    /// The new scaffold's files the old project did not have.
    pub new: Vec<PathBuf>,
    /// kubeforge's files the user had changed: the new scaffold's are kept, with what was
    /// carried into them.
    pub not_carried: Vec<(PathBuf, String)>,
}

/// The marker the user's module declarations are inserted at: lib.rs's modules.
pub fn modules_anchor() -> Anchor {
    project::LIB.at(project::LIB_MODULES)
}

/// Carries `user` (every file of the old project) into the scaffold `fresh`. Refused, before
/// anything is written: a `src/lib.rs` of the user's that does not parse (its module
/// declarations are read through the parser).
pub fn carry(fresh: &MemoryTree, user: &BTreeMap<PathBuf, Vec<u8>>) -> Result<Carried, Error> {
    let mut out = Carried::default();
    for path in fresh.paths() {
        let new_text = fresh.get(path).unwrap_or_default();
        let Some(old) = user.get(path) else {
            out.new.push(path.to_owned());
            out.files
                .insert(path.to_owned(), new_text.as_bytes().to_vec());
            continue;
        };
        let templates = fresh.templates(path);
        if templates.iter().any(|t| USER_TEMPLATES.contains(t)) {
            out.yours.push(path.to_owned());
            out.files.insert(path.to_owned(), old.clone());
            continue;
        }
        let old_text = String::from_utf8_lossy(old);
        if old_text == new_text {
            out.files.insert(path.to_owned(), old.clone());
            continue;
        }
        let (merged, left) = merge_kept_file(path, &templates, &old_text, new_text)?;
        if let Some(reason) = left {
            out.not_carried.push((path.to_owned(), reason));
        }
        out.files.insert(path.to_owned(), merged.into_bytes());
    }
    for (path, bytes) in user {
        if fresh.get(path).is_none() {
            out.added.push(path.clone());
            out.files.insert(path.clone(), bytes.clone());
        }
    }
    Ok(out)
}

/// What is carried into a file kubeforge keeps, by the template that writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Merge {
    /// Cargo.toml: the user's extra dependencies.
    Dependencies,
    /// lib.rs: the user's module declarations.
    Modules,
    /// Nothing: the new scaffold's file.
    Nothing,
}

impl Merge {
    fn of(templates: &[&'static Template]) -> Self {
        if templates.contains(&&project::CARGO_TOML) {
            Self::Dependencies
        } else if templates.contains(&&project::LIB_RS) {
            Self::Modules
        } else {
            Self::Nothing
        }
    }
}

/// The new scaffold's `new` version of a file kubeforge keeps (written from `templates`), with
/// what can be carried from the user's `old` one, and what could not (`None`: nothing left).
fn merge_kept_file(
    path: &Path,
    templates: &[&'static Template],
    old: &str,
    new: &str,
) -> Result<(String, Option<String>), Error> {
    let merge = Merge::of(templates);
    let merged = match merge {
        Merge::Dependencies => carry_dependencies(old, new),
        Merge::Modules => carry_modules(path, old, new)?,
        Merge::Nothing => new.to_owned(),
    };
    // Nothing is lost when every line of the user's file is in the merged one (a carried
    // declaration may sit elsewhere).
    if old.lines().all(|line| merged.lines().any(|m| m == line)) {
        return Ok((merged, None));
    }
    let reason = match merge {
        Merge::Dependencies => {
            "your extra dependencies are carried; other changes are not (compare the two files)"
        }
        Merge::Modules => {
            "your module declarations are carried; other changes are not (compare the two files)"
        }
        Merge::Nothing => {
            "the new scaffold's version is kept; your changes are not carried (compare the two files)"
        }
    };
    Ok((merged, Some(reason.to_owned())))
}

/// The dependency tables of Cargo.toml.
const DEPENDENCY_TABLES: &[&str] = &[
    "[dependencies]",
    "[dev-dependencies]",
    "[build-dependencies]",
];

/// `name = ...` lines of `table` in a Cargo.toml, as (name, line).
fn dependency_lines<'a>(text: &'a str, table: &str) -> Vec<(&'a str, &'a str)> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            inside = trimmed == table;
            continue;
        }
        if inside
            && let Some((name, _)) = trimmed.split_once('=')
            && !trimmed.starts_with('#')
        {
            out.push((name.trim(), line));
        }
    }
    out
}

/// `new` with the dependencies only `old` has appended to their tables.
fn carry_dependencies(old: &str, new: &str) -> String {
    let mut lines: Vec<String> = new.lines().map(str::to_owned).collect();
    for table in DEPENDENCY_TABLES {
        let have: Vec<&str> = dependency_lines(new, table)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        let extra: Vec<String> = dependency_lines(old, table)
            .into_iter()
            .filter(|(name, _)| !have.contains(name))
            .map(|(_, line)| line.to_owned())
            .collect();
        if extra.is_empty() {
            continue;
        }
        match lines.iter().position(|l| l.trim() == *table) {
            Some(start) => {
                let end = lines[start + 1..]
                    .iter()
                    .position(|l| l.trim().is_empty() || l.trim().starts_with('['))
                    .map_or(lines.len(), |i| start + 1 + i);
                lines.splice(end..end, extra);
            }
            None => {
                lines.push(String::new());
                lines.push((*table).to_owned());
                lines.extend(extra);
            }
        }
    }
    let mut out = lines.join("\n");
    if new.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// `new`, the scaffold's `path` (lib.rs), with the module declarations (`mod x;`, their
/// attributes and visibility as the user wrote them) of `old` whose module `new` does not
/// declare, before the modules marker ([`modules_anchor`]) at their rustfmt place. Both files
/// are read through their syntax tree: the user's `old` that does not parse is refused (the
/// error names the file and the fix); a `new` that does not parse or lacks the marker is a bug
/// of kubeforge's.
fn carry_modules(path: &Path, old: &str, new: &str) -> Result<String, Error> {
    let old_source = RustSource::parse(path, old)?;
    let new_source = RustSource::parse(path, new)
        .map_err(|e| Error::Internal(format!("the scaffold's {}: {e}", path.display())))?;
    let have: Vec<String> = module_declarations(&new_source)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    let extra: Vec<String> = module_declarations(&old_source)
        .into_iter()
        .filter(|(name, _)| !have.contains(name))
        .map(|(_, text)| text)
        .collect();
    if extra.is_empty() {
        return Ok(new.to_owned());
    }
    let marker = modules_anchor().marker.line();
    insert_at_marker(path, new, &marker, &extra)?.ok_or_else(|| {
        Error::Internal(format!(
            "the scaffold's {} has no marker `{marker}`",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lib(old: &str, new: &str) -> Result<String, Error> {
        carry_modules(Path::new(project::LIB.path), old, new)
    }

    #[test]
    fn dependencies_the_user_added_are_carried() {
        let new = "[package]\nname = \"x\"\n\n[dependencies]\nkube = \"5\"\nserde = \"1\"\n\n[dev-dependencies]\nanyhow = \"1\"\n";
        let old = "[package]\nname = \"x\"\n\n[dependencies]\nkube = \"4\"\nfastrand = \"2\"\n\n[dev-dependencies]\nanyhow = \"1\"\nproptest = \"1\"\n";
        assert_eq!(
            carry_dependencies(old, new),
            "[package]\nname = \"x\"\n\n[dependencies]\nkube = \"5\"\nserde = \"1\"\nfastrand = \"2\"\n\n[dev-dependencies]\nanyhow = \"1\"\nproptest = \"1\"\n"
        );
    }

    #[test]
    fn module_declarations_the_user_added_are_carried() {
        let new = "pub mod api;\npub mod webhooks;\n// +kubeforge:scaffold:modules\n";
        let old = "pub mod api;\npub mod util;\nmod private;\n// +kubeforge:scaffold:modules\n";
        assert_eq!(
            lib(old, new).unwrap(),
            "pub mod api;\nmod private;\npub mod util;\npub mod webhooks;\n// +kubeforge:scaffold:modules\n"
        );
    }

    #[test]
    fn module_declarations_are_read_as_syntax() {
        let new = "//! Lib.\n\npub mod api;\npub mod controllers;\n// +kubeforge:scaffold:modules\n\npub fn crds() {}\n";
        // Odd spacing, attributes, a doc comment, an inline module and a commented-out one.
        let old = "//! Lib.\n\npub  mod  api ;\npub mod controllers;\n#[cfg(test)] mod tests;\n/// Mine.\npub(crate) mod r#type;\nmod inline {}\n// mod gone;\n// +kubeforge:scaffold:modules\n\npub fn crds() {}\n";
        let merged = lib(old, new).unwrap();
        assert_eq!(
            merged,
            "//! Lib.\n\npub mod api;\npub mod controllers;\n#[cfg(test)] mod tests;\n/// Mine.\npub(crate) mod r#type;\n// +kubeforge:scaffold:modules\n\npub fn crds() {}\n"
        );
        assert_eq!(lib(&merged, new).unwrap(), merged);
    }

    #[test]
    fn a_users_lib_that_does_not_parse_is_refused_naming_it() {
        let new = "pub mod api;\n// +kubeforge:scaffold:modules\n";
        let err = lib("pub mod broken(;\n", new).unwrap_err();
        assert!(matches!(err, Error::RustSyntax { .. }), "{err}");
        let message = err.to_string();
        assert!(
            message.contains("src/lib.rs does not parse as Rust (line 1"),
            "{message}"
        );
        assert!(
            message.contains("fix: make the file valid Rust again"),
            "{message}"
        );
        // The scaffold's file without its marker is kubeforge's bug, not the user's.
        let err = lib("mod mine;\n", "pub mod api;\n").unwrap_err();
        assert!(matches!(err, Error::Internal(_)), "{err}");
    }

    #[test]
    fn the_files_merged_are_known_by_their_template() {
        assert_eq!(Merge::of(&[&project::CARGO_TOML]), Merge::Dependencies);
        assert_eq!(Merge::of(&[&project::LIB_RS]), Merge::Modules);
        assert_eq!(Merge::of(&[&project::MAIN_RS]), Merge::Nothing);
        assert_eq!(modules_anchor().path, Path::new(project::LIB.path));
    }
}
