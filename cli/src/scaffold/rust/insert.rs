//! Code inserted at a scaffold marker of a Rust file, through the syntax tree: the file is
//! parsed, the marker comment located among items, statements, a block's tail expression or a
//! macro's arguments, each piece parsed as what belongs there and skipped when the file has it
//! already (compared as syntax, so a reformatted line is still found), spliced in, and the
//! result parsed again.

use std::path::Path;

use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Block, Expr, Item, Stmt, Token};

use super::chain::{Call, append, calls, same_call};
use super::items::{has_item, sorted_position};
use super::marker::{Place, find, locate};
use super::source::{RustSource, Splice};
use crate::error::Error;

/// Inserts each of `pieces` (an item, a statement, a macro argument with its comma, or a
/// `.method(...)` call for the chain a block ends with) just before the marker comment
/// `marker_line` of the Rust file `path`, indented like the marker; a piece the file has
/// already is skipped, and a module declaration joins the declarations just above the marker
/// at its rustfmt place. `Ok(None)`: the file has no such marker. Refused, with nothing
/// changed: a file that does not parse, a marker inside an item or a statement, a piece that is
/// not valid where the marker is.
pub fn insert_at_marker(
    path: &Path,
    text: &str,
    marker_line: &str,
    pieces: &[String],
) -> Result<Option<String>, Error> {
    let mut text = text.to_owned();
    for piece in pieces {
        let source = RustSource::parse(path, &text)?;
        let Some(at) = find(&source, marker_line) else {
            return Ok(None);
        };
        // A marker inside an item or a statement (moved there by hand) is no place to insert
        // at: refused, naming where it stands.
        let place = locate(&source, at).map_err(|misplaced| Error::MarkerMisplaced {
            path: path.to_owned(),
            marker: marker_line.to_owned(),
            inside: misplaced.inside,
        })?;
        let splices = insert_piece(&source, place, at, piece).map_err(|what| {
            Error::Internal(format!(
                "the code kubeforge inserts at `{marker_line}` in {} is not {what}: {piece}",
                path.display()
            ))
        })?;
        let updated = source.splice(splices);
        // What was inserted must leave a file that parses (a macro's arguments too).
        let reparsed = RustSource::parse(path, &updated).map_err(|e| {
            Error::Internal(format!(
                "inserting `{piece}` at `{marker_line}` would break {}: {e}",
                path.display()
            ))
        })?;
        if let Some(at) = find(&reparsed, marker_line)
            && let Ok(Place::MacroArguments { mac }) = locate(&reparsed, at)
            && mac
                .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
                .is_err()
        {
            return Err(Error::Internal(format!(
                "inserting `{piece}` at `{marker_line}` would break the arguments of `{}!` in {}",
                mac.path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default(),
                path.display()
            )));
        }
        text = updated;
    }
    Ok(Some(text))
}

/// The splices that insert `piece` at the marker at `at`; `Err` names what the piece should
/// have been.
fn insert_piece(
    source: &RustSource<'_>,
    place: Place<'_>,
    at: usize,
    piece: &str,
) -> Result<Vec<Splice>, &'static str> {
    let before_marker = |text: &str| vec![indented(source, source.line_start(at), at, text)];
    match place {
        Place::Items { items, before } => {
            let new: Item = syn::parse_str(piece).map_err(|_| "an item")?;
            if has_item(items, &new) {
                return Ok(Vec::new());
            }
            let line = match &new {
                Item::Mod(module) if module.content.is_none() => {
                    sorted_position(source, &items[..before], at, module)
                }
                _ => None,
            };
            Ok(match line {
                Some(line) => vec![indented(source, line, line, piece)],
                None => before_marker(piece),
            })
        }
        Place::Statements { block, .. } => {
            let new = Block::parse_within
                .parse_str(piece)
                .map_err(|_| "a statement")?;
            let [new] = new.as_slice() else {
                return Err("one statement");
            };
            if has_statement(&block.stmts, new) {
                return Ok(Vec::new());
            }
            Ok(before_marker(piece))
        }
        Place::Tail { expr } => {
            let (call, parsed) = Call::parse(piece).ok_or("a method call `.name(...)`")?;
            if calls(expr).0.iter().any(|have| same_call(have, &parsed)) {
                return Ok(Vec::new());
            }
            Ok(append(source, expr, &call))
        }
        Place::MacroArguments { mac } => {
            let parse = Punctuated::<Expr, Token![,]>::parse_terminated;
            let new = parse.parse_str(piece).map_err(|_| "a macro argument")?;
            let have = mac.parse_body_with(parse).map_err(|_| "a macro argument")?;
            if new.iter().all(|n| have.iter().any(|h| h == n)) {
                return Ok(Vec::new());
            }
            let mut splices = Vec::new();
            // The argument before the marker gets the comma the user may have removed.
            if let Some(last) = have.last()
                && !have.trailing_punct()
                && source.range(last.span()).end <= at
            {
                splices.push(Splice::insert(source.range(last.span()).end, ","));
            }
            splices.extend(before_marker(piece));
            Ok(splices)
        }
    }
}

/// Whether `stmts` (or a block among them) holds `new`, compared as syntax.
fn has_statement(stmts: &[Stmt], new: &Stmt) -> bool {
    stmts.iter().any(|stmt| {
        stmt == new
            || match stmt {
                Stmt::Expr(Expr::Block(b), _) => has_statement(&b.block.stmts, new),
                _ => false,
            }
    })
}

/// `text` inserted at `at` (a line start), each of its lines indented like the line holding
/// `indent_of`.
fn indented(source: &RustSource<'_>, at: usize, indent_of: usize, text: &str) -> Splice {
    let indent = source.indent(indent_of);
    let mut out = String::new();
    for line in text.trim().lines() {
        if !line.trim().is_empty() {
            out.push_str(indent);
            out.push_str(line);
        }
        out.push('\n');
    }
    Splice::insert(at, out)
}

#[cfg(test)]
mod tests;
