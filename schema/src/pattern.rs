//! Invalid `pattern`s, refused with Go's `regexp` messages (`error parsing regexp: missing
//! closing ): `(unclosed``), as kube-apiserver words them. Rust's regex parser finds the
//! error; the code and the text it quotes are Go's.

use regex_syntax::ast::{self, Ast};
use regex_syntax::hir;

/// Go's error for `pattern`, or `None` when Go compiles it.
pub(crate) fn go_regexp_error(pattern: &str) -> Option<String> {
    let text = |span: &ast::Span| pattern[span.start.offset..span.end.offset].to_string();
    let (code, quoted) = match ast::parse::Parser::new().parse(pattern) {
        Err(e) => {
            let span = e.span();
            let from_start = pattern[span.start.offset..].to_string();
            // The group a flag or name error is in: from its `(?` on.
            let group = pattern[..span.start.offset]
                .rfind("(?")
                .map_or_else(|| from_start.clone(), |i| pattern[i..].to_string());
            use ast::ErrorKind as K;
            match e.kind() {
                K::GroupUnclosed => ("missing closing )", pattern.to_string()),
                K::GroupUnopened => ("unexpected )", pattern.to_string()),
                K::ClassUnclosed => ("missing closing ]", from_start),
                K::RepetitionMissing => (
                    "missing argument to repetition operator",
                    operator(pattern, span),
                ),
                K::EscapeUnrecognized | K::UnsupportedBackreference => {
                    ("invalid escape sequence", text(span))
                }
                K::EscapeUnexpectedEof => {
                    ("trailing backslash at end of expression", String::new())
                }
                K::ClassRangeInvalid => ("invalid character class range", text(span)),
                K::RepetitionCountInvalid
                | K::RepetitionCountUnclosed
                | K::RepetitionCountDecimalEmpty => ("invalid repeat count", text(span)),
                K::UnsupportedLookAround => ("invalid or unsupported Perl syntax", text(span)),
                K::FlagUnexpectedEof
                | K::FlagUnrecognized
                | K::FlagDanglingNegation
                | K::FlagDuplicate { .. }
                | K::FlagRepeatedNegation { .. }
                | K::GroupNameEmpty
                | K::GroupNameInvalid
                | K::GroupNameUnexpectedEof => ("invalid or unsupported Perl syntax", group),
                K::NestLimitExceeded(_) => ("expression nests too deeply", String::new()),
                _ => return Some(fallback(pattern)),
            }
        }
        Ok(parsed) => {
            if let Some(nested) = nested_repetition(&parsed, pattern) {
                ("invalid nested repetition operator", nested)
            } else {
                match hir::translate::Translator::new().translate(pattern, &parsed) {
                    Ok(_) => return regex::Regex::new(pattern).err().map(|_| fallback(pattern)),
                    Err(e) => match e.kind() {
                        hir::ErrorKind::UnicodePropertyNotFound
                        | hir::ErrorKind::UnicodePropertyValueNotFound => {
                            let span = e.span();
                            (
                                "invalid character class range",
                                pattern[span.start.offset..span.end.offset].to_string(),
                            )
                        }
                        _ => return Some(fallback(pattern)),
                    },
                }
            }
        }
    };
    Some(format!("error parsing regexp: {code}: `{quoted}`"))
}

/// The repetition operator at `span` (the parser's span may be empty): `*`, `+`, `?` or a
/// `{n,m}` count.
fn operator(pattern: &str, span: &ast::Span) -> String {
    let from = &pattern[span.start.offset..];
    if span.end.offset > span.start.offset {
        return pattern[span.start.offset..span.end.offset].to_string();
    }
    match from.chars().next() {
        Some('{') => from.find('}').map_or(from, |end| &from[..=end]).to_string(),
        Some(c) => c.to_string(),
        None => String::new(),
    }
}

/// The last line of Rust's message, for errors Go words in ways not mapped here.
fn fallback(pattern: &str) -> String {
    regex::Regex::new(pattern)
        .err()
        .map(|e| {
            e.to_string()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_default()
}

/// Go refuses a repetition operator right after another (`a**`, `a+?+`): the operators'
/// text.
fn nested_repetition(node: &Ast, pattern: &str) -> Option<String> {
    match node {
        Ast::Repetition(r) => {
            if let Ast::Repetition(inner) = &*r.ast {
                return Some(pattern[inner.op.span.start.offset..r.op.span.end.offset].to_string());
            }
            nested_repetition(&r.ast, pattern)
        }
        Ast::Group(g) => nested_repetition(&g.ast, pattern),
        Ast::Alternation(a) => a.asts.iter().find_map(|a| nested_repetition(a, pattern)),
        Ast::Concat(c) => c.asts.iter().find_map(|a| nested_repetition(a, pattern)),
        _ => None,
    }
}
