//! resource.k8s.io (dynamic resource allocation): the CEL device selectors of DeviceClasses,
//! ResourceClaims and ResourceClaimTemplates compiled on write as kube-apiserver compiles
//! them (its `device` variable, the Kubernetes libraries, a result of type bool or unknown),
//! with its messages, and refused when their estimated cost is too high
//! ([`super::resource_cost`]). A claim's own rules are [`super::resource_claim`]'s;
//! [`super::resource_go`] prints a claim's spec as the real server does in its
//! immutable-spec message.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use cel::common::ast::{
    ComprehensionExpr, EntryExpr, Expr, IdedExpr, ListExpr, LiteralValue, MapExpr, StructExpr,
};
use serde_json::Value;

use super::errors::{Errors, child, forbidden, index, invalid_str, required};
use super::resource_cost::{MAX_COST, selector_cost};
use crate::registry::schema::cel_types::check::check;
use crate::registry::schema::cel_types::decl::{Decl, Shape};
use crate::registry::schema::cel_types::types::{Type, opaque};
use crate::registry::schema::cel_types::{issue, macros};
use crate::support::meta::{dns1123_label, dns1123_subdomain};
use crate::support::status::Cause;

/// The longest selector expression (`CELSelectorExpressionMaxLength`).
const MAX_EXPRESSION: usize = 10 * 1024;

/// The declaration behind the `device` variable (`kubernetes.DRADevice`): its driver, its
/// attributes (values of any type) and its capacities (quantities), by domain then name.
/// `allowMultipleAllocations` belongs to the `DRAConsumableCapacity` feature, off in v1.34.
fn device() -> &'static Arc<Decl> {
    static DEVICE: OnceLock<Arc<Decl>> = OnceLock::new();
    DEVICE.get_or_init(|| {
        let decl = |shape| {
            Arc::new(Decl {
                shape,
                max_elements: 0,
                min_size: 2,
                name: String::new(),
            })
        };
        let by_domain =
            |value: Type| decl(Shape::Map(decl(Shape::Map(decl(Shape::Scalar(value))))));
        let fields: BTreeMap<String, Arc<Decl>> = [
            ("driver", decl(Shape::Scalar(Type::String))),
            ("attributes", by_domain(Type::Dyn)),
            (
                "capacity",
                by_domain(Type::Opaque(opaque::QUANTITY, Vec::new())),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        Arc::new(Decl {
            shape: Shape::Object(fields),
            max_elements: 0,
            min_size: 2,
            name: "kubernetes.DRADevice".into(),
        })
    })
}

/// The environment selectors are parsed in: the standard macros and the two-variable
/// comprehensions.
fn env() -> &'static cel::Env {
    static ENV: OnceLock<cel::Env> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = cel::Env::stdlib();
        if let Err(e) = macros::register(&mut env, false) {
            panic!("CEL selector environment: {e}");
        }
        env
    })
}

/// The attribute values are `google.protobuf.Any` in the real environment, which the checker
/// treats as `dyn` and prints as `any` in its issues and by its full name in a result type.
fn any_in_issue(message: &str) -> String {
    message.replace("map(string, dyn)", "map(string, any)")
}

fn any_in_result(ty: &str) -> String {
    ty.replace("map(string, dyn)", "map(string, google.protobuf.Any)")
}

/// `cel.bind(x, init, body)` (the bindings extension the selector environment has) as
/// cel-go expands it, so the checker sees `x` declared: a comprehension over an empty list
/// whose accumulator `x` starts as `init` and whose result is `body`.
fn lower_bindings(expr: &mut IdedExpr) {
    let id = expr.id;
    match &mut expr.expr {
        Expr::Call(call) => {
            if let Some(t) = call.target.as_deref_mut() {
                lower_bindings(t);
            }
            call.args.iter_mut().for_each(lower_bindings);
            let on_cel = match call.target.as_deref() {
                Some(t) => call.func_name == "bind" && t.expr == Expr::Ident("cel".into()),
                None => call.func_name == "cel.bind",
            };
            if !on_cel || call.args.len() != 3 {
                return;
            }
            let Expr::Ident(var) = &call.args[0].expr else {
                return;
            };
            let var = var.clone();
            let body = call.args.pop().expect("three arguments");
            let init = call.args.pop().expect("three arguments");
            let node = |expr| IdedExpr { id, expr };
            expr.expr = Expr::Comprehension(Box::new(ComprehensionExpr {
                iter_range: node(Expr::List(ListExpr {
                    elements: Vec::new(),
                    optional_indices: Vec::new(),
                })),
                iter_var: "#unused".into(),
                iter_var2: None,
                accu_var: var.clone(),
                accu_init: init,
                loop_cond: node(Expr::Literal(LiteralValue::Boolean(false.into()))),
                loop_step: node(Expr::Ident(var)),
                result: body,
            }));
        }
        Expr::Comprehension(c) => {
            for e in [
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ] {
                lower_bindings(e);
            }
        }
        Expr::List(l) => l.elements.iter_mut().for_each(lower_bindings),
        Expr::Map(MapExpr { entries }) | Expr::Struct(StructExpr { entries, .. }) => {
            for entry in entries {
                match &mut entry.expr {
                    EntryExpr::MapEntry(m) => {
                        lower_bindings(&mut m.key);
                        lower_bindings(&mut m.value);
                    }
                    EntryExpr::StructField(f) => lower_bindings(&mut f.value),
                }
            }
        }
        Expr::Select(s) => lower_bindings(&mut s.operand),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// The estimated cost of `source` ([`super::resource_cost`]), or why it is not a selector
/// the real server compiles: a parse or check issue (`compilation failed: ...`), or a
/// result other than bool or unknown.
pub fn compiled_cost(source: &str) -> Result<u64, String> {
    // The parser and the checker descend once per nesting level with large frames: run them
    // on a thread with room for the deepest expression the length limit allows.
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(scope, || compile(source))
            .expect("a thread to compile a CEL selector on")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The stack selectors are compiled on (only the pages used are committed).
const STACK: usize = 64 << 20;

fn compile(source: &str) -> Result<u64, String> {
    let program = match env().compile(source) {
        Ok(p) => p,
        Err(e) => {
            let mut text = e.to_string().replace("\n| ", "\n | ");
            if source.is_empty() {
                // cel-go puts the end of an empty source at column 0.
                text = text.replacen("<input>:1:1:", "<input>:1:0:", 1);
            }
            return Err(format!("compilation failed: {text}"));
        }
    };
    let mut lowered = program.expression().clone();
    lower_bindings(&mut lowered);
    let expr = &lowered;
    let (checked, mut errors) = check(expr, &[("device", device().ty())]);
    if !errors.is_empty() {
        let info = program.source_info();
        errors.sort_by_key(|e| info.offset_for(e.id).map_or(u32::MAX, |(s, _)| s));
        let text: Vec<String> = errors
            .iter()
            .map(|e| {
                let at = info.offset_for(e.id).map(|(s, _)| s);
                issue(source, at, &any_in_issue(&e.message))
            })
            .collect();
        return Err(format!("compilation failed: {}", text.join("\n")));
    }
    match checked.type_of(expr.id) {
        Type::Bool | Type::Dyn => Ok(selector_cost(expr, &checked)),
        other => Err(format!(
            "must evaluate to bool or the unknown type, not {}",
            any_in_result(&other.to_string())
        )),
    }
}

/// The errors of `selectors` (a list of `{cel: {expression}}`) at `path`.
pub(super) fn selectors(path: &str, selectors: &Value) -> Errors {
    let mut out = Vec::new();
    for (i, selector) in selectors.as_array().into_iter().flatten().enumerate() {
        let at = index(path, i);
        let cel = &selector["cel"];
        if !cel.is_object() {
            out.push(required(&child(&at, "cel")));
            continue;
        }
        let field = child(&child(&at, "cel"), "expression");
        let expression = cel["expression"].as_str().unwrap_or_default();
        if expression.len() > MAX_EXPRESSION {
            out.push(Cause {
                reason: "FieldValueTooLong".into(),
                message: format!("Too long: may not be more than {MAX_EXPRESSION} bytes"),
                field,
            });
        } else {
            match compiled_cost(expression) {
                Err(why) => out.push(invalid_str(&field, expression, &why)),
                Ok(cost) if cost > MAX_COST => {
                    out.push(forbidden(&field, "too complex, exceeds cost limit"));
                }
                Ok(_) => {}
            }
        }
    }
    out
}

/// A DeviceClass's checks: its selectors.
pub fn device_class(object: &Value) -> Errors {
    selectors("spec.selectors", &object["spec"]["selectors"])
}

/// A request's (or sub-request's) name at `path`: a DNS label.
pub(super) fn request_name(path: &str, request: &Value) -> Errors {
    let name = request["name"].as_str().unwrap_or_default();
    dns1123_label(name)
        .iter()
        .map(|m| invalid_str(&child(path, "name"), name, m))
        .collect()
}

/// The device class a request names at `path`: required, a DNS subdomain.
pub(super) fn device_class_name(path: &str, request: &Value) -> Errors {
    let at = child(path, "deviceClassName");
    match request["deviceClassName"].as_str().unwrap_or_default() {
        "" => vec![required(&at)],
        name => dns1123_subdomain(name)
            .iter()
            .map(|m| invalid_str(&at, name, m))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_that_compile() {
        for ok in [
            "device.driver == \"a\"",
            "device.attributes[\"dra.example.com\"].model == \"m\"",
            "device.attributes[\"dra.example.com\"].model",
            "device.capacity[\"dra.example.com\"].memory.compareTo(quantity(\"1Gi\")) >= 0",
            "has(device.driver)",
            "size(device.attributes) == 1",
            "cel.bind(d, device.driver, d == \"a\" || d == \"b\")",
        ] {
            assert!(compiled_cost(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn selector_errors_in_the_real_words() {
        assert_eq!(
            compiled_cost("device.driver").err().as_deref(),
            Some("must evaluate to bool or the unknown type, not string")
        );
        assert_eq!(
            compiled_cost("device.driver + 1").err().as_deref(),
            Some(
                "compilation failed: ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(string, int)'\n | device.driver + 1\n | ..............^"
            )
        );
        assert_eq!(
            compiled_cost("device + 1").err().as_deref(),
            Some(
                "compilation failed: ERROR: <input>:1:8: found no matching overload for '_+_' applied to '(kubernetes.DRADevice, int)'\n | device + 1\n | .......^"
            )
        );
        assert_eq!(
            compiled_cost("device.allowMultipleAllocations == true")
                .err()
                .as_deref(),
            Some(
                "compilation failed: ERROR: <input>:1:7: undefined field 'allowMultipleAllocations'\n | device.allowMultipleAllocations == true\n | ......^"
            )
        );
        assert_eq!(
            compiled_cost("device.attributes[\"a\"]").err().as_deref(),
            Some("must evaluate to bool or the unknown type, not map(string, google.protobuf.Any)")
        );
        assert!(compiled_cost("device.driver ==").unwrap_err().starts_with(
            "compilation failed: ERROR: <input>:1:17: Syntax error: mismatched input '<EOF>'"
        ));
    }

    /// `[1, 1, ...]` of `n` elements.
    fn list(n: usize) -> String {
        format!("[{}]", vec!["1"; n].join(","))
    }

    /// The smallest `n` for which `template` (its `{L}` a list of `n` elements) costs too
    /// much (the cost grows with `n`), searched up to 4000.
    fn first_refused(template: &str) -> Option<usize> {
        let too_complex = |n: usize| {
            let cost = compiled_cost(&template.replace("{L}", &list(n))).expect("compiles");
            cost > MAX_COST
        };
        let accepted: Vec<usize> = (1..=4000).collect();
        let first = accepted.partition_point(|n| !too_complex(*n)) + 1;
        (first <= 4000).then_some(first)
    }

    #[test]
    fn refused_where_the_real_server_starts_refusing() {
        // Each boundary as kube-apiserver v1.34 answers it: literal lists only, the
        // domains and the names of a domain, their keys, the driver and attribute values.
        let hundred = list(100);
        for (template, first) in [
            ("{L}.all(x, {L}.all(y, true))".to_string(), 576),
            (
                "{L}.all(x, device.attributes.all(d, device.attributes[d].all(a, true)))".into(),
                300,
            ),
            (
                "{L}.all(x, device.attributes.all(d, d.matches(d)))".into(),
                267,
            ),
            (
                "{L}.all(x, device.attributes.all(d, device.attributes[d].all(n, n.matches(n))))"
                    .into(),
                27,
            ),
            (
                format!("{{L}}.all(x, {hundred}.all(y, device.driver.matches(device.driver)))"),
                84,
            ),
            (
                format!(
                    "{{L}}.all(x, {hundred}.all(y, device.attributes[\"a\"].b.matches(device.driver)))"
                ),
                83,
            ),
            (
                format!(
                    "{{L}}.all(x, {hundred}.all(y, device.capacity[\"a\"].b.compareTo(quantity(\"1\")) > 0))"
                ),
                987,
            ),
        ] {
            assert_eq!(first_refused(&template), Some(first), "{template}");
        }
    }

    #[test]
    fn a_domain_reached_by_field_has_no_size() {
        let cost = compiled_cost("device.attributes.a.all(n, true)").expect("compiles");
        assert!(cost > MAX_COST);
        assert!(
            compiled_cost("device.attributes[\"a\"].all(n, true)").expect("compiles") < MAX_COST
        );
    }
}
