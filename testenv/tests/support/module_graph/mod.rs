//! The import graph of a crate's source tree, built from the source text alone (std only, so
//! any test of the workspace can include this file with `#[path = "..."]`).
//!
//! Every `.rs` file under a crate's `src/` is a node, named by its module path (`src/lib.rs` is
//! `crate`, `src/a/mod.rs` is `a`, `src/a/b.rs` is `a::b`). A file imports another file when
//! it names an item of it:
//!
//! - `use` declarations (`use crate::a::b::Item;`, `use super::{x, y::Z};`, `use self::c::*;`),
//! - paths in code (`crate::a::f()`, `super::b::T`, `child::g()`, and paths through a name a
//!   `use` brought in: `use crate::a; a::b::f()` names `a::b`),
//!
//! `mod child;` declarations build the tree (which file is which module, which names a scope
//! holds); they are not imports themselves: a child may use what its parent defines, and the
//! parent imports the child only when it uses the child's items (`use child::X`, `pub use`,
//! `child::f()`), which with the child using the parent makes a loop.
//!
//! A path is resolved to the deepest module it names; when the next segment is a name that
//! module brought in with a `use` (a re-export such as `pub use state::FaultState;`, or any
//! import, which child modules can see), the resolution follows it to the module defining the
//! item. So importing `crate::faults::FaultState` depends on `faults/state.rs`, not on the
//! `faults/mod.rs` that re-exports it.
//!
//! The lexer drops comments, string and character literals, so a path in a doc comment or a
//! message is not an import. Macros are not expanded: a path built by a macro is not seen.

#![allow(dead_code)]

mod lex;
mod loops;
mod parse;
mod resolve;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use lex::lex;
use loops::{shortest_cycle, strongly_connected};
use parse::{Parsed, RefKind, parse};
use resolve::Index;

/// One import of a file: where it points and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// Module path of the imported file (`rest::write`, `crate` for the root).
    pub to: String,
    /// Line of the import in the importing file (1-based).
    pub line: usize,
    /// The path as written, segments joined with `::` (`mod child` for a declaration).
    pub text: String,
}

/// One source file.
#[derive(Debug, Clone)]
pub struct FileNode {
    /// Module path (`crate`, `a`, `a::b`).
    pub module: String,
    /// Path relative to the source root (`a/b.rs`).
    pub path: PathBuf,
    /// Imports of other files, first occurrence per target file.
    pub imports: Vec<Import>,
}

/// The files of one source tree and their imports of each other.
#[derive(Debug, Clone, Default)]
pub struct ModuleGraph {
    /// Module path of each file → the file.
    pub files: BTreeMap<String, FileNode>,
}

/// A file importing a file of a higher layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerViolation {
    /// The importing file.
    pub from: PathBuf,
    /// Its layer.
    pub from_layer: String,
    /// The imported file.
    pub to: PathBuf,
    /// Its (higher) layer.
    pub to_layer: String,
    /// Where the import is written.
    pub line: usize,
    /// The path as written.
    pub text: String,
}

impl fmt::Display for LayerViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{} (layer `{}`) imports `{}` from {} (layer `{}`, higher): a layer may import only \
             the layers below it",
            self.from.display(),
            self.line,
            self.from_layer,
            self.text,
            self.to.display(),
            self.to_layer
        )
    }
}

/// A set of files that import each other, directly or through others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportLoop {
    /// Every file of the knot.
    pub files: Vec<PathBuf>,
    /// One loop through it: each file with the import leading to the next (the last leads
    /// back to the first).
    pub cycle: Vec<(PathBuf, Import)>,
}

impl fmt::Display for ImportLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} files import each other (no two files may depend on each other, directly or \
             through others): {}",
            self.files.len(),
            self.files
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )?;
        write!(f, "  one loop:")?;
        for (file, import) in &self.cycle {
            write!(
                f,
                "\n    {}:{} imports `{}`",
                file.display(),
                import.line,
                import.text
            )?;
        }
        Ok(())
    }
}

impl ModuleGraph {
    /// Reads every `.rs` file under `src` (a crate's `src/` directory).
    pub fn read(src: &Path) -> std::io::Result<ModuleGraph> {
        let mut sources = Vec::new();
        collect(src, src, &mut sources)?;
        Ok(ModuleGraph::from_sources(&sources))
    }

    /// Builds the graph from (path relative to the source root, text) pairs.
    pub fn from_sources(sources: &[(PathBuf, String)]) -> ModuleGraph {
        let parsed: Vec<(PathBuf, String, Parsed)> = sources
            .iter()
            .filter_map(|(path, text)| {
                let module = module_of(path)?;
                let parsed = parse(&module, &lex(text));
                Some((path.clone(), module, parsed))
            })
            .collect();
        let mut index = Index::default();
        for (_, module, parsed) in &parsed {
            index.file_modules.insert(module.clone());
            for (scope_path, scope) in &parsed.scopes {
                index.owner.insert(scope_path.clone(), module.clone());
                index.scopes.insert(scope_path.clone(), scope.clone());
            }
        }
        let mut graph = ModuleGraph::default();
        for (path, module, parsed) in &parsed {
            let mut imports: Vec<Import> = Vec::new();
            let mut seen = BTreeSet::new();
            let mut add = |to: Option<String>, line: usize, text: String| {
                let Some(to) = to else { return };
                if to != *module && seen.insert(to.clone()) {
                    imports.push(Import { to, line, text });
                }
            };
            for reference in &parsed.references {
                let to = match &reference.kind {
                    RefKind::ModDecl { .. } => None,
                    RefKind::Path { scope, segments } => index
                        .absolute(scope, segments)
                        .and_then(|abs| index.resolve(&abs, 0))
                        .and_then(|m| index.owner.get(&m).cloned()),
                };
                add(to, reference.line, reference.text.clone());
            }
            graph.files.insert(
                module.clone(),
                FileNode {
                    module: module.clone(),
                    path: path.clone(),
                    imports,
                },
            );
        }
        graph
    }

    /// The file of a module path.
    pub fn path_of(&self, module: &str) -> PathBuf {
        self.files
            .get(module)
            .map_or_else(|| PathBuf::from(module), |f| f.path.clone())
    }

    /// Every import of a file of `layers[i]` from a file of `layers[j]` with `j < i`. `layers`
    /// lists the layers from the top down, each with the module paths it holds (a module path
    /// holds its descendants: `rest` holds `rest::write`); a file is in the layer of its
    /// longest matching module path. Files in no layer are returned by [`Self::unlayered`].
    pub fn layer_violations(&self, layers: &[(&str, &[&str])]) -> Vec<LayerViolation> {
        let mut out = Vec::new();
        for file in self.files.values() {
            let Some(from) = layer_of(&file.module, layers) else {
                continue;
            };
            for import in &file.imports {
                let Some(to) = layer_of(&import.to, layers) else {
                    continue;
                };
                if to < from {
                    out.push(LayerViolation {
                        from: file.path.clone(),
                        from_layer: layers[from].0.to_string(),
                        to: self.path_of(&import.to),
                        to_layer: layers[to].0.to_string(),
                        line: import.line,
                        text: import.text.clone(),
                    });
                }
            }
        }
        out
    }

    /// Files that belong to none of `layers`.
    pub fn unlayered(&self, layers: &[(&str, &[&str])]) -> Vec<PathBuf> {
        self.files
            .values()
            .filter(|f| layer_of(&f.module, layers).is_none())
            .map(|f| f.path.clone())
            .collect()
    }

    /// Every set of files that import each other, each with one loop through it.
    pub fn loops(&self) -> Vec<ImportLoop> {
        let names: Vec<&String> = self.files.keys().collect();
        let id: BTreeMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let edges: Vec<Vec<usize>> = names
            .iter()
            .map(|n| {
                self.files[*n]
                    .imports
                    .iter()
                    .filter_map(|i| id.get(i.to.as_str()).copied())
                    .collect()
            })
            .collect();
        let mut out = Vec::new();
        for component in strongly_connected(&edges) {
            if component.len() < 2 {
                continue;
            }
            let members: BTreeSet<usize> = component.iter().copied().collect();
            let start = *members.iter().next().expect("non-empty");
            let cycle = shortest_cycle(start, &edges, &members)
                .into_iter()
                .zip(0..)
                .collect::<Vec<_>>();
            let hops: Vec<(PathBuf, Import)> = cycle
                .iter()
                .map(|(node, k)| {
                    let next = cycle[(k + 1) % cycle.len()].0;
                    let file = &self.files[names[*node]];
                    let import = file
                        .imports
                        .iter()
                        .find(|i| i.to == *names[next])
                        .cloned()
                        .expect("an edge of the cycle");
                    (file.path.clone(), import)
                })
                .collect();
            out.push(ImportLoop {
                files: members
                    .iter()
                    .map(|m| self.files[names[*m]].path.clone())
                    .collect(),
                cycle: hops,
            });
        }
        out
    }
}

/// Index of the layer holding `module` (the longest matching module path).
fn layer_of(module: &str, layers: &[(&str, &[&str])]) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for (i, (_, prefixes)) in layers.iter().enumerate() {
        for prefix in *prefixes {
            let holds = module == *prefix
                || (module.starts_with(prefix) && module[prefix.len()..].starts_with("::"));
            if holds && best.is_none_or(|(len, _)| prefix.len() > len) {
                best = Some((prefix.len(), i));
            }
        }
    }
    best.map(|(_, i)| i)
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, String)>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::path);
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path)?;
            let relative = path.strip_prefix(root).expect("under root").to_path_buf();
            out.push((relative, text));
        }
    }
    Ok(())
}

/// `lib.rs`/`main.rs` → `crate`, `a/mod.rs` → `a`, `a/b.rs` → `a::b`.
fn module_of(path: &Path) -> Option<String> {
    let mut parts: Vec<String> = path
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop()?;
    let stem = file.strip_suffix(".rs")?;
    if parts.is_empty() && (stem == "lib" || stem == "main") {
        return Some("crate".into());
    }
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    if parts.is_empty() {
        return None;
    }
    Some(parts.join("::"))
}
