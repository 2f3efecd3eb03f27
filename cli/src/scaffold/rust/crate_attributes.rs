//! Inner attributes of a crate root (`#![...]` at the top of `src/lib.rs` or a test file).

use syn::{AttrStyle, Expr, ExprLit, Lit, Meta};

use super::source::{RustSource, Splice};

/// The text of `source` with `#![recursion_limit = "<limit>"]` at least `limit`: an existing
/// lower limit is raised in place, a missing one goes after the file's inner attributes and
/// doc comments (at the top when it has none). `None` when the file already allows as much.
pub fn raise_recursion_limit(source: &RustSource<'_>, limit: usize) -> Option<String> {
    let inner: Vec<_> = source
        .file()
        .attrs
        .iter()
        .filter(|a| matches!(a.style, AttrStyle::Inner(_)))
        .collect();
    let existing = inner.iter().find_map(|attr| match &attr.meta {
        Meta::NameValue(nv) if nv.path.is_ident("recursion_limit") => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(value),
                ..
            }) => Some(value),
            _ => None,
        },
        _ => None,
    });
    let replacement = format!("\"{limit}\"");
    if let Some(value) = existing {
        if value.value().parse::<usize>().is_ok_and(|n| n >= limit) {
            return None;
        }
        let range = source.range(value.span());
        return Some(source.splice(vec![Splice {
            range,
            text: replacement,
        }]));
    }
    let line = format!("#![recursion_limit = {replacement}]\n");
    let (at, text) = match inner.last() {
        Some(last) => {
            let end = source.range(syn::spanned::Spanned::span(*last)).end;
            (source.next_line(end), format!("\n{line}"))
        }
        None => (0, format!("{line}\n")),
    };
    Some(source.splice(vec![Splice {
        range: at..at,
        text,
    }]))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn raise(text: &str, limit: usize) -> Option<String> {
        let source = RustSource::parse(Path::new("src/lib.rs"), text).unwrap();
        raise_recursion_limit(&source, limit)
    }

    #[test]
    fn goes_after_the_crate_docs_and_parses() {
        let lib = "//! The operator.\n//! Second line.\n\npub mod api;\n";
        let raised = raise(lib, 512).unwrap();
        assert_eq!(
            raised,
            "//! The operator.\n//! Second line.\n\n#![recursion_limit = \"512\"]\n\npub mod api;\n"
        );
        syn::parse_file(&raised).unwrap();
        assert_eq!(raise(&raised, 512), None, "idempotent");
        assert_eq!(raise(&raised, 256), None, "never lowered");
    }

    #[test]
    fn a_lower_limit_is_raised_in_place_and_a_bare_file_gets_one_at_the_top() {
        let lib = "#![recursion_limit = \"256\"]\n#![allow(dead_code)]\nfn f() {}\n";
        assert_eq!(
            raise(lib, 512).unwrap(),
            "#![recursion_limit = \"512\"]\n#![allow(dead_code)]\nfn f() {}\n"
        );
        assert_eq!(
            raise("fn f() {}\n", 512).unwrap(),
            "#![recursion_limit = \"512\"]\n\nfn f() {}\n"
        );
    }
}
