//! Names added to a file's `use` declarations, spliced into the declaration's own text.

use syn::spanned::Spanned;
use syn::{Item, UseTree};

use super::source::{RustSource, Splice};

/// Makes the file import each of `names` from the module `path` (`["kubeforge", "webhook"]`).
/// Names it imports already are left alone; the others join the first `use` of that module,
/// wherever that module sits in the `use` tree, each before the first item that sorts after it
/// (so a sorted list stays sorted, as rustfmt sorts plain names), leaving the items, their
/// comments and their layout as they are. A file that has no `use` of the module gets `use <path>::{<names>};` after its last
/// top-level `use` (or before its first item).
pub fn merge_use(source: &RustSource<'_>, path: &[&str], names: &[String]) -> String {
    let mut found: Vec<&UseTree> = Vec::new();
    let mut last_use = None;
    for item in &source.file().items {
        if let Item::Use(item_use) = item {
            last_use = Some(item);
            reach(&item_use.tree, path, &mut found);
        }
    }
    let imported = |name: &str| {
        found.iter().any(|tree| match tree {
            UseTree::Glob(_) => true,
            UseTree::Name(n) => n.ident == name,
            UseTree::Group(group) => group.items.iter().any(|t| match t {
                UseTree::Glob(_) => true,
                UseTree::Name(n) => n.ident == name,
                _ => false,
            }),
            _ => false,
        })
    };
    let mut missing: Vec<&String> = names.iter().filter(|n| !imported(n)).collect();
    missing.sort();
    if missing.is_empty() {
        return source.text().to_owned();
    }
    let splices = match found.first() {
        Some(UseTree::Group(group)) => {
            // Each missing name goes in before the first item that sorts after it (after the
            // last item otherwise): the items, their comments and layout stay as they are.
            let mut splices: Vec<Splice> = Vec::new();
            for name in missing {
                let before = group
                    .items
                    .iter()
                    .find(|item| source.slice(item.span()) > name.as_str());
                let splice = match (before, group.items.last()) {
                    (Some(item), _) => {
                        Splice::insert(source.range(item.span()).start, format!("{name}, "))
                    }
                    (None, Some(last)) => {
                        Splice::insert(source.range(last.span()).end, format!(", {name}"))
                    }
                    (None, None) => Splice::insert(
                        source.range(group.brace_token.span.open()).end,
                        name.clone(),
                    ),
                };
                match splices.iter_mut().find(|s| s.range == splice.range) {
                    Some(same_place) => merge_at(same_place, &splice.text),
                    None => splices.push(splice),
                }
            }
            splices
        }
        Some(tree) => {
            let mut entries = vec![source.slice(tree.span()).to_owned()];
            entries.extend(missing.into_iter().cloned());
            entries.sort();
            vec![Splice {
                range: source.range(tree.span()),
                text: format!("{{{}}}", entries.join(", ")),
            }]
        }
        None => {
            let list: Vec<&str> = missing.iter().map(|n| n.as_str()).collect();
            let line = match list.as_slice() {
                [one] => format!("use {}::{one};\n", path.join("::")),
                _ => format!("use {}::{{{}}};\n", path.join("::"), list.join(", ")),
            };
            let at = match (last_use, source.file().items.first()) {
                (Some(item), _) => source.next_line(source.range(item.span()).end),
                (None, Some(first)) => source.line_start(source.range(first.span()).start),
                (None, None) => source.text().len(),
            };
            vec![Splice::insert(at, line)]
        }
    };
    source.splice(splices)
}

/// Two names inserted at one place: `A, ` then `B, ` is `A, B, `; `, A` then `, B` is
/// `, A, B`.
fn merge_at(splice: &mut Splice, more: &str) {
    if more.starts_with(", ") || splice.text.ends_with(", ") {
        splice.text.push_str(more);
    } else {
        splice.text = format!("{}, {more}", splice.text);
    }
}

/// Collects the subtrees of `tree` that stand for the module `path` itself (what follows
/// `path::` in the declaration).
fn reach<'a>(tree: &'a UseTree, path: &[&str], found: &mut Vec<&'a UseTree>) {
    match tree {
        UseTree::Path(p) => {
            if let Some((first, rest)) = path.split_first()
                && p.ident == first
            {
                if rest.is_empty() {
                    found.push(&p.tree);
                } else {
                    reach(&p.tree, rest, found);
                }
            }
        }
        UseTree::Group(group) => {
            for item in &group.items {
                reach(item, path, found);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn merge(text: &str, names: &[&str]) -> String {
        let source = RustSource::parse(Path::new("t.rs"), text).unwrap();
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        merge_use(&source, &["kubeforge", "webhook"], &names)
    }

    #[test]
    fn joins_the_existing_list_sorted_and_once() {
        let text = "//! Doc\n\nuse kubeforge::webhook::{Defaulter, Denied}; // mine\n\nuse crate::api::v1::M;\n";
        let names = ["Denied", "Validator", "Warnings"];
        let merged = merge(text, &names);
        assert_eq!(
            merged,
            "//! Doc\n\nuse kubeforge::webhook::{Defaulter, Denied, Validator, Warnings}; // mine\n\nuse crate::api::v1::M;\n"
        );
        assert_eq!(merge(&merged, &names), merged);
    }

    #[test]
    fn keeps_the_users_layout_and_comments() {
        let text = "use kubeforge::webhook::{\n    Denied, // why\n    Warnings,\n};\n";
        assert_eq!(
            merge(text, &["Defaulter", "Validator", "Zed"]),
            "use kubeforge::webhook::{\n    Defaulter, Denied, // why\n    Validator, Warnings, Zed,\n};\n"
        );
        assert_eq!(
            merge("use kubeforge::webhook::{};\n", &["A", "B"]),
            "use kubeforge::webhook::{A, B};\n"
        );
    }

    #[test]
    fn finds_the_module_anywhere_in_the_use_tree() {
        assert_eq!(
            merge(
                "use kubeforge::{\n    prelude::*,\n    webhook::Defaulter, // keep\n};\n",
                &["Denied"]
            ),
            "use kubeforge::{\n    prelude::*,\n    webhook::{Defaulter, Denied}, // keep\n};\n"
        );
        let glob = "use kubeforge::webhook::*;\n";
        assert_eq!(merge(glob, &["Denied"]), glob);
    }

    #[test]
    fn adds_a_declaration_when_there_is_none() {
        assert_eq!(
            merge("//! Doc\nuse a::b;\nfn x() {}\n", &["Denied", "Validator"]),
            "//! Doc\nuse a::b;\nuse kubeforge::webhook::{Denied, Validator};\nfn x() {}\n"
        );
        assert_eq!(
            merge("//! Doc\n\n/// X.\nfn x() {}\n", &["Denied"]),
            "//! Doc\n\nuse kubeforge::webhook::Denied;\n/// X.\nfn x() {}\n"
        );
    }
}
