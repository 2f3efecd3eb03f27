//! A method call appended to a chain (`builder.defaulter::<T>(d).validator::<T>(v)`), laid out
//! as rustfmt lays out such chains: one call stays on the receiver's line, two or more go one a
//! line, one level deeper; a call that does not fit in 100 columns has its arguments one a line.

use syn::spanned::Spanned;
use syn::{Expr, ExprMethodCall};

use super::source::{RustSource, Splice};

/// rustfmt's `max_width`.
const MAX_WIDTH: usize = 100;
/// rustfmt's `fn_call_width`: arguments wider than this go one a line.
const CALL_WIDTH: usize = 60;

/// A call of the chain: `.method::<T>(` and its arguments, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    head: String,
    args: Vec<String>,
}

impl Call {
    /// The call `piece` (`.method::<T>(args)`, one call); `None` when it is not one.
    pub fn parse(piece: &str) -> Option<(Self, ExprMethodCall)> {
        let text = format!("receiver{}", piece.trim());
        let Ok(Expr::MethodCall(call)) = syn::parse_str::<Expr>(&text) else {
            return None;
        };
        if !matches!(&*call.receiver, Expr::Path(p) if p.path.is_ident("receiver")) {
            return None;
        }
        let range = |span: proc_macro2::Span| span.byte_range();
        let head = text[range(call.dot_token.span).start..range(call.paren_token.span.open()).end]
            .to_owned();
        let args = call
            .args
            .iter()
            .map(|arg| text[range(arg.span())].to_owned())
            .collect();
        Some((Self { head, args }, call))
    }

    /// The call from the text of an existing one; `None` when comments or line breaks inside
    /// it would be lost by laying it out again.
    fn of(source: &RustSource<'_>, call: &ExprMethodCall) -> Option<Self> {
        let start = source.range(call.dot_token.span).start;
        let end = source.range(call.paren_token.span.close()).end;
        let whole = &source.text()[start..end];
        if whole.contains("//") || whole.contains("/*") {
            return None;
        }
        let head_end = source.range(call.paren_token.span.open()).end;
        let head = &source.text()[start..head_end];
        let args: Vec<String> = call
            .args
            .iter()
            .map(|arg| source.slice(arg.span()).to_owned())
            .collect();
        if head.contains('\n') || args.iter().any(|a| a.contains('\n')) {
            return None;
        }
        Some(Self {
            head: head.to_owned(),
            args,
        })
    }

    /// The call starting at column `column` of a line indented by `indent`.
    fn layout(&self, column: usize, indent: usize) -> String {
        let args = self.args.join(", ");
        let one = format!("{}{args})", self.head);
        if self.args.is_empty() || (column + one.len() <= MAX_WIDTH && args.len() <= CALL_WIDTH) {
            return one;
        }
        let pad = " ".repeat(indent + 4);
        let mut out = self.head.clone();
        for arg in &self.args {
            out.push_str(&format!("\n{pad}{arg},"));
        }
        out.push_str(&format!("\n{})", " ".repeat(indent)));
        out
    }
}

/// Whether two calls are the same as tokens.
pub fn same_call(a: &ExprMethodCall, b: &ExprMethodCall) -> bool {
    a.method == b.method && a.turbofish == b.turbofish && a.args.iter().eq(b.args.iter())
}

/// The calls of the chain `expr`, outermost first, and its receiver.
pub fn calls(mut expr: &Expr) -> (Vec<&ExprMethodCall>, &Expr) {
    let mut out = Vec::new();
    while let Expr::MethodCall(call) = expr {
        out.push(call);
        expr = &call.receiver;
    }
    (out, expr)
}

/// The splices that append `new` to the chain `expr` (the tail expression of a block).
pub fn append(source: &RustSource<'_>, expr: &Expr, new: &Call) -> Vec<Splice> {
    let (calls, receiver) = calls(expr);
    let receiver_end = source.range(receiver.span()).end;
    let indent = source.indent(receiver_end).len();
    let column = |at: usize| at - source.line_start(at);
    let text = source.text();
    match calls.as_slice() {
        [] => vec![Splice::insert(
            receiver_end,
            new.layout(column(receiver_end), indent),
        )],
        [only] => {
            let dot = source.range(only.dot_token.span).start;
            if text[receiver_end..dot].contains('\n') {
                return vec![on_its_own_line(source, only, new)];
            }
            // One call on the receiver's line: with a second, both go on lines of their own.
            let end = source.range(only.span()).end;
            let pad = " ".repeat(indent + 4);
            let first = match Call::of(source, only) {
                Some(call) => call.layout(indent + 4, indent + 4),
                None => text[dot..end].replace('\n', "\n    "),
            };
            vec![Splice {
                range: receiver_end..end,
                text: format!(
                    "\n{pad}{first}\n{pad}{}",
                    new.layout(indent + 4, indent + 4)
                ),
            }]
        }
        [last, ..] => vec![on_its_own_line(source, last, new)],
    }
}

/// `new` on a line of its own after `last`, indented like `last`'s line.
fn on_its_own_line(source: &RustSource<'_>, last: &ExprMethodCall, new: &Call) -> Splice {
    let dot = source.range(last.dot_token.span).start;
    let indent = source.indent(dot).len();
    let end = source.range(last.span()).end;
    Splice::insert(
        end,
        format!("\n{}{}", " ".repeat(indent), new.layout(indent, indent)),
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn appended(text: &str, piece: &str) -> String {
        let source = RustSource::parse(Path::new("t.rs"), text).unwrap();
        let syn::Item::Fn(f) = &source.file().items[0] else {
            panic!()
        };
        let Some(syn::Stmt::Expr(expr, None)) = f.block.stmts.last() else {
            panic!()
        };
        let (call, _) = Call::parse(piece).unwrap();
        source.splice(append(&source, expr, &call))
    }

    #[test]
    fn lays_out_the_chain_as_rustfmt_does() {
        let one = appended("fn f() {\n    b\n}\n", ".d::<crate::K>(k::D)");
        assert_eq!(one, "fn f() {\n    b.d::<crate::K>(k::D)\n}\n");
        let two = appended(&one, ".v::<crate::K>(k::V)");
        assert_eq!(
            two,
            "fn f() {\n    b\n        .d::<crate::K>(k::D)\n        .v::<crate::K>(k::V)\n}\n"
        );
        let three = appended(&two, ".c::<crate::K>()");
        assert!(three.ends_with("        .v::<crate::K>(k::V)\n        .c::<crate::K>()\n}\n"));
    }

    #[test]
    fn a_call_too_wide_has_its_argument_on_a_line_of_its_own() {
        let long = format!(
            ".defaulter::<crate::api::v1::{0}>(v1::{0}Defaulter)",
            "K".repeat(40)
        );
        let one = appended("fn f() {\n    builder\n}\n", &long);
        assert_eq!(
            one,
            format!(
                "fn f() {{\n    builder.defaulter::<crate::api::v1::{0}>(\n        v1::{0}Defaulter,\n    )\n}}\n",
                "K".repeat(40)
            )
        );
        let two = appended(&one, ".c()");
        assert_eq!(
            two,
            format!(
                "fn f() {{\n    builder\n        .defaulter::<crate::api::v1::{0}>(\n            v1::{0}Defaulter,\n        )\n        .c()\n}}\n",
                "K".repeat(40)
            )
        );
    }

    #[test]
    fn calls_compare_as_tokens() {
        let (_, a) = Call::parse(".d::<K>(k :: D)").unwrap();
        let (_, b) = Call::parse(".d::< K >(k::D,)").unwrap();
        let (_, c) = Call::parse(".d::<K>(k::E)").unwrap();
        assert!(same_call(&a, &b));
        assert!(!same_call(&a, &c));
        assert!(Call::parse("d()").is_none());
        assert!(Call::parse(".a().b()").is_none());
    }
}
