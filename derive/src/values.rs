//! The values written in `#[kubeforge(...)]` attributes: literals turned into JSON, strings,
//! flags and lists, and the check that a literal fits the field it is written on.

use proc_macro2::Span;
use serde_json::{Value, json};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Expr, Lit, LitStr, UnOp};

use crate::types::Shape;

pub fn err<T>(span: Span, msg: impl std::fmt::Display) -> syn::Result<T> {
    Err(syn::Error::new(span, msg))
}

/// Turns a literal expression (`1`, `-2.5`, `"x"`, `true`) into JSON.
pub fn literal_json(expr: &Expr) -> syn::Result<Value> {
    match expr {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => {
                if let Ok(v) = i.base10_parse::<i64>() {
                    Ok(json!(v))
                } else {
                    Ok(json!(i.base10_parse::<u64>()?))
                }
            }
            Lit::Float(f) => {
                let v: f64 = f.base10_parse()?;
                serde_json::Number::from_f64(v)
                    .map(Value::Number)
                    .ok_or_else(|| syn::Error::new(f.span(), "not a finite number"))
            }
            Lit::Str(s) => Ok(Value::String(s.value())),
            Lit::Bool(b) => Ok(Value::Bool(b.value)),
            other => err(other.span(), "expected a number, string or boolean literal"),
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match literal_json(&u.expr)? {
            Value::Number(n) if n.is_i64() => Ok(json!(-n.as_i64().unwrap_or_default())),
            Value::Number(n) => Ok(json!(-n.as_f64().unwrap_or_default())),
            _ => err(u.span(), "only numbers can be negated"),
        },
        Expr::Array(a) => Ok(Value::Array(
            a.elems
                .iter()
                .map(literal_json)
                .collect::<syn::Result<_>>()?,
        )),
        Expr::Path(p) if p.path.is_ident("null") => Ok(Value::Null),
        other => err(
            other.span(),
            "expected a literal (number, string, boolean, null or [..]); use `default_json = \"...\"` for objects",
        ),
    }
}

pub fn number(meta: &ParseNestedMeta) -> syn::Result<Value> {
    let expr: Expr = meta.value()?.parse()?;
    match literal_json(&expr)? {
        v @ Value::Number(_) => Ok(v),
        _ => err(expr.span(), "expected a number"),
    }
}

pub fn non_negative(meta: &ParseNestedMeta) -> syn::Result<Value> {
    let expr: Expr = meta.value()?.parse()?;
    match literal_json(&expr)? {
        Value::Number(n) if n.as_u64().is_some() => Ok(Value::Number(n)),
        _ => err(expr.span(), "expected a non-negative integer"),
    }
}

pub fn string(meta: &ParseNestedMeta) -> syn::Result<LitStr> {
    meta.value()?.parse()
}

pub fn json_text(meta: &ParseNestedMeta) -> syn::Result<Value> {
    let s = string(meta)?;
    serde_json::from_str(&s.value())
        .map_err(|e| syn::Error::new(s.span(), format!("invalid JSON: {e}")))
}

/// An optional `= true|false` after a flag (`nullable`, `nullable = true`).
pub fn flag(meta: &ParseNestedMeta) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) {
        let b: syn::LitBool = meta.value()?.parse()?;
        Ok(b.value)
    } else {
        Ok(true)
    }
}

pub fn string_list(meta: &ParseNestedMeta) -> syn::Result<Vec<LitStr>> {
    let expr: Expr = meta.value()?.parse()?;
    let items = match &expr {
        Expr::Array(a) => a.elems.iter().collect::<Vec<_>>(),
        Expr::Lit(_) => vec![&expr],
        _ => return err(expr.span(), "expected a string or a list of strings"),
    };
    items
        .into_iter()
        .map(|e| match e {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => Ok(s.clone()),
            other => err(other.span(), "expected a string"),
        })
        .collect()
}

/// Rejects a literal (default, example, enum value) whose JSON type cannot be the field's.
pub fn check_literal(span: Span, key: &str, shape: &Shape, value: &Value) -> syn::Result<()> {
    let ok = match (shape, value) {
        (Shape::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
        (Shape::Number, Value::Number(_)) => true,
        (Shape::String, Value::String(_)) => true,
        (Shape::Boolean, Value::Bool(_)) => true,
        (Shape::IntOrString, Value::String(_)) => true,
        (Shape::IntOrString, Value::Number(n)) => n.is_i64(),
        (Shape::List(_), Value::Array(_)) => true,
        (Shape::Map(_), Value::Object(_)) => true,
        (Shape::Other | Shape::Any, _) => true,
        (_, Value::Null) => true,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        err(
            span,
            format!(
                "`{key}` value {value} does not fit a field that is {}",
                shape.describe()
            ),
        )
    }
}
