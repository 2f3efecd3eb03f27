//! The compile-time check the real server's CEL compiler makes that cel-rust's parser does
//! not: every identifier is `self`, `oldSelf` or a variable a macro declared, and every
//! function exists. Such a rule is refused when the CRD is created.

use std::sync::OnceLock;

use cel::common::ast::{EntryExpr, Expr, IdedExpr};

/// Whether the environment declares `name` as a global (`member == false`) or member
/// function: the overload table of the CRD-time checker, plus the macros cel-rust leaves
/// as calls when their arguments do not fit.
fn declared(name: &str, member: bool) -> bool {
    const MACROS: &[&str] = &[
        "all",
        "exists",
        "exists_one",
        "existsOne",
        "map",
        "filter",
        "transformList",
        "transformMap",
        "transformMapEntry",
        "optMap",
        "optFlatMap",
    ];
    (member && MACROS.contains(&name))
        || super::cel_types::overloads::table()
            .get(name)
            .is_some_and(|o| o.iter().any(|o| o.member == member))
}

/// Namespaces of global functions (`format.dns1123Label()` parses as a call on `format`).
fn is_namespace(name: &str) -> bool {
    static NAMESPACES: OnceLock<Vec<String>> = OnceLock::new();
    NAMESPACES
        .get_or_init(|| {
            let mut n: Vec<String> = super::cel_types::overloads::table()
                .keys()
                .filter_map(|k| k.split_once('.').map(|(ns, _)| ns.to_string()))
                .collect();
            n.sort();
            n.dedup();
            n
        })
        .iter()
        .any(|n| n == name)
}

/// cel-go's default limit on expression nesting; deeper expressions are refused, which
/// also bounds the evaluator's recursion.
pub const MAX_DEPTH: usize = 250;

/// Checks `expr` for undeclared references and excessive nesting; the error is cel-go's
/// text.
pub fn check_references(expr: &IdedExpr) -> Result<(), String> {
    check_references_in(expr, &["self", "oldSelf"])
}

/// [`check_references`] for an expression whose root variables are `roots`.
pub fn check_references_in(expr: &IdedExpr, roots: &[&str]) -> Result<(), String> {
    let mut scope: Vec<String> = roots.iter().map(std::string::ToString::to_string).collect();
    walk(expr, &mut scope, 0)
}

fn walk(e: &IdedExpr, scope: &mut Vec<String>, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("expression recursion limit exceeded: {MAX_DEPTH}"));
    }
    let depth = depth + 1;
    let walk = |e: &IdedExpr, scope: &mut Vec<String>| walk(e, scope, depth);
    match &e.expr {
        Expr::Ident(name) => {
            if scope.iter().any(|s| s == name) || is_type_name(name) {
                Ok(())
            } else {
                Err(format!("undeclared reference to '{name}'"))
            }
        }
        Expr::Call(call) => {
            let name = call.func_name.as_str();
            // Operators (`_+_`, `!_`) and the helpers macros expand to (`@in`, `math.@max`).
            let last = name.rsplit('.').next().unwrap_or(name);
            let internal = name.starts_with('_') || last.starts_with('@') || name == "!_";
            match call.target.as_deref() {
                Some(IdedExpr {
                    expr: Expr::Ident(ns),
                    ..
                }) if is_namespace(ns) && !scope.contains(ns) => {
                    let full = format!("{ns}.{name}");
                    if !internal && !declared(&full, false) {
                        return Err(format!("undeclared reference to '{full}'"));
                    }
                }
                Some(target) => {
                    if !internal && !declared(name, true) {
                        return Err(format!("undeclared reference to '{name}'"));
                    }
                    walk(target, scope)?;
                }
                None => {
                    if !internal && !declared(name, false) {
                        return Err(format!("undeclared reference to '{name}'"));
                    }
                }
            }
            // Macros cel-rust leaves unexpanded (`cel.bind`, two-variable comprehensions,
            // `transformList`, ...) declare their leading identifier arguments for the rest.
            let declared = macro_variables(call);
            let depth = scope.len();
            scope.extend(declared.iter().map(std::string::ToString::to_string));
            let r = call.args[declared.len()..]
                .iter()
                .try_for_each(|a| walk(a, scope));
            scope.truncate(depth);
            r
        }
        Expr::Comprehension(c) => {
            walk(&c.iter_range, scope)?;
            walk(&c.accu_init, scope)?;
            let depth = scope.len();
            scope.push(c.iter_var.clone());
            if let Some(v) = &c.iter_var2 {
                scope.push(v.clone());
            }
            scope.push(c.accu_var.clone());
            let r = walk(&c.loop_cond, scope)
                .and_then(|()| walk(&c.loop_step, scope))
                .and_then(|()| walk(&c.result, scope));
            scope.truncate(depth);
            r
        }
        Expr::List(l) => l.elements.iter().try_for_each(|i| walk(i, scope)),
        Expr::Map(m) => m.entries.iter().try_for_each(|entry| match &entry.expr {
            EntryExpr::MapEntry(me) => walk(&me.key, scope).and_then(|()| walk(&me.value, scope)),
            EntryExpr::StructField(f) => walk(&f.value, scope),
        }),
        // The well-known types by their full names (`google.protobuf.Timestamp`).
        Expr::Select(s)
            if !s.test
                && matches!(&s.operand.expr, Expr::Select(p) if p.field == "protobuf"
                    && matches!(&p.operand.expr, Expr::Ident(g) if g == "google"
                        && !scope.iter().any(|n| n == "google")))
                && matches!(s.field.as_str(), "Timestamp" | "Duration") =>
        {
            Ok(())
        }
        Expr::Select(s) => walk(&s.operand, scope),
        Expr::Struct(s) => s.entries.iter().try_for_each(|entry| match &entry.expr {
            EntryExpr::MapEntry(me) => walk(&me.key, scope).and_then(|()| walk(&me.value, scope)),
            EntryExpr::StructField(f) => walk(&f.value, scope),
        }),
        Expr::Literal(_) | Expr::Unspecified => Ok(()),
    }
}

/// The variables an unexpanded macro call declares: its leading identifier arguments
/// (`cel.bind(x, init, body)`, `list.all(i, v, pred)`, `map.transformMap(k, v, expr)`).
fn macro_variables(call: &cel::common::ast::CallExpr) -> Vec<&str> {
    let max = match call.func_name.as_str() {
        "bind" | "cel.bind" if call.args.len() == 3 => 1,
        "optMap" | "optFlatMap" if call.args.len() == 2 => 1,
        "all" | "exists" | "exists_one" | "existsOne" if call.args.len() == 3 => 2,
        "transformList" | "transformMap" | "transformMapEntry" if call.args.len() >= 3 => 2,
        "map" | "filter" | "all" | "exists" | "exists_one" | "sortBy" if call.args.len() >= 2 => 1,
        _ => 0,
    };
    call.args
        .iter()
        .take(max)
        .map_while(|a| match &a.expr {
            Expr::Ident(name) => Some(name.as_str()),
            _ => None,
        })
        .collect()
}

/// Type identifiers usable as values (`type(self) == string`).
fn is_type_name(name: &str) -> bool {
    matches!(
        name,
        "int"
            | "uint"
            | "double"
            | "string"
            | "bool"
            | "bytes"
            | "list"
            | "map"
            | "null_type"
            | "type"
    )
}
