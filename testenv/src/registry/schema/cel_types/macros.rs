//! The two-variable comprehensions of cel-go (`all(k, v, p)`, `exists(k, v, p)`,
//! `existsOne(k, v, p)`, `transformList`, `transformMap`, `transformMapEntry`), which
//! cel-rust does not have, expanded twice: as cel-go expands them (a comprehension with a
//! second iteration variable, what the checker and the cost estimator see), and into what
//! cel-rust's interpreter runs (a comprehension over `@entries(range)`, the `[key, value]`
//! pairs, binding both variables).

use cel::common::ast::{
    CallExpr, ComprehensionExpr, Expr, IdedExpr, ListExpr, LiteralValue, MapExpr, operators,
};
use cel::parser::{Macro, MacroExprHelper, ParseError};
use cel::{DeclarationError, Env};

/// The accumulator cel-rust names its comprehension results with.
const ACCU: &str = "@result";
/// The variable of a lowered comprehension: one `[key, value]` pair.
const ENTRY: &str = "@entry";

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    All,
    Exists,
    ExistsOne,
    TransformList,
    TransformMap,
    TransformMapEntry,
}

fn call(
    h: &mut MacroExprHelper<'_>,
    name: &str,
    target: Option<IdedExpr>,
    args: Vec<IdedExpr>,
) -> IdedExpr {
    h.next_expr(Expr::Call(CallExpr {
        func_name: name.to_string(),
        target: target.map(Box::new),
        args,
    }))
}

fn ident(h: &mut MacroExprHelper<'_>, name: &str) -> IdedExpr {
    h.next_expr(Expr::Ident(name.to_string()))
}

fn lit(h: &mut MacroExprHelper<'_>, v: LiteralValue) -> IdedExpr {
    h.next_expr(Expr::Literal(v))
}

fn name_of(h: &MacroExprHelper<'_>, e: &IdedExpr) -> Result<String, ParseError> {
    match &e.expr {
        Expr::Ident(n) => Ok(n.clone()),
        _ => Err(h.new_error(e.id, "argument must be a simple name")),
    }
}

/// `var` bound to `value` in `body` (a comprehension over nothing whose accumulator is
/// `var`, as cel-rust binds variables).
fn bind(h: &mut MacroExprHelper<'_>, var: &str, value: IdedExpr, body: IdedExpr) -> IdedExpr {
    let iter_range = h.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let loop_cond = lit(h, LiteralValue::Boolean(false.into()));
    let loop_step = ident(h, var);
    h.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range,
        iter_var: "#unused".to_string(),
        iter_var2: None,
        accu_var: var.to_string(),
        accu_init: value,
        loop_cond,
        loop_step,
        result: body,
    })))
}

/// The accumulator's start, loop condition, step and result of `kind`, around `body` (and
/// the optional `filter`), with `key` the expression of the first variable.
fn parts(
    h: &mut MacroExprHelper<'_>,
    kind: Kind,
    key: IdedExpr,
    filter: Option<IdedExpr>,
    body: IdedExpr,
    map_insert: &str,
) -> (IdedExpr, IdedExpr, IdedExpr, IdedExpr) {
    let accu = |h: &mut MacroExprHelper<'_>| ident(h, ACCU);
    let t = |h: &mut MacroExprHelper<'_>| lit(h, LiteralValue::Boolean(true.into()));
    match kind {
        Kind::All | Kind::Exists => {
            let all = kind == Kind::All;
            let init = lit(h, LiteralValue::Boolean(all.into()));
            let a = accu(h);
            let cond_arg = if all {
                a
            } else {
                call(h, operators::LOGICAL_NOT, None, vec![a])
            };
            let cond = call(h, operators::NOT_STRICTLY_FALSE, None, vec![cond_arg]);
            let a = accu(h);
            let op = if all {
                operators::LOGICAL_AND
            } else {
                operators::LOGICAL_OR
            };
            let step = call(h, op, None, vec![a, body]);
            let result = accu(h);
            (init, cond, step, result)
        }
        Kind::ExistsOne => {
            let init = lit(h, LiteralValue::Int(0.into()));
            let cond = t(h);
            let a = accu(h);
            let one = lit(h, LiteralValue::Int(1.into()));
            let plus = call(h, operators::ADD, None, vec![a, one]);
            let a = accu(h);
            let step = call(h, operators::CONDITIONAL, None, vec![body, plus, a]);
            let a = accu(h);
            let one = lit(h, LiteralValue::Int(1.into()));
            let result = call(h, operators::EQUALS, None, vec![a, one]);
            (init, cond, step, result)
        }
        Kind::TransformList | Kind::TransformMap | Kind::TransformMapEntry => {
            let init = if kind == Kind::TransformList {
                h.next_expr(Expr::List(ListExpr::new(Vec::new())))
            } else {
                h.next_expr(Expr::Map(MapExpr {
                    entries: Vec::new(),
                }))
            };
            let cond = t(h);
            let a = accu(h);
            let grown = match kind {
                Kind::TransformList => {
                    let single = h.next_expr(Expr::List(ListExpr::new(vec![body])));
                    call(h, operators::ADD, None, vec![a, single])
                }
                Kind::TransformMap => call(h, map_insert, None, vec![a, key, body]),
                _ => call(h, map_insert, None, vec![a, body]),
            };
            let step = match filter {
                Some(f) => {
                    let a = accu(h);
                    call(h, operators::CONDITIONAL, None, vec![f, grown, a])
                }
                None => grown,
            };
            let result = accu(h);
            (init, cond, step, result)
        }
    }
}

fn expand(
    h: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
    kind: Kind,
    lowered: bool,
) -> Result<Option<IdedExpr>, ParseError> {
    let range = target.take().expect("receiver macro");
    let mut args = std::mem::take(args).into_iter();
    let (k, v) = (args.next().expect("arity"), args.next().expect("arity"));
    let (k, v) = (name_of(h, &k)?, name_of(h, &v)?);
    let rest: Vec<IdedExpr> = args.collect();
    let (filter, body) = match <[IdedExpr; 2]>::try_from(rest) {
        Ok([f, b]) => (Some(f), b),
        Err(mut one) => (None, one.pop().expect("arity")),
    };
    if !lowered {
        let key = ident(h, &k);
        let (accu_init, loop_cond, loop_step, result) =
            parts(h, kind, key, filter, body, "cel.@mapInsert");
        return Ok(Some(h.next_expr(Expr::Comprehension(Box::new(
            ComprehensionExpr {
                iter_range: range,
                iter_var: k,
                iter_var2: Some(v),
                accu_var: ACCU.to_string(),
                accu_init,
                loop_cond,
                loop_step,
                result,
            },
        )))));
    }
    // Lowered: iterate over the [key, value] pairs and bind both names in every part that
    // uses them.
    let pair = |h: &mut MacroExprHelper<'_>, i: i64| {
        let e = ident(h, ENTRY);
        let idx = lit(h, LiteralValue::Int(i.into()));
        call(h, operators::INDEX, None, vec![e, idx])
    };
    let bound = |h: &mut MacroExprHelper<'_>, body: IdedExpr| {
        let vv = pair(h, 1);
        let inner = bind(h, &v, vv, body);
        let kk = pair(h, 0);
        bind(h, &k, kk, inner)
    };
    let body = bound(h, body);
    let filter = filter.map(|f| bound(h, f));
    let key = pair(h, 0);
    let (accu_init, loop_cond, loop_step, result) = parts(h, kind, key, filter, body, "@mapInsert");
    let entries = call(h, "@entries", None, vec![range]);
    Ok(Some(h.next_expr(Expr::Comprehension(Box::new(
        ComprehensionExpr {
            iter_range: entries,
            iter_var: ENTRY.to_string(),
            iter_var2: None,
            accu_var: ACCU.to_string(),
            accu_init,
            loop_cond,
            loop_step,
            result,
        },
    )))))
}

/// Adds the two-variable comprehension macros to `env`: as cel-go expands them, or
/// `lowered` for cel-rust's interpreter.
pub fn register(env: &mut Env, lowered: bool) -> Result<(), DeclarationError> {
    for (name, arity, kind) in [
        ("all", 3, Kind::All),
        ("exists", 3, Kind::Exists),
        ("existsOne", 3, Kind::ExistsOne),
        ("transformList", 3, Kind::TransformList),
        ("transformList", 4, Kind::TransformList),
        ("transformMap", 3, Kind::TransformMap),
        ("transformMap", 4, Kind::TransformMap),
        ("transformMapEntry", 3, Kind::TransformMapEntry),
        ("transformMapEntry", 4, Kind::TransformMapEntry),
    ] {
        env.add_macro(Macro::receiver(name, arity, move |h, t, a| {
            expand(h, t, a, kind, lowered)
        }))?;
    }
    Ok(())
}
