//! Resolution: a path written in a scope → the module defining what it names.

use std::collections::{BTreeMap, BTreeSet};

use super::parse::{Scope, parent};

#[derive(Debug, Default)]
pub(super) struct Index {
    /// Module paths that are files.
    pub(super) file_modules: BTreeSet<String>,
    /// Every module (file or inline) → the file module holding it.
    pub(super) owner: BTreeMap<String, String>,
    /// Every module → its scope.
    pub(super) scopes: BTreeMap<String, Scope>,
}

impl Index {
    /// Turns a path written in `scope` into segments from the crate root, or None when it
    /// leaves the crate (an external crate, `std`, a local variable's method...).
    pub(super) fn absolute(&self, scope: &str, segments: &[String]) -> Option<Vec<String>> {
        self.absolute_depth(scope, segments, 0)
    }

    fn absolute_depth(
        &self,
        scope: &str,
        segments: &[String],
        depth: usize,
    ) -> Option<Vec<String>> {
        if depth > 16 {
            return None;
        }
        let first = segments.first()?;
        let mut base: Vec<String> = if scope == "crate" {
            Vec::new()
        } else {
            scope.split("::").map(String::from).collect()
        };
        match first.as_str() {
            "crate" => Some(segments[1..].to_vec()),
            "self" => {
                base.extend(segments[1..].iter().cloned());
                Some(base)
            }
            "super" => {
                let mut rest = segments;
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                Some(base)
            }
            "" | "Self" | "std" | "core" | "alloc" => None,
            name => {
                // A child module, or a name a `use` of this scope (or an enclosing inline
                // scope of the same file) brought in.
                let mut current = Some(scope.to_string());
                let file = self.owner.get(scope).cloned();
                while let Some(s) = current {
                    let sc = self.scopes.get(&s)?;
                    if sc.children.contains(name) {
                        let mut abs: Vec<String> = if s == "crate" {
                            Vec::new()
                        } else {
                            s.split("::").map(String::from).collect()
                        };
                        abs.extend(segments.iter().cloned());
                        return Some(abs);
                    }
                    if let Some(target) = sc.imports.get(name) {
                        if target.first().map(String::as_str) == Some(name) && target.len() == 1 {
                            return None; // `use serde_json;`
                        }
                        let mut full = target.clone();
                        full.extend(segments[1..].iter().cloned());
                        return self.absolute_depth(&s, &full, depth + 1);
                    }
                    if Some(&s) == file.as_ref() {
                        break;
                    }
                    current = parent(&s);
                }
                None
            }
        }
    }

    /// The module defining what the absolute path names.
    pub(super) fn resolve(&self, segments: &[String], depth: usize) -> Option<String> {
        if depth > 16 {
            return None;
        }
        let mut k = segments.len();
        let module = loop {
            let candidate = if k == 0 {
                "crate".to_string()
            } else {
                segments[..k].join("::")
            };
            if self.scopes.contains_key(&candidate) {
                break candidate;
            }
            if k == 0 {
                return None;
            }
            k -= 1;
        };
        if k == segments.len() {
            return Some(module);
        }
        let name = &segments[k];
        let scope = &self.scopes[&module];
        if scope.defines.contains(name) {
            return Some(module);
        }
        if let Some(target) = scope.imports.get(name) {
            let mut full = target.clone();
            full.extend(segments[k + 1..].iter().cloned());
            return match self.absolute_depth(&module, &full, 0) {
                Some(abs) => self.resolve(&abs, depth + 1).or(Some(module)),
                None => Some(module), // re-exported from another crate
            };
        }
        for glob in &scope.globs {
            let Some(mut abs) = self.absolute_depth(&module, glob, 0) else {
                continue;
            };
            if let Some(target) = self.resolve(&abs, depth + 1)
                && let Some(ts) = self.scopes.get(&target)
                && (ts.defines.contains(name) || ts.imports.contains_key(name))
            {
                abs.extend(segments[k..].iter().cloned());
                return self.resolve(&abs, depth + 1);
            }
        }
        Some(module)
    }
}
