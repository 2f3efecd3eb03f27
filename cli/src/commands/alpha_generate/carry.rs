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
use crate::scaffold::markers::insert_before_marker;
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

/// `new` with the `mod` declarations only `old` has, before lib.rs's modules marker.
fn carry_modules(old: &str, new: &str) -> String {
    let is_mod = |line: &str| {
        let t = line.trim();
        (t.starts_with("mod ") || t.starts_with("pub mod ")) && t.ends_with(';')
    };
    let extra: Vec<&str> = old
        .lines()
        .filter(|l| is_mod(l) && !new.lines().any(|n| n.trim() == l.trim()))
        .collect();
    let lines: Vec<String> = extra.iter().map(|l| l.trim().to_owned()).collect();
    // At their sorted place among the scaffold's `pub mod` lines, as rustfmt orders them.
    insert_before_marker(new, "// +kubeforge:scaffold:modules", &lines)
        .unwrap_or_else(|| new.to_owned())
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
            "pub mod api;\npub mod util;\npub mod webhooks;\nmod private;\n// +kubeforge:scaffold:modules\n"
        );
    }
}
