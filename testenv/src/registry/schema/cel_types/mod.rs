//! What the real server checks of a CEL rule when its CRD is written, beyond parsing: the
//! types (cel-go's checker over the schema's declarations, with the functions of the real
//! environment) and the estimated worst-case cost, with the real messages.
//!
//! - [`decl`]: a schema node as CEL sees it, with size bounds;
//! - [`overloads`]: the functions of the real environment;
//! - [`check`]: the type checker;
//! - [`cost`]: the cost estimator;
//! - [`macros`]: the two-variable comprehensions;
//! - [`crd`]: the walk over a CRD schema that applies the per-rule and per-CRD budgets;
//! - [`admission`]: the declarations and result types of admission expressions;
//! - [`policy`]: a ValidatingAdmissionPolicy's and a webhook's expressions compiled per field;
//! - [`authz`]: the authz library's values (from the runtime libraries), which the
//!   admission layer binds to an authorizer;
//! - [`regex_constants`]: constant patterns Go's `regexp` refuses when a program is planned;
//! - `literals`: cel-go's validators of duration, timestamp and pattern literals (the
//!   homogeneous literal validator is in [`check`]).

pub mod admission;
#[cfg(test)]
mod admission_tests;
pub mod check;
pub mod cost;
pub mod crd;
pub mod decl;
mod estimate;
mod library_cost;
mod literals;
pub mod macros;
pub mod overloads;
pub mod policy;
pub mod regex_constants;
#[cfg(test)]
mod tests;
pub mod type_checking;
pub mod types;

pub use super::cel_lib::authz;

use std::sync::{Arc, OnceLock};

use cel::common::ast::{Expr, IdedExpr};

use self::decl::Decl;
use self::types::Type;

/// The environment rules are parsed in for checking: the standard macros and the
/// two-variable comprehensions as cel-go expands them. Nothing is evaluated in it.
fn checking_env() -> &'static cel::Env {
    static ENV: OnceLock<cel::Env> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = cel::Env::stdlib();
        if let Err(e) = macros::register(&mut env, false) {
            panic!("CEL checking environment: {e}");
        }
        env
    })
}

/// A rule or message expression that checked: what the budgets need.
#[derive(Debug)]
pub struct Checked {
    /// The estimated worst-case cost of one evaluation.
    pub cost: u64,
    /// Whether it uses `oldSelf` (a transition rule).
    pub uses_old_self: bool,
}

/// Why an expression was refused.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    /// It does not parse or check: cel-go's issues, as `ERROR: <input>:1:8: ...` lines
    /// with the source line and a caret.
    Compile(String),
    /// It checks, but its result has another type than wanted.
    ResultType(Type),
}

fn uses(expr: &IdedExpr, name: &str) -> bool {
    match &expr.expr {
        Expr::Ident(n) => n == name,
        Expr::Select(s) => uses(&s.operand, name),
        Expr::Call(c) => {
            c.target.as_deref().is_some_and(|t| uses(t, name))
                || c.args.iter().any(|a| uses(a, name))
        }
        Expr::List(l) => l.elements.iter().any(|e| uses(e, name)),
        Expr::Map(m) => m.entries.iter().any(|e| match &e.expr {
            cel::common::ast::EntryExpr::MapEntry(m) => uses(&m.key, name) || uses(&m.value, name),
            cel::common::ast::EntryExpr::StructField(f) => uses(&f.value, name),
        }),
        Expr::Struct(s) => s.entries.iter().any(|e| match &e.expr {
            cel::common::ast::EntryExpr::StructField(f) => uses(&f.value, name),
            cel::common::ast::EntryExpr::MapEntry(m) => uses(&m.key, name) || uses(&m.value, name),
        }),
        Expr::Comprehension(c) => [
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ]
        .iter()
        .any(|e| uses(e, name)),
        _ => false,
    }
}

/// `ERROR: <input>:L:C: message` with the source line and a caret under the column, as
/// cel-go prints an issue.
pub(crate) fn issue(source: &str, offset: Option<u32>, message: &str) -> String {
    let Some(offset) = offset else {
        return format!("ERROR: <input>:-1:0: {message}");
    };
    let before: Vec<char> = source.chars().take(offset as usize).collect();
    let line = before.iter().filter(|c| **c == '\n').count() + 1;
    let col0 = before.iter().rev().take_while(|c| **c != '\n').count();
    let text = source
        .lines()
        .nth(line - 1)
        .unwrap_or_default()
        .replace('\t', " ");
    format!(
        "ERROR: <input>:{line}:{}: {message}\n | {text}\n | {}^",
        col0 + 1,
        ".".repeat(col0.min(text.chars().count()))
    )
}

/// Parses and checks `source` with `self` of declaration `root` (and `oldSelf`, optional
/// when `optional_old_self`), wanting a result of type `want`.
pub fn compile(
    source: &str,
    root: &Arc<Decl>,
    optional_old_self: bool,
    want: &Type,
) -> Result<Checked, Refusal> {
    let program = match checking_env().compile(source) {
        Ok(p) => p,
        Err(e) => return Err(Refusal::Compile(e.to_string().replace("\n| ", "\n | "))),
    };
    let expr = program.expression();
    let self_type = root.ty();
    let old_type = if optional_old_self {
        Type::optional(self_type.clone())
    } else {
        self_type.clone()
    };
    let (checked, mut errors) = check::check(expr, &[("self", self_type), ("oldSelf", old_type)]);
    if !errors.is_empty() {
        let info = program.source_info();
        errors.sort_by_key(|e| info.offset_for(e.id).map_or(u32::MAX, |(s, _)| s));
        let text: Vec<String> = errors
            .iter()
            .map(|e| issue(source, info.offset_for(e.id).map(|(s, _)| s), &e.message))
            .collect();
        return Err(Refusal::Compile(text.join("\n")));
    }
    let result = checked.type_of(expr.id);
    if result != *want {
        return Err(Refusal::ResultType(result));
    }
    Ok(Checked {
        cost: cost::estimate(expr, &checked, root),
        uses_old_self: uses(expr, "oldSelf"),
    })
}
