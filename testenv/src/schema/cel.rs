//! A subset of CEL for `x-kubernetes-validations` rules (kubebuilder's `XValidation` markers).
//!
//! Supported: literals (int, double, string, bool, null, lists, maps), `self`, `oldSelf`,
//! field selection and indexing, `has()`, `size()`, the operators `! - * / % + < <= > >= ==
//! != in && || ?:`, the string methods `startsWith`, `endsWith`, `contains`, `matches`,
//! `lowerAscii`, `upperAscii`, `trim`, `replace`, `split`, `substring`, `indexOf`,
//! `lastIndexOf`, `size`, the list functions `join`, `indexOf`, `isSorted`, `sum`, `min`,
//! `max`, the list/map macros `all`, `exists`, `exists_one`, `map`, `filter`, and the
//! conversions `int`, `double`, `string`.
//!
//! A rule that does not parse or uses something outside this subset is not enforced (the
//! object is accepted): a test server must never reject what a real one accepts. The one
//! run-time error reported, as the real server does, is `no such key` (a rule reading a
//! field that is absent without guarding it with `has()`).

use serde_json::{Map, Value};
use std::collections::HashMap;

/// Why an expression could not be evaluated; such a rule is skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CelError(String);

impl CelError {
    /// Whether this is CEL's `no such key` runtime error (a field or map key that is not
    /// there), which the real server reports instead of skipping the rule.
    pub fn is_no_such_key(&self) -> bool {
        self.0.starts_with("no such key: ")
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, CelError> {
    Err(CelError(msg.into()))
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Int(i64),
    Double(f64),
    Str(String),
    Ident(String),
    Op(&'static str),
}

const OPS: &[&str] = &[
    "&&", "||", "==", "!=", "<=", ">=", "<", ">", "!", "+", "-", "*", "/", "%", "?", ":", ".", ",",
    "(", ")", "[", "]", "{", "}",
];

fn lex(src: &str) -> Result<Vec<Tok>, CelError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                // stop before a method call on an integer literal like `1.size()`
                if chars[i] == '.' && !chars.get(i + 1).is_some_and(char::is_ascii_digit) {
                    break;
                }
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let text = text.trim_end_matches(['u', 'U']);
            if let Some(hex) = text.strip_prefix("0x") {
                out.push(Tok::Int(
                    i64::from_str_radix(hex, 16).map_err(|e| CelError(e.to_string()))?,
                ));
            } else if text.contains(['.', 'e', 'E']) {
                out.push(Tok::Double(
                    text.parse()
                        .map_err(|_| CelError(format!("bad number {text}")))?,
                ));
            } else {
                out.push(Tok::Int(
                    text.parse()
                        .map_err(|_| CelError(format!("bad number {text}")))?,
                ));
            }
            continue;
        }
        if c == '"' || c == '\'' {
            let quote = c;
            let raw = i > 0
                && matches!(chars[i - 1], 'r' | 'R')
                && matches!(out.last(), Some(Tok::Ident(id)) if id == "r" || id == "R");
            if raw {
                out.pop();
            }
            i += 1;
            let mut s = String::new();
            while i < chars.len() && chars[i] != quote {
                if chars[i] == '\\' && !raw {
                    i += 1;
                    match chars.get(i) {
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some('r') => s.push('\r'),
                        Some(&other) => s.push(other),
                        None => return err("unterminated string"),
                    }
                } else {
                    s.push(chars[i]);
                }
                i += 1;
            }
            if i >= chars.len() {
                return err("unterminated string");
            }
            i += 1;
            out.push(Tok::Str(s));
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(chars[start..i].iter().collect()));
            continue;
        }
        let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
        match OPS.iter().find(|op| rest.starts_with(**op)) {
            Some(op) => {
                out.push(Tok::Op(op));
                i += op.len();
            }
            None => return err(format!("unexpected character {c:?}")),
        }
    }
    Ok(out)
}

/// A parsed expression.
#[derive(Debug, Clone)]
enum Expr {
    Lit(Value),
    Ident(String),
    Select(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    Call(Option<Box<Expr>>, String, Vec<Expr>),
    Unary(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    List(Vec<Expr>),
    MapLit(Vec<(Expr, Expr)>),
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

impl Parser {
    fn peek_op(&self, op: &str) -> bool {
        matches!(self.toks.get(self.pos), Some(Tok::Op(o)) if *o == op)
    }

    fn eat(&mut self, op: &str) -> bool {
        if self.peek_op(op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, op: &str) -> Result<(), CelError> {
        if self.eat(op) {
            Ok(())
        } else {
            err(format!("expected {op}"))
        }
    }

    fn expr(&mut self) -> Result<Expr, CelError> {
        let c = self.binary(0)?;
        if self.eat("?") {
            let a = self.expr()?;
            self.expect(":")?;
            let b = self.expr()?;
            return Ok(Expr::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    fn binary(&mut self, level: usize) -> Result<Expr, CelError> {
        const LEVELS: &[&[&str]] = &[
            &["||"],
            &["&&"],
            &["==", "!=", "<", "<=", ">", ">=", "in"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        loop {
            let op = match self.toks.get(self.pos) {
                Some(Tok::Op(o)) if LEVELS[level].contains(o) => *o,
                Some(Tok::Ident(i)) if i == "in" && LEVELS[level].contains(&"in") => "in",
                _ => break,
            };
            self.pos += 1;
            let right = self.binary(level + 1)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, CelError> {
        if self.eat("!") {
            return Ok(Expr::Unary("!", Box::new(self.unary()?)));
        }
        if self.eat("-") {
            return Ok(Expr::Unary("-", Box::new(self.unary()?)));
        }
        self.member()
    }

    fn args(&mut self, close: &str) -> Result<Vec<Expr>, CelError> {
        let mut args = Vec::new();
        if self.eat(close) {
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if self.eat(close) {
                return Ok(args);
            }
            self.expect(",")?;
        }
    }

    fn member(&mut self) -> Result<Expr, CelError> {
        let mut e = self.primary()?;
        loop {
            if self.eat(".") {
                let Some(Tok::Ident(name)) = self.toks.get(self.pos).cloned() else {
                    return err("expected a field name");
                };
                self.pos += 1;
                if self.eat("(") {
                    let args = self.args(")")?;
                    e = Expr::Call(Some(Box::new(e)), name, args);
                } else {
                    e = Expr::Select(Box::new(e), name);
                }
            } else if self.eat("[") {
                let i = self.expr()?;
                self.expect("]")?;
                e = Expr::Index(Box::new(e), Box::new(i));
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, CelError> {
        let Some(tok) = self.toks.get(self.pos).cloned() else {
            return err("unexpected end of expression");
        };
        self.pos += 1;
        match tok {
            Tok::Int(i) => Ok(Expr::Lit(Value::from(i))),
            Tok::Double(d) => Ok(Expr::Lit(Value::from(d))),
            Tok::Str(s) => Ok(Expr::Lit(Value::from(s))),
            Tok::Ident(id) => match id.as_str() {
                "true" => Ok(Expr::Lit(Value::Bool(true))),
                "false" => Ok(Expr::Lit(Value::Bool(false))),
                "null" => Ok(Expr::Lit(Value::Null)),
                _ if self.eat("(") => {
                    let args = self.args(")")?;
                    Ok(Expr::Call(None, id, args))
                }
                _ => Ok(Expr::Ident(id)),
            },
            Tok::Op("(") => {
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Op("[") => Ok(Expr::List(self.args("]")?)),
            Tok::Op("{") => {
                let mut entries = Vec::new();
                if !self.eat("}") {
                    loop {
                        let k = self.expr()?;
                        self.expect(":")?;
                        let v = self.expr()?;
                        entries.push((k, v));
                        if self.eat("}") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                Ok(Expr::MapLit(entries))
            }
            other => err(format!("unexpected token {other:?}")),
        }
    }
}

/// A parsed rule, ready to evaluate against many values.
#[derive(Debug, Clone)]
pub struct Program {
    expr: Expr,
    /// Whether the rule refers to `oldSelf` (a transition rule, only checked on update).
    pub uses_old_self: bool,
}

/// Parses a CEL expression of the supported subset.
pub fn compile(src: &str) -> Result<Program, CelError> {
    let toks = lex(src)?;
    let uses_old_self = toks.iter().any(|t| *t == Tok::Ident("oldSelf".into()));
    let mut p = Parser { toks, pos: 0 };
    let expr = p.expr()?;
    if p.pos != p.toks.len() {
        return err("unexpected trailing input");
    }
    Ok(Program {
        expr,
        uses_old_self,
    })
}

/// Evaluates `program` with `self` (and `oldSelf`) bound; the result must be a boolean.
pub fn eval_bool(
    program: &Program,
    self_value: &Value,
    old_self: Option<&Value>,
) -> Result<bool, CelError> {
    match eval(program, self_value, old_self)? {
        Value::Bool(b) => Ok(b),
        other => err(format!("rule returned {other}, not a bool")),
    }
}

/// Evaluates `program` with `self` (and `oldSelf`) bound and returns its value (used for
/// `messageExpression`).
pub fn eval(
    program: &Program,
    self_value: &Value,
    old_self: Option<&Value>,
) -> Result<Value, CelError> {
    let mut env = HashMap::new();
    env.insert("self".to_string(), self_value.clone());
    if let Some(old) = old_self {
        env.insert("oldSelf".to_string(), old.clone());
    }
    eval_expr(&program.expr, &mut env)
}

type Env = HashMap<String, Value>;

fn truthy(v: Value) -> Result<bool, CelError> {
    v.as_bool()
        .ok_or_else(|| CelError(format!("{v} is not a bool")))
}

fn eval_expr(e: &Expr, env: &mut Env) -> Result<Value, CelError> {
    match e {
        Expr::Lit(v) => Ok(v.clone()),
        Expr::Ident(id) => env
            .get(id)
            .cloned()
            .ok_or_else(|| CelError(format!("undeclared reference to '{id}'"))),
        Expr::List(items) => Ok(Value::Array(
            items
                .iter()
                .map(|i| eval_expr(i, env))
                .collect::<Result<_, _>>()?,
        )),
        Expr::MapLit(entries) => {
            let mut m = Map::new();
            for (k, v) in entries {
                let Value::String(k) = eval_expr(k, env)? else {
                    return err("only string map keys are supported");
                };
                m.insert(k, eval_expr(v, env)?);
            }
            Ok(Value::Object(m))
        }
        Expr::Select(target, field) => match eval_expr(target, env)? {
            Value::Object(m) => m
                .get(field)
                .cloned()
                .ok_or_else(|| CelError(format!("no such key: {field}"))),
            other => err(format!("cannot select {field} from {other}")),
        },
        Expr::Index(target, index) => {
            let t = eval_expr(target, env)?;
            let i = eval_expr(index, env)?;
            match (t, i) {
                (Value::Array(a), Value::Number(n)) => n
                    .as_i64()
                    .and_then(|i| usize::try_from(i).ok())
                    .and_then(|i| a.get(i).cloned())
                    .ok_or_else(|| CelError("index out of range".into())),
                (Value::Object(m), Value::String(k)) => m
                    .get(&k)
                    .cloned()
                    .ok_or_else(|| CelError(format!("no such key: {k}"))),
                _ => err("invalid index"),
            }
        }
        Expr::Unary(op, inner) => {
            let v = eval_expr(inner, env)?;
            match (*op, v) {
                ("!", Value::Bool(b)) => Ok(Value::Bool(!b)),
                ("-", Value::Number(n)) => match n.as_i64() {
                    Some(i) => Ok(Value::from(
                        i.checked_neg().ok_or_else(|| CelError("overflow".into()))?,
                    )),
                    None => Ok(Value::from(-n.as_f64().unwrap_or(0.0))),
                },
                _ => err("invalid operand"),
            }
        }
        Expr::Cond(c, a, b) => {
            if truthy(eval_expr(c, env)?)? {
                eval_expr(a, env)
            } else {
                eval_expr(b, env)
            }
        }
        Expr::Binary(op, l, r) => binary(op, l, r, env),
        Expr::Call(target, name, args) => call(target.as_deref(), name, args, env),
    }
}

fn binary(op: &str, l: &Expr, r: &Expr, env: &mut Env) -> Result<Value, CelError> {
    if op == "&&" || op == "||" {
        let decisive = op == "||";
        let left = eval_expr(l, env).and_then(truthy);
        if left == Ok(decisive) {
            return Ok(Value::Bool(decisive));
        }
        let right = eval_expr(r, env).and_then(truthy);
        return match (left, right) {
            (_, Ok(b)) if b == decisive => Ok(Value::Bool(decisive)),
            (Ok(_), Ok(b)) => Ok(Value::Bool(b)),
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
    }
    let a = eval_expr(l, env)?;
    let b = eval_expr(r, env)?;
    match op {
        "==" => Ok(Value::Bool(super::validate::json_eq(&a, &b))),
        "!=" => Ok(Value::Bool(!super::validate::json_eq(&a, &b))),
        "in" => match b {
            Value::Array(list) => Ok(Value::Bool(
                list.iter().any(|x| super::validate::json_eq(x, &a)),
            )),
            Value::Object(m) => match a {
                Value::String(k) => Ok(Value::Bool(m.contains_key(&k))),
                _ => err("map keys are strings"),
            },
            _ => err("'in' needs a list or map"),
        },
        "<" | "<=" | ">" | ">=" => {
            let ord = match (&a, &b) {
                (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
                    (Some(i), Some(j)) => i.cmp(&j),
                    _ => x
                        .as_f64()
                        .partial_cmp(&y.as_f64())
                        .ok_or_else(|| CelError("NaN".into()))?,
                },
                (Value::String(x), Value::String(y)) => x.cmp(y),
                (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
                _ => return err("values are not comparable"),
            };
            use std::cmp::Ordering::*;
            Ok(Value::Bool(match op {
                "<" => ord == Less,
                "<=" => ord != Greater,
                ">" => ord == Greater,
                _ => ord != Less,
            }))
        }
        "+" => match (a, b) {
            (Value::String(x), Value::String(y)) => Ok(Value::from(x + &y)),
            (Value::Array(mut x), Value::Array(y)) => {
                x.extend(y);
                Ok(Value::Array(x))
            }
            (Value::Number(x), Value::Number(y)) => arith(op, &x, &y),
            _ => err("invalid operands for +"),
        },
        _ => match (a, b) {
            (Value::Number(x), Value::Number(y)) => arith(op, &x, &y),
            _ => err(format!("invalid operands for {op}")),
        },
    }
}

/// `a <= b` for numbers and strings.
fn le(a: &Value, b: &Value) -> Result<bool, CelError> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => Ok(i <= j),
            _ => Ok(x.as_f64() <= y.as_f64()),
        },
        (Value::String(x), Value::String(y)) => Ok(x <= y),
        _ => err("values are not comparable"),
    }
}

fn arith(op: &str, x: &serde_json::Number, y: &serde_json::Number) -> Result<Value, CelError> {
    if let (Some(i), Some(j)) = (x.as_i64(), y.as_i64()) {
        let r = match op {
            "+" => i.checked_add(j),
            "-" => i.checked_sub(j),
            "*" => i.checked_mul(j),
            "/" => i.checked_div(j),
            "%" => i.checked_rem(j),
            _ => None,
        };
        return r
            .map(Value::from)
            .ok_or_else(|| CelError("integer overflow or division by zero".into()));
    }
    let (i, j) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
    let r = match op {
        "+" => i + j,
        "-" => i - j,
        "*" => i * j,
        "/" => i / j,
        _ => return err("% needs integers"),
    };
    Ok(Value::from(r))
}

fn size_of(v: &Value) -> Result<Value, CelError> {
    Ok(Value::from(match v {
        Value::String(s) => s.chars().count() as i64,
        Value::Array(a) => a.len() as i64,
        Value::Object(m) => m.len() as i64,
        _ => return err("size() of a scalar"),
    }))
}

fn call(
    target: Option<&Expr>,
    name: &str,
    args: &[Expr],
    env: &mut Env,
) -> Result<Value, CelError> {
    if target.is_none() && name == "has" {
        let [Expr::Select(obj, field)] = args else {
            return err("has() needs a field selection");
        };
        return match eval_expr(obj, env)? {
            Value::Object(m) => Ok(Value::Bool(m.contains_key(field))),
            _ => err("has() on a non-object"),
        };
    }
    if let Some(t) = target
        && matches!(name, "all" | "exists" | "exists_one" | "map" | "filter")
    {
        return macro_call(t, name, args, env);
    }
    let recv = match target {
        Some(t) => Some(eval_expr(t, env)?),
        None => None,
    };
    let vals: Vec<Value> = args
        .iter()
        .map(|a| eval_expr(a, env))
        .collect::<Result<_, _>>()?;
    let s = |v: &Value| -> Result<String, CelError> {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| CelError("expected a string".into()))
    };
    match (recv.as_ref(), name, vals.as_slice()) {
        (Some(r), "size", []) | (None, "size", [r]) => size_of(r),
        (Some(r), "startsWith", [p]) => Ok(Value::Bool(s(r)?.starts_with(&s(p)?))),
        (Some(r), "endsWith", [p]) => Ok(Value::Bool(s(r)?.ends_with(&s(p)?))),
        (Some(r), "contains", [p]) => Ok(Value::Bool(s(r)?.contains(&s(p)?))),
        (Some(r), "matches", [p]) | (None, "matches", [r, p]) => {
            super::validate::pattern_matches(&s(p)?, &s(r)?)
                .map(Value::Bool)
                .ok_or_else(|| CelError("invalid regular expression".into()))
        }
        (Some(r), "lowerAscii", []) => Ok(Value::from(s(r)?.to_ascii_lowercase())),
        (Some(r), "upperAscii", []) => Ok(Value::from(s(r)?.to_ascii_uppercase())),
        (Some(r), "trim", []) => Ok(Value::from(s(r)?.trim())),
        (Some(r), "replace", [from, to]) => Ok(Value::from(s(r)?.replace(&s(from)?, &s(to)?))),
        (Some(r), "split", [sep]) => Ok(Value::Array(
            s(r)?.split(&s(sep)?).map(Value::from).collect(),
        )),
        (Some(Value::Array(items)), "join", []) | (Some(Value::Array(items)), "join", [_]) => {
            let sep = match vals.first() {
                Some(v) => s(v)?,
                None => String::new(),
            };
            let parts: Vec<String> = items.iter().map(s).collect::<Result<_, _>>()?;
            Ok(Value::from(parts.join(&sep)))
        }
        (Some(Value::String(t)), "indexOf", [p]) => Ok(Value::from(
            t.find(&s(p)?).map_or(-1, |b| t[..b].chars().count() as i64),
        )),
        (Some(Value::String(t)), "lastIndexOf", [p]) => Ok(Value::from(
            t.rfind(&s(p)?)
                .map_or(-1, |b| t[..b].chars().count() as i64),
        )),
        (Some(Value::String(t)), "substring", [a])
        | (Some(Value::String(t)), "substring", [a, _]) => {
            let chars: Vec<char> = t.chars().collect();
            let start = a.as_i64().ok_or_else(|| CelError("bad index".into()))?;
            let end = match vals.get(1) {
                Some(e) => e.as_i64().ok_or_else(|| CelError("bad index".into()))?,
                None => chars.len() as i64,
            };
            if start < 0 || end < start || end > chars.len() as i64 {
                return err("substring index out of range");
            }
            Ok(Value::from(
                chars[start as usize..end as usize]
                    .iter()
                    .collect::<String>(),
            ))
        }
        (Some(Value::Array(items)), "indexOf", [x]) => Ok(Value::from(
            items
                .iter()
                .position(|i| super::validate::json_eq(i, x))
                .map_or(-1, |p| p as i64),
        )),
        (Some(Value::Array(items)), "isSorted", []) => Ok(Value::Bool(
            items.windows(2).all(|w| le(&w[0], &w[1]).unwrap_or(false)),
        )),
        (Some(Value::Array(items)), "sum", []) => {
            items
                .iter()
                .try_fold(Value::from(0), |acc, x| match (acc, x) {
                    (Value::Number(a), Value::Number(b)) => arith("+", &a, b),
                    _ => err("sum() of non-numbers"),
                })
        }
        (Some(Value::Array(items)), "min" | "max", []) => {
            let want_min = name == "min";
            let mut best: Option<&Value> = None;
            for x in items {
                best = Some(match best {
                    None => x,
                    Some(b) => {
                        let x_first = le(x, b)?;
                        if x_first == want_min { x } else { b }
                    }
                });
            }
            best.cloned()
                .ok_or_else(|| CelError("min/max of an empty list".into()))
        }
        (None, "int", [v]) => match v {
            Value::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| f.trunc() as i64))
                .map(Value::from)
                .ok_or_else(|| CelError("bad int".into())),
            Value::String(t) => t
                .parse::<i64>()
                .map(Value::from)
                .map_err(|e| CelError(e.to_string())),
            _ => err("bad int()"),
        },
        (None, "double", [v]) => match v {
            Value::Number(n) => Ok(Value::from(n.as_f64().unwrap_or(0.0))),
            Value::String(t) => t
                .parse::<f64>()
                .map(Value::from)
                .map_err(|e| CelError(e.to_string())),
            _ => err("bad double()"),
        },
        (None, "string", [v]) => Ok(Value::from(match v {
            Value::String(t) => t.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => return err("bad string()"),
        })),
        _ => err(format!("unsupported function {name}")),
    }
}

fn macro_call(target: &Expr, name: &str, args: &[Expr], env: &mut Env) -> Result<Value, CelError> {
    let [Expr::Ident(var), body] = args else {
        return err(format!("{name}() needs a variable and an expression"));
    };
    let items: Vec<Value> = match eval_expr(target, env)? {
        Value::Array(a) => a,
        Value::Object(m) => m.keys().map(|k| Value::from(k.as_str())).collect(),
        _ => return err(format!("{name}() on a scalar")),
    };
    let saved = env.get(var).cloned();
    let run = |item: &Value, env: &mut Env| {
        env.insert(var.clone(), item.clone());
        eval_expr(body, env)
    };
    let result = (|| -> Result<Value, CelError> {
        match name {
            "all" | "exists" => {
                let want = name == "exists";
                let mut first_err = None;
                for item in &items {
                    match run(item, env).and_then(truthy) {
                        Ok(b) if b == want => return Ok(Value::Bool(want)),
                        Ok(_) => {}
                        Err(e) => first_err = first_err.or(Some(e)),
                    }
                }
                match first_err {
                    Some(e) => Err(e),
                    None => Ok(Value::Bool(!want)),
                }
            }
            "exists_one" => {
                let mut n = 0;
                for item in &items {
                    if truthy(run(item, env)?)? {
                        n += 1;
                    }
                }
                Ok(Value::Bool(n == 1))
            }
            "map" => Ok(Value::Array(
                items
                    .iter()
                    .map(|i| run(i, env))
                    .collect::<Result<_, _>>()?,
            )),
            _ => {
                let mut out = Vec::new();
                for item in items.iter() {
                    if truthy(run(item, env)?)? {
                        out.push(item.clone());
                    }
                }
                Ok(Value::Array(out))
            }
        }
    })();
    match saved {
        Some(v) => env.insert(var.clone(), v),
        None => env.remove(var),
    };
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(rule: &str, value: Value) -> Result<bool, CelError> {
        eval_bool(&compile(rule)?, &value, None)
    }

    #[test]
    fn evaluates_common_kubebuilder_rules() {
        let v = json!({"min": 1, "max": 5, "name": "web-1", "items": [1, 2, 3], "labels": {"a": "x"}, "ratio": 0.5});
        for (rule, want) in [
            ("self.min <= self.max", true),
            ("self.min > self.max", false),
            ("has(self.name) && self.name.startsWith('web')", true),
            ("!has(self.other) || self.other > 0", true),
            ("size(self.items) <= 3 && self.items.size() == 3", true),
            ("self.items.all(i, i > 0)", true),
            ("self.items.exists(i, i > 2)", true),
            ("self.items.exists_one(i, i == 2)", true),
            ("self.items.filter(i, i > 1).size() == 2", true),
            ("self.items.map(i, i * 2)[2] == 6", true),
            ("'a' in self.labels && !('b' in self.labels)", true),
            ("2 in self.items", true),
            ("self.name.matches('^[a-z]+-[0-9]+$')", true),
            ("self.ratio < 1.0 && self.ratio >= 0.5", true),
            ("self.min == 1 ? self.max == 5 : false", true),
            ("(self.max - self.min) % 2 == 0", true),
            ("self.name + '!' == \"web-1!\"", true),
            ("self.labels.all(k, self.labels[k] == 'x')", true),
            ("int('3') == 3 && string(3) == '3'", true),
            (r#"self.name.matches(r"^web-\d$")"#, true),
            (
                "self.name.split('-')[1] == '1' && self.name.indexOf('-') == 3",
                true,
            ),
            (
                "self.name.substring(0, 3) == 'web' && ' x '.trim() == 'x'",
                true,
            ),
            (
                "['a', 'b'].join(',') == 'a,b' && self.name.replace('-', '_') == 'web_1'",
                true,
            ),
            (
                "self.items.isSorted() && self.items.sum() == 6 && self.items.max() == 3",
                true,
            ),
            ("self.items.min() == 1 && self.items.indexOf(3) == 2", true),
        ] {
            assert_eq!(check(rule, v.clone()), Ok(want), "{rule}");
        }
        // errors do not become verdicts
        assert!(check("self.missing > 1", v.clone()).is_err());
        assert!(check("self.name.unknownFn()", v.clone()).is_err());
        assert!(compile("self.min <=").is_err());
        // an error on one side of || is absorbed by a true other side
        assert_eq!(check("self.missing > 1 || true", v), Ok(true));
    }

    #[test]
    fn transition_rules() {
        let p = compile("self == oldSelf").unwrap();
        assert!(p.uses_old_self);
        assert_eq!(eval_bool(&p, &json!("a"), Some(&json!("a"))), Ok(true));
        assert_eq!(eval_bool(&p, &json!("a"), Some(&json!("b"))), Ok(false));
        assert!(!compile("self.x > 0").unwrap().uses_old_self);
    }
}
