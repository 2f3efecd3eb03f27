//! A Rust file parsed with syn, with the byte offsets of its tokens, and edits spliced into its
//! text: the parser locates, the text is never re-printed, so the user's comments and layout
//! outside an edit stay byte for byte.

use std::ops::Range;
use std::path::{Path, PathBuf};

use proc_macro2::Span;

use crate::error::Error;

/// A parsed Rust file and its text.
pub struct RustSource<'t> {
    path: PathBuf,
    text: &'t str,
    /// Bytes before what syn parsed (a byte-order mark, a `#!` line).
    offset: usize,
    file: syn::File,
}

impl std::fmt::Debug for RustSource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RustSource")
            .field("path", &self.path)
            .field("items", &self.file.items.len())
            .finish()
    }
}

impl<'t> RustSource<'t> {
    /// Parses `text`, the file `path` (relative to the project root, for messages). A file
    /// that does not parse is refused with the position and the parser's message.
    pub fn parse(path: &Path, text: &'t str) -> Result<Self, Error> {
        let mut offset = 0;
        if text.starts_with('\u{feff}') {
            offset = '\u{feff}'.len_utf8();
        }
        let rest = &text[offset..];
        if rest.starts_with("#!") && !rest[2..].trim_start().starts_with('[') {
            offset += rest.find('\n').unwrap_or(rest.len());
        }
        let file: syn::File = syn::parse_str(&text[offset..]).map_err(|e| {
            let start = e.span().start();
            Error::RustSyntax {
                path: path.to_owned(),
                position: (start.line > 0)
                    .then(|| format!("line {}, column {}", start.line, start.column + 1)),
                source: e,
            }
        })?;
        Ok(Self {
            path: path.to_owned(),
            text,
            offset,
            file,
        })
    }

    /// The file, relative to the project root.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The text as it was parsed.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The syntax tree.
    pub fn file(&self) -> &syn::File {
        &self.file
    }

    /// The byte range of `span` in [`RustSource::text`].
    pub fn range(&self, span: Span) -> Range<usize> {
        let range = span.byte_range();
        range.start + self.offset..range.end + self.offset
    }

    /// The text of `span`.
    pub fn slice(&self, span: Span) -> &'t str {
        &self.text[self.range(span)]
    }

    /// The offset where the line holding `at` starts.
    pub fn line_start(&self, at: usize) -> usize {
        self.text[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    /// The offset just after the end of the line holding `at` (after its `\n`, or the end of
    /// the text).
    pub fn next_line(&self, at: usize) -> usize {
        self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |i| at + i + 1)
    }

    /// The spaces and tabs that indent the line holding `at`.
    pub fn indent(&self, at: usize) -> &'t str {
        let start = self.line_start(at);
        let line = &self.text[start..];
        &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
    }

    /// Whether the byte `at` of the text lies inside a literal token (a string that spans
    /// lines, a doc comment): text there is not a comment of the file.
    pub fn in_literal(&self, at: usize) -> bool {
        let Ok(tokens) = self.text[self.offset..].parse::<proc_macro2::TokenStream>() else {
            return false;
        };
        let mut stack = vec![tokens];
        while let Some(stream) = stack.pop() {
            for token in stream {
                match token {
                    proc_macro2::TokenTree::Group(group) => stack.push(group.stream()),
                    proc_macro2::TokenTree::Literal(literal)
                        if self.range(literal.span()).contains(&at) =>
                    {
                        return true;
                    }
                    _ => {}
                }
            }
        }
        false
    }

    /// The text with `edits` spliced in (each replaces its range; ranges must not overlap).
    pub fn splice(&self, mut edits: Vec<Splice>) -> String {
        edits.sort_by_key(|e| (e.range.start, e.range.end));
        let mut out = String::with_capacity(self.text.len() + 64);
        let mut at = 0;
        for edit in edits {
            out.push_str(&self.text[at..edit.range.start]);
            out.push_str(&edit.text);
            at = edit.range.end;
        }
        out.push_str(&self.text[at..]);
        out
    }
}

/// A replacement of a byte range of the text (an insertion when the range is empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    /// The bytes replaced.
    pub range: Range<usize>,
    /// What replaces them.
    pub text: String,
}

impl Splice {
    /// Inserts `text` at `at`.
    pub fn insert(at: usize, text: impl Into<String>) -> Self {
        Self {
            range: at..at,
            text: text.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use syn::spanned::Spanned;

    use super::*;

    #[test]
    fn spans_give_byte_offsets_in_the_text() {
        let text = "\u{feff}// é comment\nfn a() {}\n\n/// doc\npub struct B;\n";
        let source = RustSource::parse(Path::new("x.rs"), text).unwrap();
        let items = &source.file().items;
        assert_eq!(source.slice(items[0].span()), "fn a() {}");
        assert_eq!(source.slice(items[1].span()), "/// doc\npub struct B;");
        let at = source.range(items[1].span()).start;
        assert_eq!(source.line_start(at + 9), at + 8);
        assert_eq!(&text[source.next_line(at)..], "pub struct B;\n");
    }

    #[test]
    fn a_shebang_line_is_kept_out_of_the_parse() {
        let text = "#!/usr/bin/env run-cargo-script\nfn a() {}\n";
        let source = RustSource::parse(Path::new("x.rs"), text).unwrap();
        assert_eq!(source.slice(source.file().items[0].span()), "fn a() {}");
    }

    #[test]
    fn splices_keep_everything_else() {
        let text = "a // keep\nb\n";
        let source = RustSource::parse(Path::new("x.rs"), "").unwrap();
        let source = RustSource { text, ..source };
        assert_eq!(
            source.splice(vec![
                Splice::insert(10, "c\n"),
                Splice {
                    range: 0..1,
                    text: "A".into()
                }
            ]),
            "A // keep\nc\nb\n"
        );
        assert_eq!(source.indent(11), "");
    }

    #[test]
    fn a_file_that_does_not_parse_is_refused_with_its_position() {
        let err = RustSource::parse(Path::new("src/x.rs"), "fn a() {}\nstruct {\n").unwrap_err();
        let message = err.to_string();
        assert!(message.contains("src/x.rs"), "{message}");
        assert!(message.contains("line 2, column 8"), "{message}");
        assert!(message.contains("nothing was written"), "{message}");
    }
}
