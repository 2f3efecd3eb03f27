//! The compile-time check the real server's CEL compiler makes that cel-rust's parser does
//! not: every identifier is `self`, `oldSelf` or a variable a macro declared, and every
//! function exists. Such a rule is refused when the CRD is created.

use cel::common::ast::{EntryExpr, Expr, IdedExpr};

/// Global functions and namespaced functions of the environment.
const GLOBAL_FUNCTIONS: &[&str] = &[
    "size",
    "int",
    "uint",
    "double",
    "string",
    "bool",
    "bytes",
    "type",
    "dyn",
    "matches",
    "has",
    "duration",
    "timestamp",
    "isQuantity",
    "quantity",
    "isURL",
    "url",
    "isIP",
    "ip",
    "isCIDR",
    "cidr",
    "optional.of",
    "optional.none",
    "optional.ofNonZeroValue",
    "strings.quote",
    "lists.range",
    "sets.contains",
    "sets.equivalent",
    "sets.intersects",
    "math.greatest",
    "math.least",
    "math.ceil",
    "math.floor",
    "math.round",
    "math.trunc",
    "math.isInf",
    "math.isNaN",
    "math.isFinite",
    "math.abs",
    "math.sign",
    "math.bitAnd",
    "math.bitOr",
    "math.bitXor",
    "math.bitNot",
    "math.bitShiftLeft",
    "math.bitShiftRight",
    "math.sqrt",
    "cel.bind",
    "ip.isCanonical",
];

/// Member functions (called on a receiver) of the environment.
const MEMBER_FUNCTIONS: &[&str] = &[
    // standard library
    "size",
    "contains",
    "startsWith",
    "endsWith",
    "matches",
    "hasValue",
    "value",
    "or",
    "orValue",
    "optMap",
    "optFlatMap",
    // strings extension
    "charAt",
    "indexOf",
    "lastIndexOf",
    "join",
    "lowerAscii",
    "upperAscii",
    "trim",
    "replace",
    "split",
    "substring",
    "format",
    "reverse",
    // lists extension
    "slice",
    "flatten",
    "distinct",
    "sort",
    "sortBy",
    // Kubernetes lists and regex
    "isSorted",
    "sum",
    "min",
    "max",
    "find",
    "findAll",
    // Kubernetes quantity
    "sign",
    "isInteger",
    "asInteger",
    "asApproximateFloat",
    "add",
    "sub",
    "isLessThan",
    "isGreaterThan",
    "compareTo",
    // Kubernetes URL
    "getScheme",
    "getHost",
    "getHostname",
    "getPort",
    "getEscapedPath",
    "getQuery",
    // Kubernetes IP and CIDR
    "family",
    "isUnspecified",
    "isLoopback",
    "isLinkLocalMulticast",
    "isLinkLocalUnicast",
    "isGlobalUnicast",
    "containsIP",
    "containsCIDR",
    "prefixLength",
    "masked",
    // macros (left as calls when their arguments do not fit)
    "all",
    "exists",
    "exists_one",
    "map",
    "filter",
    "transformList",
    "transformMap",
];

/// Namespaces of global functions (`math.greatest(...)` parses as a call on `math`).
const NAMESPACES: &[&str] = &["optional", "strings", "lists", "sets", "math", "cel", "ip"];

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
    let mut scope: Vec<String> = roots.iter().map(|r| r.to_string()).collect();
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
                }) if NAMESPACES.contains(&ns.as_str()) && !scope.contains(ns) => {
                    let full = format!("{ns}.{name}");
                    if !internal && !GLOBAL_FUNCTIONS.contains(&full.as_str()) {
                        return Err(format!("undeclared reference to '{full}'"));
                    }
                }
                Some(target) => {
                    if !internal && !MEMBER_FUNCTIONS.contains(&name) {
                        return Err(format!("undeclared reference to '{name}'"));
                    }
                    walk(target, scope)?;
                }
                None => {
                    if !internal && !GLOBAL_FUNCTIONS.contains(&name) {
                        return Err(format!("undeclared reference to '{name}'"));
                    }
                }
            }
            // Macros cel-rust leaves unexpanded (`cel.bind`, two-variable comprehensions,
            // `transformList`, ...) declare their leading identifier arguments for the rest.
            let declared = macro_variables(call);
            let depth = scope.len();
            scope.extend(declared.iter().map(|v| v.to_string()));
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
