//! Items inserted among items: whether the file has one already (a `mod` of that name, a `use`
//! that imports the same names, an equal item), and where a module declaration goes so that
//! the run of declarations stays in rustfmt's order.

use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Item, ItemMod, UseTree};

use super::source::RustSource;

/// Whether `items` has `new` already: a module declared under the same name, a `use` whose
/// every name is imported already from the same path (or a glob of it), or an item equal to it
/// as tokens.
pub fn has_item(items: &[Item], new: &Item) -> bool {
    match new {
        Item::Mod(module) => items.iter().any(|item| match item {
            Item::Mod(have) => same_name(have, module),
            _ => false,
        }),
        Item::Use(new_use) => {
            let mut have = Vec::new();
            for item in items {
                if let Item::Use(item_use) = item {
                    leaves(&item_use.tree, &mut Vec::new(), &mut have);
                }
            }
            let mut wanted = Vec::new();
            leaves(&new_use.tree, &mut Vec::new(), &mut wanted);
            wanted.iter().all(|leaf| {
                have.iter().any(|h| {
                    h == leaf
                        || (h.name == Name::Glob
                            && matches!(leaf.name, Name::Bound(..))
                            && h.path == leaf.path)
                })
            })
        }
        _ => items.contains(new),
    }
}

fn same_name(a: &ItemMod, b: &ItemMod) -> bool {
    a.ident.unraw() == b.ident.unraw()
}

/// What a `use` tree brings into scope at the end of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Name {
    /// The item at `path::name`, bound as `alias` (its own name when not renamed).
    Bound(String, String),
    /// Everything of `path`.
    Glob,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Leaf {
    /// The module path, without a leading `::` (`crate`, `self` and names as written).
    path: Vec<String>,
    name: Name,
}

fn leaves(tree: &UseTree, path: &mut Vec<String>, out: &mut Vec<Leaf>) {
    let leaf = |path: &[String], name: Name| Leaf {
        path: path.to_vec(),
        name,
    };
    match tree {
        UseTree::Path(p) => {
            path.push(p.ident.unraw().to_string());
            leaves(&p.tree, path, out);
            path.pop();
        }
        UseTree::Name(n) if n.ident == "self" => {
            if let Some((last, parent)) = path.split_last() {
                out.push(leaf(parent, Name::Bound(last.clone(), last.clone())));
            }
        }
        UseTree::Name(n) => {
            let name = n.ident.unraw().to_string();
            out.push(leaf(path, Name::Bound(name.clone(), name)));
        }
        UseTree::Rename(r) => {
            let name = r.ident.unraw().to_string();
            let alias = r.rename.unraw().to_string();
            match (name.as_str(), path.split_last()) {
                ("self", Some((last, parent))) => {
                    out.push(leaf(parent, Name::Bound(last.clone(), alias)));
                }
                _ => out.push(leaf(path, Name::Bound(name, alias))),
            }
        }
        UseTree::Glob(_) => out.push(leaf(path, Name::Glob)),
        UseTree::Group(group) => {
            for tree in &group.items {
                leaves(tree, path, out);
            }
        }
    }
}

/// The module declarations (`mod x;`, with their attributes and visibility) among the file's
/// top-level items: each module's name (without `r#`) and the declaration's text as written.
pub fn module_declarations(source: &RustSource<'_>) -> Vec<(String, String)> {
    source
        .file()
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Mod(module) if module.content.is_none() => {
                Some((module_key(module), source.slice(item.span()).to_owned()))
            }
            _ => None,
        })
        .collect()
}

/// A module declaration (`mod x;`, with any visibility and attributes) that rustfmt sorts
/// among its neighbours: not `#[macro_use]`.
pub fn sortable_declaration(item: &Item) -> Option<&ItemMod> {
    match item {
        Item::Mod(module)
            if module.content.is_none()
                && !module.attrs.iter().any(|a| a.path().is_ident("macro_use")) =>
        {
            Some(module)
        }
        _ => None,
    }
}

/// What rustfmt sorts module declarations by: the name, without the `r#` of a raw identifier,
/// compared byte by byte (`v10` before `v2`, `xB` before `x_a`).
pub fn module_key(module: &ItemMod) -> String {
    module.ident.unraw().to_string()
}

/// Where the declaration `new` goes when it is inserted just before the byte `marker`, after
/// `items` (those that stand before the marker): before the first declaration of the run just
/// above the marker (declarations with nothing but line breaks between them, as rustfmt groups
/// them) from which on every name sorts after `new`'s; `None`: just before the marker.
pub fn sorted_position(
    source: &RustSource<'_>,
    items: &[Item],
    marker: usize,
    new: &ItemMod,
) -> Option<usize> {
    let text = source.text();
    let key = module_key(new);
    let mut at = None;
    let mut next_start = source.line_start(marker);
    for item in items.iter().rev() {
        let Some(module) = sortable_declaration(item) else {
            break;
        };
        let range = source.range(item.span());
        let gap = &text[range.end..next_start];
        if !gap.trim().is_empty() || gap.matches('\n').count() > 1 {
            break;
        }
        if module_key(module) <= key {
            break;
        }
        let start = source.line_start(range.start);
        at = Some(start);
        next_start = start;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(text: &str) -> Vec<Item> {
        syn::parse_file(text).unwrap().items
    }

    fn item(text: &str) -> Item {
        syn::parse_str(text).unwrap()
    }

    #[test]
    fn a_module_is_known_by_its_name() {
        let have = items("#[cfg(test)]\npub(crate)  mod  r#type ;\nmod b { }\n");
        assert!(has_item(&have, &item("pub mod r#type;")));
        assert!(has_item(&have, &item("mod b;")));
        assert!(!has_item(&have, &item("pub mod c;")));
    }

    #[test]
    fn a_use_is_known_by_what_it_imports() {
        let have = items(
            "use ::demo::controllers;\nuse a::{b::{self, C as D}, e::*};\npub use self::x::*;\n",
        );
        assert!(has_item(&have, &item("use demo::controllers;")));
        assert!(has_item(&have, &item("use a::b;")));
        assert!(has_item(&have, &item("use a::{b::C as D, e::F};")));
        assert!(has_item(&have, &item("pub use self::x::*;")));
        assert!(!has_item(&have, &item("use a::b::C;")));
        assert!(!has_item(&have, &item("pub use self::y::*;")));
        assert!(!has_item(&have, &item("use other::controllers;")));
    }

    #[test]
    fn other_items_are_compared_as_tokens() {
        let have = items("fn a ( ) -> u8 { 1 }\n");
        assert!(has_item(&have, &item("fn a() -> u8 {\n    1\n}")));
        assert!(!has_item(&have, &item("fn a() -> u8 { 2 }")));
    }
}
