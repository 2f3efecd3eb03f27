//! Items appended at the end of a Rust file (a webhook's section, a test): the file is parsed,
//! each item of the new section is skipped when the file defines it already, the others are
//! added after the last byte of the file, and the result is parsed again.

use std::path::Path;

use syn::spanned::Spanned;
use syn::{ImplItem, Item};

use super::items::has_item;
use super::source::RustSource;
use crate::error::Error;

/// `text`, the Rust file `path`, with the items of `section` (Rust source: items with their doc
/// comments and attributes) appended. An item the file has already (equal as tokens, see
/// [`has_item`]) or whose name the file defines already ([`defines_same`]: a second definition
/// would not compile) is left out; when every item is new the section is appended as it is
/// written. Refused, with nothing changed: a file that does not parse (the user's; its error
/// names the file and the fix), a section that does not parse or that breaks the file (a bug
/// of kubeforge's).
pub fn append_items(path: &Path, text: &str, section: &str) -> Result<String, Error> {
    let source = RustSource::parse(path, text)?;
    let new: syn::File = syn::parse_str(section).map_err(|e| {
        Error::Internal(format!(
            "the code kubeforge appends to {} does not parse ({e}): {section}",
            path.display()
        ))
    })?;
    let have = &source.file().items;
    let missing: Vec<&Item> = new
        .items
        .iter()
        .filter(|item| !has_item(have, item) && !have.iter().any(|h| defines_same(h, item)))
        .collect();
    if missing.is_empty() {
        return Ok(text.to_owned());
    }
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if missing.len() == new.items.len() {
        out.push_str(section);
    } else {
        // Only some items are new: each is taken from the section as written (its doc
        // comments and attributes with it), after a blank line.
        for item in missing {
            let range = item.span().byte_range();
            out.push('\n');
            out.push_str(&section[range]);
            out.push('\n');
        }
    }
    RustSource::parse(path, &out).map_err(|e| {
        Error::Internal(format!(
            "appending to {} would break it: {e}\nthe code appended: {section}",
            path.display()
        ))
    })?;
    Ok(out)
}

/// Whether `a` and `b` define the same name in the same namespace of a module (functions,
/// types, constants, traits, or an `impl` of the same trait for the same type), so that the
/// file cannot hold both.
fn defines_same(a: &Item, b: &Item) -> bool {
    match (a, b) {
        (Item::Fn(a), Item::Fn(b)) => a.sig.ident == b.sig.ident,
        (Item::Const(a), Item::Const(b)) => a.ident == b.ident,
        (Item::Static(a), Item::Static(b)) => a.ident == b.ident,
        (Item::Struct(a), Item::Struct(b)) => a.ident == b.ident,
        (Item::Enum(a), Item::Enum(b)) => a.ident == b.ident,
        (Item::Union(a), Item::Union(b)) => a.ident == b.ident,
        (Item::Type(a), Item::Type(b)) => a.ident == b.ident,
        (Item::Trait(a), Item::Trait(b)) => a.ident == b.ident,
        (Item::Impl(a), Item::Impl(b)) => match (&a.trait_, &b.trait_) {
            (Some((_, a_trait, _)), Some((_, b_trait, _))) => {
                a_trait == b_trait && a.self_ty == b.self_ty && a.generics == b.generics
            }
            // Two inherent impls of a type may live side by side unless they define the
            // same associated item.
            (None, None) => {
                a.self_ty == b.self_ty
                    && b.items
                        .iter()
                        .filter_map(impl_item_name)
                        .any(|name| a.items.iter().filter_map(impl_item_name).any(|n| n == name))
            }
            _ => false,
        },
        _ => false,
    }
}

/// The name an item of an `impl` block defines.
fn impl_item_name(item: &ImplItem) -> Option<&syn::Ident> {
    match item {
        ImplItem::Fn(f) => Some(&f.sig.ident),
        ImplItem::Const(c) => Some(&c.ident),
        ImplItem::Type(t) => Some(&t.ident),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECTION: &str =
        "\n/// A test.\n#[test]\nfn one() {\n    assert!(true);\n}\n\n/// B.\npub struct B;\n";

    #[test]
    fn a_new_section_is_appended_as_written() {
        let text = "//! Tests.\n\nfn start() {} // mine\n";
        let out = append_items(Path::new("t.rs"), text, SECTION).unwrap();
        assert_eq!(out, format!("{text}{SECTION}"));
        // A file without its last line break gets one first.
        let out = append_items(Path::new("t.rs"), "fn start() {}", SECTION).unwrap();
        assert_eq!(out, format!("fn start() {{}}\n{SECTION}"));
    }

    #[test]
    fn items_the_file_has_are_not_appended_again() {
        let text = append_items(Path::new("t.rs"), "fn start() {}\n", SECTION).unwrap();
        assert_eq!(
            append_items(Path::new("t.rs"), &text, SECTION).unwrap(),
            text
        );
        // Reformatted, still the same tokens.
        let reformatted = "#[test]\n/// A test.\nfn one() { assert!( true ) ; }\n";
        let out = append_items(Path::new("t.rs"), reformatted, SECTION).unwrap();
        assert_eq!(out, format!("{reformatted}\n/// B.\npub struct B;\n"));
    }

    #[test]
    fn an_item_whose_name_the_file_defines_is_left_out() {
        // The user's own version of the test: a second `fn one` would not compile.
        let text = "#[test]\nfn one() {\n    assert_eq!(1, 1);\n}\n";
        let out = append_items(Path::new("t.rs"), text, SECTION).unwrap();
        assert_eq!(out, format!("{text}\n/// B.\npub struct B;\n"));
        let section = "\nimpl Defaulter<K> for KDefaulter {\n    fn default(&self) {}\n}\n";
        let mine = "impl Defaulter<K> for KDefaulter {\n    fn default(&self) { mine() }\n}\n";
        assert_eq!(
            append_items(Path::new("w.rs"), mine, section).unwrap(),
            mine
        );
        let other = "impl Validator<K> for KValidator {}\n";
        assert_eq!(
            append_items(Path::new("w.rs"), other, section).unwrap(),
            format!("{other}{section}")
        );
    }

    #[test]
    fn a_file_that_does_not_parse_is_refused() {
        let err = append_items(Path::new("tests/k.rs"), "fn broken( {\n", SECTION).unwrap_err();
        assert!(matches!(err, Error::RustSyntax { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("tests/k.rs does not parse as Rust")
        );
    }

    #[test]
    fn a_section_that_does_not_parse_is_a_bug() {
        let err = append_items(Path::new("t.rs"), "", "fn half( {").unwrap_err();
        assert!(matches!(err, Error::Internal(_)), "{err}");
    }
}
