//! Where a scaffold marker comment stands in a Rust file's syntax tree: among the items of the
//! file (or of an inline module), among the statements of a block, after the tail expression of
//! a block, or among the comma-separated expressions of a macro call (`vec![...]`).

use std::ops::Range;

use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Block, Expr, Item, Macro, Stmt};

use super::source::RustSource;

/// The syntax around a marker.
#[derive(Debug, Clone, Copy)]
pub enum Place<'a> {
    /// Among items: those before the marker are `items[..before]`.
    Items {
        /// The items of the file or inline module.
        items: &'a [Item],
        /// How many of them stand before the marker.
        before: usize,
    },
    /// Among the statements of a block.
    Statements {
        /// The block.
        block: &'a Block,
    },
    /// After the tail expression of a block (`builder.a().b()` then the marker, then `}`).
    Tail {
        /// The tail expression.
        expr: &'a Expr,
    },
    /// Among the arguments of a macro call.
    MacroArguments {
        /// The macro call.
        mac: &'a Macro,
    },
}

/// The byte offset of the marker comment `marker_line` (a line holding only it; a line inside
/// a string literal does not count); `None` when the file has none.
pub fn find(source: &RustSource<'_>, marker_line: &str) -> Option<usize> {
    let text = source.text();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if line.trim() == marker_line {
            let at = start + (line.len() - line.trim_start().len());
            if !source.in_literal(at) {
                return Some(at);
            }
        }
        start += line.len();
    }
    None
}

/// Why a marker stands where nothing can be inserted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misplaced {
    /// What the marker is inside of (`an item`, `a statement`).
    pub inside: &'static str,
}

/// The syntax around the byte `at` (a marker comment's start).
pub fn locate<'s>(source: &'s RustSource<'_>, at: usize) -> Result<Place<'s>, Misplaced> {
    let mut finder = Finder {
        source,
        at,
        found: None,
    };
    finder.visit_file(source.file());
    let inside = |range: Range<usize>| range.start < at && at < range.end;
    match finder.found {
        None | Some(Container::Items(_)) => {
            let items = match finder.found {
                Some(Container::Items(items)) => items,
                _ => &source.file().items,
            };
            if items.iter().any(|item| inside(source.range(item.span()))) {
                return Err(Misplaced { inside: "an item" });
            }
            let before = items
                .iter()
                .take_while(|item| source.range(item.span()).end <= at)
                .count();
            Ok(Place::Items { items, before })
        }
        Some(Container::Block(block)) => {
            if block.stmts.iter().any(|s| inside(source.range(s.span()))) {
                return Err(Misplaced {
                    inside: "a statement",
                });
            }
            let before = block
                .stmts
                .iter()
                .take_while(|s| source.range(s.span()).end <= at)
                .count();
            match block.stmts.last() {
                Some(Stmt::Expr(expr, None)) if before == block.stmts.len() => {
                    Ok(Place::Tail { expr })
                }
                _ => Ok(Place::Statements { block }),
            }
        }
        Some(Container::Macro(mac)) => Ok(Place::MacroArguments { mac }),
    }
}

#[derive(Debug, Clone, Copy)]
enum Container<'a> {
    Items(&'a [Item]),
    Block(&'a Block),
    Macro(&'a Macro),
}

/// Finds the innermost container whose inside (between its delimiters) holds the offset.
struct Finder<'s, 'a> {
    source: &'s RustSource<'a>,
    at: usize,
    found: Option<Container<'s>>,
}

impl Finder<'_, '_> {
    fn holds(&self, open: proc_macro2::Span, close: proc_macro2::Span) -> bool {
        let start = self.source.range(open).end;
        let end = self.source.range(close).start;
        start <= self.at && self.at < end
    }
}

impl<'s> Visit<'s> for Finder<'s, '_> {
    fn visit_block(&mut self, block: &'s Block) {
        if self.holds(
            block.brace_token.span.open(),
            block.brace_token.span.close(),
        ) {
            self.found = Some(Container::Block(block));
        }
        syn::visit::visit_block(self, block);
    }

    fn visit_item_mod(&mut self, module: &'s syn::ItemMod) {
        if let Some((brace, items)) = &module.content
            && self.holds(brace.span.open(), brace.span.close())
        {
            self.found = Some(Container::Items(items));
        }
        syn::visit::visit_item_mod(self, module);
    }

    fn visit_macro(&mut self, mac: &'s Macro) {
        let span = mac.delimiter.span();
        if self.holds(span.open(), span.close()) {
            self.found = Some(Container::Macro(mac));
        }
        syn::visit::visit_macro(self, mac);
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const MARK: &str = "// +kubeforge:scaffold:x";

    fn place(text: &str) -> String {
        let source = RustSource::parse(Path::new("t.rs"), text).unwrap();
        let at = find(&source, MARK).expect("marker");
        match locate(&source, at) {
            Ok(Place::Items { items, before }) => format!("items {before}/{}", items.len()),
            Ok(Place::Statements { block }) => format!("statements of {}", block.stmts.len()),
            Ok(Place::Tail { .. }) => "tail".into(),
            Ok(Place::MacroArguments { mac }) => {
                format!("macro {}", mac.path.get_ident().unwrap())
            }
            Err(misplaced) => format!("inside {}", misplaced.inside),
        }
    }

    #[test]
    fn finds_the_container_of_the_marker() {
        assert_eq!(
            place("mod a;\n// +kubeforge:scaffold:x\nfn b() {}\n"),
            "items 1/2"
        );
        assert_eq!(
            place("mod m {\n    use a;\n    // +kubeforge:scaffold:x\n}\n"),
            "items 1/1"
        );
        assert_eq!(
            place("fn main() {\n    let a = 1;\n    // +kubeforge:scaffold:x\n    run(a);\n}\n"),
            "statements of 2"
        );
        assert_eq!(
            place("fn f(b: B) -> B {\n    b\n        .a()\n    // +kubeforge:scaffold:x\n}\n"),
            "tail"
        );
        assert_eq!(
            place(
                "fn f() -> Vec<u8> {\n    vec![\n        1,\n        // +kubeforge:scaffold:x\n    ]\n}\n"
            ),
            "macro vec"
        );
    }

    #[test]
    fn a_marker_inside_an_item_or_a_string_is_not_a_place() {
        assert_eq!(
            place("struct S {\n    a: u8,\n    // +kubeforge:scaffold:x\n}\n"),
            "inside an item"
        );
        assert_eq!(
            place("fn main() {\n    run(\n        // +kubeforge:scaffold:x\n    );\n}\n"),
            "inside a statement"
        );
        let source = RustSource::parse(
            Path::new("t.rs"),
            "const S: &str = \"\n// +kubeforge:scaffold:x\n\";\n",
        )
        .unwrap();
        assert_eq!(find(&source, MARK), None);
    }
}
