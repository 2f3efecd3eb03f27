//! cel-go's literal validators, which the real environment runs on an expression that
//! type-checked: a `duration(...)` or `timestamp(...)` of a string literal that does not
//! parse, and a `matches` call whose first argument is a literal that is not a regular
//! expression (the pattern of a method call; of the global `matches(s, re)` the validator
//! checks `s`, as cel-go does). A pattern the validator does not see is refused when the
//! program is planned (see [`regex_constant_error`]).

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use super::super::cel_value::go_duration;

/// The literal arguments that do not parse: the literal's node and the message.
pub fn literal_errors(expr: &IdedExpr) -> Vec<(u64, String)> {
    let mut errors = Vec::new();
    walk(expr, &mut errors);
    errors
}

fn string_literal(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Literal(LiteralValue::String(s)) => Some(s.to_string()),
        _ => None,
    }
}

fn valid(function: &str, member: bool, literal: &str) -> Option<bool> {
    Some(match (function, member) {
        ("duration", false) => go_duration(literal).is_some(),
        ("timestamp", false) => chrono::DateTime::parse_from_rfc3339(literal).is_ok(),
        ("matches", _) => regex::Regex::new(literal).is_ok(),
        _ => return None,
    })
}

fn walk(e: &IdedExpr, errors: &mut Vec<(u64, String)>) {
    match &e.expr {
        Expr::Call(call) => {
            let first = match call.args.as_slice() {
                [arg] => Some(arg),
                [arg, ..] if call.func_name == "matches" => Some(arg),
                _ => None,
            };
            if let Some(arg) = first
                && let Some(literal) = string_literal(arg)
                && valid(&call.func_name, call.target.is_some(), &literal) == Some(false)
            {
                errors.push((arg.id, format!("invalid {} argument", call.func_name)));
            }
            if let Some(t) = &call.target {
                walk(t, errors);
            }
            call.args.iter().for_each(|a| walk(a, errors));
        }
        Expr::Select(s) => walk(&s.operand, errors),
        Expr::List(l) => l.elements.iter().for_each(|x| walk(x, errors)),
        Expr::Map(m) => m.entries.iter().for_each(|entry| match &entry.expr {
            EntryExpr::MapEntry(me) => {
                walk(&me.key, errors);
                walk(&me.value, errors);
            }
            EntryExpr::StructField(f) => walk(&f.value, errors),
        }),
        Expr::Struct(s) => s.entries.iter().for_each(|entry| match &entry.expr {
            EntryExpr::MapEntry(me) => {
                walk(&me.key, errors);
                walk(&me.value, errors);
            }
            EntryExpr::StructField(f) => walk(&f.value, errors),
        }),
        Expr::Comprehension(c) => {
            for part in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                walk(part, errors);
            }
        }
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}
