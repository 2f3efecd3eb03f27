//! Parsing: module scopes (the file's and its inline `mod x { .. }`), what each scope defines
//! and imports, and every path that may name another module.

use std::collections::{BTreeMap, BTreeSet};

use super::lex::{Tok, Token};

/// What one module scope holds, for resolving paths through it.
#[derive(Debug, Clone, Default)]
pub(super) struct Scope {
    /// Items defined here (functions, types, consts, modules...).
    pub(super) defines: BTreeSet<String>,
    /// Names brought in by `use`: name → absolute path, or a path relative to the scope
    /// (first segment `crate`, `super`, `self`, a child module or an external crate).
    pub(super) imports: BTreeMap<String, Vec<String>>,
    /// `use path::*` targets.
    pub(super) globs: Vec<Vec<String>>,
    /// Child modules declared here.
    pub(super) children: BTreeSet<String>,
}

#[derive(Debug, Clone)]
pub(super) enum RefKind {
    /// `mod child;` declared in the scope (child's full module path).
    ModDecl { child: String, test: bool },
    /// A path written in `scope` (a `use` or code).
    Path {
        scope: String,
        segments: Vec<String>,
    },
}

#[derive(Debug, Clone)]
pub(super) struct Reference {
    pub(super) kind: RefKind,
    pub(super) line: usize,
    pub(super) text: String,
}

#[derive(Debug, Default)]
pub(super) struct Parsed {
    /// Full module path → scope (the file's own and its inline modules).
    pub(super) scopes: BTreeMap<String, Scope>,
    pub(super) references: Vec<Reference>,
}

pub(super) fn join(module: &str, name: &str) -> String {
    if module == "crate" {
        name.to_string()
    } else {
        format!("{module}::{name}")
    }
}

pub(super) fn parent(module: &str) -> Option<String> {
    if module == "crate" {
        return None;
    }
    Some(match module.rfind("::") {
        Some(k) => module[..k].to_string(),
        None => "crate".to_string(),
    })
}

const ITEM_KEYWORDS: &[&str] = &[
    "fn", "struct", "enum", "trait", "type", "const", "static", "union",
];

pub(super) fn parse(module: &str, tokens: &[Token]) -> Parsed {
    let mut parsed = Parsed::default();
    parsed.scopes.insert(module.to_string(), Scope::default());
    // (module path, brace depth of its body)
    let mut stack: Vec<(String, usize)> = vec![(module.to_string(), 0)];
    let mut depth = 0usize;
    let mut test_attr = false;
    let ident = |k: usize| match tokens.get(k).map(|t| &t.tok) {
        Some(Tok::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    let is = |k: usize, t: &Tok| tokens.get(k).map(|x| &x.tok) == Some(t);
    let mut i = 0;
    while i < tokens.len() {
        let (scope, scope_depth) = stack.last().cloned().expect("root scope");
        let line = tokens[i].line;
        match &tokens[i].tok {
            Tok::Punct('#') => {
                // An attribute: note `cfg(test)`, skip the rest.
                let mut k = i + 1;
                if is(k, &Tok::Punct('!')) {
                    k += 1;
                }
                if is(k, &Tok::Punct('[')) {
                    let end = matching(tokens, k, '[', ']');
                    let words: Vec<&str> = (k + 1..end).filter_map(ident).collect();
                    if words == ["cfg", "test"] {
                        test_attr = true;
                    }
                    i = end + 1;
                    continue;
                }
                i += 1;
                continue;
            }
            Tok::Ident(w) if w == "pub" => {
                i += 1;
                if is(i, &Tok::Punct('(')) {
                    i = matching(tokens, i, '(', ')') + 1;
                }
                continue;
            }
            Tok::Ident(w) if w == "mod" => {
                if let Some(name) = ident(i + 1) {
                    let child = join(&scope, name);
                    let scope_entry = parsed.scopes.get_mut(&scope).expect("scope");
                    scope_entry.children.insert(name.to_string());
                    scope_entry.defines.insert(name.to_string());
                    if is(i + 2, &Tok::Punct(';')) {
                        parsed.references.push(Reference {
                            kind: RefKind::ModDecl {
                                child,
                                test: test_attr,
                            },
                            line,
                            text: format!("mod {name}"),
                        });
                        i += 3;
                    } else if is(i + 2, &Tok::Punct('{')) {
                        depth += 1;
                        parsed.scopes.insert(child.clone(), Scope::default());
                        stack.push((child, depth));
                        i += 3;
                    } else {
                        i += 2;
                    }
                    test_attr = false;
                    continue;
                }
            }
            Tok::Ident(w) if w == "use" => {
                let end = (i..tokens.len())
                    .find(|&k| is(k, &Tok::Punct(';')))
                    .unwrap_or(tokens.len());
                let mut trees = Vec::new();
                use_tree(&tokens[i + 1..end], Vec::new(), &mut trees);
                let scope_entry = parsed.scopes.get_mut(&scope).expect("scope");
                for tree in &trees {
                    match tree {
                        UseItem::Named { path, alias } => {
                            if alias != "_" {
                                scope_entry.imports.insert(alias.clone(), path.clone());
                            }
                        }
                        UseItem::Glob(path) => scope_entry.globs.push(path.clone()),
                    }
                }
                for tree in trees {
                    let (segments, text) = match tree {
                        UseItem::Named { path, .. } => {
                            let text = path.join("::");
                            (path, text)
                        }
                        UseItem::Glob(path) => {
                            let text = format!("{}::*", path.join("::"));
                            (path, text)
                        }
                    };
                    parsed.references.push(Reference {
                        kind: RefKind::Path {
                            scope: scope.clone(),
                            segments,
                        },
                        line,
                        text: format!("use {text}"),
                    });
                }
                test_attr = false;
                i = end + 1;
                continue;
            }
            Tok::Ident(w) if ITEM_KEYWORDS.contains(&w.as_str()) && depth == scope_depth => {
                if let Some(name) = ident(i + 1) {
                    parsed
                        .scopes
                        .get_mut(&scope)
                        .expect("scope")
                        .defines
                        .insert(name.to_string());
                }
            }
            Tok::Ident(w)
                if w == "macro_rules" && is(i + 1, &Tok::Punct('!')) && depth == scope_depth =>
            {
                if let Some(name) = ident(i + 2) {
                    parsed
                        .scopes
                        .get_mut(&scope)
                        .expect("scope")
                        .defines
                        .insert(name.to_string());
                }
            }
            Tok::Ident(first)
                if is(i + 1, &Tok::PathSep) && !(i > 0 && is(i - 1, &Tok::PathSep)) =>
            {
                // A path in code: `first::second::...` (stops at `::<` and `::{`).
                let mut segments = vec![first.clone()];
                let mut k = i + 1;
                while is(k, &Tok::PathSep) {
                    match ident(k + 1) {
                        Some(s) => {
                            segments.push(s.to_string());
                            k += 2;
                        }
                        None => break,
                    }
                }
                let text = segments.join("::");
                parsed.references.push(Reference {
                    kind: RefKind::Path {
                        scope: scope.clone(),
                        segments,
                    },
                    line,
                    text,
                });
                test_attr = false;
                i = k;
                continue;
            }
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if depth == scope_depth && stack.len() > 1 {
                    stack.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        test_attr = false;
        i += 1;
    }
    parsed
}

/// Index of the token closing the bracket opened at `open`.
fn matching(tokens: &[Token], open: usize, left: char, right: char) -> usize {
    let mut depth = 0;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        if t.tok == Tok::Punct(left) {
            depth += 1;
        } else if t.tok == Tok::Punct(right) {
            depth -= 1;
            if depth == 0 {
                return k;
            }
        }
    }
    tokens.len().saturating_sub(1)
}

#[derive(Debug, Clone, PartialEq)]
enum UseItem {
    Named { path: Vec<String>, alias: String },
    Glob(Vec<String>),
}

/// Expands a use tree (`a::{b, c::d as e, f::*, self}`) into full paths.
fn use_tree(tokens: &[Token], prefix: Vec<String>, out: &mut Vec<UseItem>) {
    let mut path = prefix;
    let mut k = 0;
    if tokens.first().map(|t| &t.tok) == Some(&Tok::PathSep) {
        k = 1; // `use ::std::..`: an external crate
        path.push(String::new());
    }
    while k < tokens.len() {
        match &tokens[k].tok {
            Tok::Ident(s) if s == "as" => {
                if let Some(Tok::Ident(alias)) = tokens.get(k + 1).map(|t| &t.tok) {
                    out.push(UseItem::Named {
                        path: path.clone(),
                        alias: alias.clone(),
                    });
                }
                return;
            }
            Tok::Ident(s) if s == "self" && !path.is_empty() => {
                // `a::{self}` names `a`
                let alias = path.last().cloned().unwrap_or_default();
                if tokens.get(k + 1).map(|t| &t.tok) == Some(&Tok::Ident("as".into())) {
                    k += 1;
                    continue;
                }
                out.push(UseItem::Named {
                    path: path.clone(),
                    alias,
                });
                return;
            }
            Tok::Ident(s) => {
                path.push(s.clone());
                k += 1;
            }
            Tok::PathSep => k += 1,
            Tok::Punct('*') => {
                out.push(UseItem::Glob(path.clone()));
                return;
            }
            Tok::Punct('{') => {
                let end = matching(tokens, k, '{', '}');
                let inner = &tokens[k + 1..end];
                // split on top-level commas
                let mut start = 0;
                let mut level = 0;
                for (j, t) in inner.iter().enumerate() {
                    match t.tok {
                        Tok::Punct('{') => level += 1,
                        Tok::Punct('}') => level -= 1,
                        Tok::Punct(',') if level == 0 => {
                            if j > start {
                                use_tree(&inner[start..j], path.clone(), out);
                            }
                            start = j + 1;
                        }
                        _ => {}
                    }
                }
                if inner.len() > start {
                    use_tree(&inner[start..], path.clone(), out);
                }
                return;
            }
            _ => k += 1,
        }
    }
    if let Some(alias) = path.last().cloned() {
        out.push(UseItem::Named { path, alias });
    }
}
