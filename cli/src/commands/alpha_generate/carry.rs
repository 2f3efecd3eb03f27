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
use crate::scaffold::rust::{RustSource, insert_at_marker, module_declarations};
use crate::scaffold::{MemoryTree, Template, Tree};

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

/// Carries `user` (every file of the old project) into the scaffold `fresh`.
pub fn carry(fresh: &MemoryTree, user: &BTreeMap<PathBuf, Vec<u8>>) -> Carried {
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
        let (merged, left) = merge_kept_file(path, &old_text, new_text);
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
    out
}

/// The new scaffold's `new` version of a file kubeforge keeps, with what can be carried from
/// the user's `old` one, and what could not (`None`: nothing left).
fn merge_kept_file(path: &Path, old: &str, new: &str) -> (String, Option<String>) {
    let merged = match path.to_str() {
        Some("Cargo.toml") => carry_dependencies(old, new),
        Some("src/lib.rs") => carry_modules(old, new),
        _ => new.to_owned(),
    };
    // Nothing is lost when every line of the user's file is in the merged one (a carried
    // declaration may sit elsewhere).
    if old.lines().all(|line| merged.lines().any(|m| m == line)) {
        return (merged, None);
    }
    let reason = match path.to_str() {
        Some("Cargo.toml") => {
            "your extra dependencies are carried; other changes are not (compare the two files)"
        }
        Some("src/lib.rs") => {
            "your module declarations are carried; other changes are not (compare the two files)"
        }
        _ => {
            "the new scaffold's version is kept; your changes are not carried (compare the two files)"
        }
    };
    (merged, Some(reason.to_owned()))
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

/// `new` with the module declarations (`mod x;`, their attributes and visibility as the user
/// wrote them) of `old` whose module `new` does not declare, before lib.rs's modules marker at
/// their rustfmt place. Both files are read through their syntax tree; when either does not
/// parse (or the marker is gone), `new` is returned as it is and the difference is listed.
fn carry_modules(old: &str, new: &str) -> String {
    let path = Path::new("src/lib.rs");
    let (Ok(old_source), Ok(new_source)) =
        (RustSource::parse(path, old), RustSource::parse(path, new))
    else {
        return new.to_owned();
    };
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
        return new.to_owned();
    }
    match insert_at_marker(path, new, "// +kubeforge:scaffold:modules", &extra) {
        Ok(Some(merged)) => merged,
        _ => new.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            carry_modules(old, new),
            "pub mod api;\nmod private;\npub mod util;\npub mod webhooks;\n// +kubeforge:scaffold:modules\n"
        );
    }

    #[test]
    fn module_declarations_are_read_as_syntax() {
        let new = "//! Lib.\n\npub mod api;\npub mod controllers;\n// +kubeforge:scaffold:modules\n\npub fn crds() {}\n";
        // Odd spacing, attributes, a doc comment, an inline module and a commented-out one.
        let old = "//! Lib.\n\npub  mod  api ;\npub mod controllers;\n#[cfg(test)] mod tests;\n/// Mine.\npub(crate) mod r#type;\nmod inline {}\n// mod gone;\n// +kubeforge:scaffold:modules\n\npub fn crds() {}\n";
        let merged = carry_modules(old, new);
        assert_eq!(
            merged,
            "//! Lib.\n\npub mod api;\npub mod controllers;\n#[cfg(test)] mod tests;\n/// Mine.\npub(crate) mod r#type;\n// +kubeforge:scaffold:modules\n\npub fn crds() {}\n"
        );
        assert_eq!(carry_modules(&merged, new), merged);
        assert_eq!(carry_modules("pub mod broken(;\n", new), new);
    }
}
