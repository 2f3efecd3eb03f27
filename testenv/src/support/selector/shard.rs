//! `shardSelector` (KEP-5866, alpha in Kubernetes v1.36 behind the `ShardedListAndWatch`
//! feature gate): `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`,
//! several joined with `||`. An object matches when the 64-bit FNV-1a hash of the named field
//! (`object.metadata.uid` or `object.metadata.namespace`; absent hashes as the empty string)
//! falls in one of the ranges `[start, end)`.
//!
//! The expression is a small subset of CEL, read as kube-apiserver reads it (parsed, never
//! evaluated): only `shardRange(path, 'hex', 'hex')` calls and `||`; every range over the same
//! field; bounds are single- or double-quoted string literals of `0x` and exactly 16 lowercase
//! hex digits, or `0x10000000000000000` (2^64) as an end; start below end. The error messages
//! follow kube-apiserver's (`invalid shard selector: ...`); where they come from CEL's own
//! parser (a syntax error) the wording is this parser's.

use serde_json::Value;

/// The field a shard selector hashes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardField {
    /// `object.metadata.uid`
    Uid,
    /// `object.metadata.namespace`
    Namespace,
}

/// A parsed `shardSelector`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardSelector {
    /// The hashed field (the same for every range).
    pub field: ShardField,
    /// `[start, end)` ranges of the 64-bit hash space (`end` up to 2^64).
    pub ranges: Vec<(u128, u128)>,
}

/// 64-bit FNV-1a (Go's `hash/fnv.New64a`).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl ShardSelector {
    /// Parses a selector; the error is the message of kube-apiserver's 400 Bad Request.
    pub fn parse(expr: &str) -> Result<Self, String> {
        parse(expr).map_err(|e| format!("invalid shard selector: {e}"))
    }

    /// Whether `object`'s hashed field falls in one of the ranges.
    pub fn matches(&self, object: &Value) -> bool {
        let value = match self.field {
            ShardField::Uid => &object["metadata"]["uid"],
            ShardField::Namespace => &object["metadata"]["namespace"],
        };
        let hash = u128::from(fnv1a64(value.as_str().unwrap_or_default().as_bytes()));
        self.ranges.iter().any(|(s, e)| *s <= hash && hash < *e)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Str(String),
    Int(String),
    Dot,
    Comma,
    Open,
    Close,
    Or,
    Other(String),
}

fn tokens(expr: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = expr.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '.' => {
                out.push(Token::Dot);
                i += 1;
            }
            ',' => {
                out.push(Token::Comma);
                i += 1;
            }
            '(' => {
                out.push(Token::Open);
                i += 1;
            }
            ')' => {
                out.push(Token::Close);
                i += 1;
            }
            '|' if chars.get(i + 1) == Some(&'|') => {
                out.push(Token::Or);
                i += 2;
            }
            '&' if chars.get(i + 1) == Some(&'&') => {
                out.push(Token::Other("_&&_".into()));
                i += 2;
            }
            '\'' | '"' => {
                let quote = c;
                let mut value = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => {
                            return Err(format!(
                                "CEL parse error: unterminated string literal starting at position {}",
                                out.len()
                            ));
                        }
                        Some('\\') => {
                            if let Some(next) = chars.get(i + 1) {
                                value.push(*next);
                            }
                            i += 2;
                        }
                        Some(q) if *q == quote => {
                            i += 1;
                            break;
                        }
                        Some(other) => {
                            value.push(*other);
                            i += 1;
                        }
                    }
                }
                out.push(Token::Str(value));
            }
            c if c.is_ascii_digit() => {
                let start = i;
                while chars.get(i).is_some_and(char::is_ascii_alphanumeric) {
                    i += 1;
                }
                out.push(Token::Int(chars[start..i].iter().collect()));
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_')
                {
                    i += 1;
                }
                out.push(Token::Ident(chars[start..i].iter().collect()));
            }
            other => {
                return Err(format!(
                    "CEL parse error: Syntax error: token recognition error at: '{other}'"
                ));
            }
        }
    }
    Ok(out)
}

/// A parsed operand: what CEL's AST would call it.
#[derive(Debug)]
enum Expr {
    Call(String, Vec<Expr>),
    Path(String),
    Str(String),
    /// A number (not a string literal: refused as a bound).
    Int,
    Or(Box<Expr>, Box<Expr>),
}

impl Expr {
    fn kind(&self) -> &'static str {
        match self {
            Expr::Call(..) | Expr::Or(..) => "CallKind",
            Expr::Path(p) if p.contains('.') => "SelectKind",
            Expr::Path(_) => "IdentKind",
            Expr::Str(_) | Expr::Int => "LiteralKind",
        }
    }
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn expect(&mut self, want: Token, what: &str) -> Result<(), String> {
        match self.next() {
            Some(t) if t == want => Ok(()),
            Some(t) => Err(format!(
                "CEL parse error: Syntax error: expected {what}, found {t:?}"
            )),
            None => Err(format!(
                "CEL parse error: Syntax error: expected {what} at the end"
            )),
        }
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut left = self.primary()?;
        loop {
            match self.peek() {
                Some(Token::Or) => {
                    self.next();
                    let right = self.primary()?;
                    left = Expr::Or(Box::new(left), Box::new(right));
                }
                Some(Token::Other(op)) => {
                    let op = op.clone();
                    self.next();
                    let right = self.primary()?;
                    left = Expr::Call(op, vec![left, right]);
                }
                _ => return Ok(left),
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, String> {
        match self.next() {
            Some(Token::Open) => {
                let inner = self.or()?;
                self.expect(Token::Close, "')'")?;
                Ok(inner)
            }
            Some(Token::Str(s)) => Ok(Expr::Str(s)),
            Some(Token::Int(_)) => Ok(Expr::Int),
            Some(Token::Ident(first)) => {
                if self.peek() == Some(&Token::Open) {
                    self.next();
                    let mut args = Vec::new();
                    if self.peek() != Some(&Token::Close) {
                        loop {
                            args.push(self.or()?);
                            match self.next() {
                                Some(Token::Comma) => {}
                                Some(Token::Close) => break,
                                _ => {
                                    return Err(
                                        "CEL parse error: Syntax error: expected ',' or ')' in the argument list"
                                            .into(),
                                    );
                                }
                            }
                        }
                    } else {
                        self.next();
                    }
                    return Ok(Expr::Call(first, args));
                }
                let mut path = first;
                while self.peek() == Some(&Token::Dot) {
                    self.next();
                    match self.next() {
                        Some(Token::Ident(field)) => {
                            path.push('.');
                            path.push_str(&field);
                        }
                        _ => {
                            return Err(
                                "CEL parse error: Syntax error: expected a field name after '.'"
                                    .into(),
                            );
                        }
                    }
                }
                Ok(Expr::Path(path))
            }
            Some(t) => Err(format!("CEL parse error: Syntax error: unexpected {t:?}")),
            None => Err("CEL parse error: Syntax error: unexpected end of expression".into()),
        }
    }
}

/// `0x` + 16 lowercase hex digits, or `0x10000000000000000`; the value.
fn hex_literal(e: &Expr, name: &str) -> Result<(String, u128), String> {
    let s = match e {
        Expr::Str(s) => s,
        Expr::Int => return Err(format!("{name} must be a string literal, got int64")),
        other => {
            return Err(format!(
                "{name} must be a string literal (e.g. '0xff'), got expression kind {}",
                other.kind()
            ));
        }
    };
    let Some(hex) = s.strip_prefix("0x") else {
        return Err(format!("{name} must have '0x' prefix, got {s:?}"));
    };
    if hex.is_empty() {
        return Err(format!("{name}: hex value is required after '0x'"));
    }
    if hex.len() > 17 {
        return Err(format!(
            "{name}: hex value too long ({} chars, max 17): {hex:?}",
            hex.len()
        ));
    }
    if let Some(c) = hex.chars().find(|c| !matches!(c, '0'..='9' | 'a'..='f')) {
        return Err(format!(
            "{name}: invalid hex character {:?} in {s:?}",
            c.to_string()
        ));
    }
    if hex.len() == 17 {
        if s != "0x10000000000000000" {
            return Err(format!(
                "{name}: 17-digit hex value must be '0x10000000000000000' (2^64), got {s:?}"
            ));
        }
    } else if hex.len() != 16 {
        let padded = format!("0x{hex:0>16}");
        return Err(format!(
            "{name} must be a 0x-prefixed 16-digit hex value, got {s:?} (did you mean {padded:?}?)"
        ));
    }
    let value = u128::from_str_radix(hex, 16).map_err(|e| format!("{name}: {e}"))?;
    Ok((s.clone(), value))
}

fn requirements(e: Expr, out: &mut Vec<(String, u128, u128)>) -> Result<(), String> {
    match e {
        Expr::Or(l, r) => {
            requirements(*l, out)?;
            requirements(*r, out)
        }
        Expr::Call(name, args) if name == "shardRange" => {
            if args.len() != 3 {
                return Err(format!(
                    "shardRange() requires exactly 3 arguments, got {}",
                    args.len()
                ));
            }
            let path = match &args[0] {
                Expr::Path(p) => p.clone(),
                other => {
                    return Err(format!(
                        "shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind {}",
                        other.kind()
                    ));
                }
            };
            if !matches!(
                path.as_str(),
                "object.metadata.uid" | "object.metadata.namespace"
            ) {
                return Err(format!(
                    "unsupported field path {path:?}; supported: object.metadata.uid, object.metadata.namespace"
                ));
            }
            let (start_text, start) = hex_literal(&args[1], "hexStart")?;
            let (end_text, end) = hex_literal(&args[2], "hexEnd")?;
            if start >= end {
                return Err(format!(
                    "shard range start {start_text} must be less than end {end_text}"
                ));
            }
            out.push((path, start, end));
            Ok(())
        }
        Expr::Call(name, _) => Err(format!(
            "unsupported function {name:?}; only shardRange() and || are allowed"
        )),
        other => Err(format!(
            "unexpected expression kind {}; expected shardRange() call or || operator",
            other.kind()
        )),
    }
}

fn parse(expr: &str) -> Result<ShardSelector, String> {
    let expr = expr.trim();
    if expr.is_empty() {
        return Err(
            "empty shard selector is not allowed; omit the parameter for unfiltered lists".into(),
        );
    }
    let mut parser = Parser {
        tokens: tokens(expr)?,
        at: 0,
    };
    let tree = parser.or()?;
    if let Some(t) = parser.peek() {
        return Err(format!("CEL parse error: Syntax error: unexpected {t:?}"));
    }
    let mut reqs = Vec::new();
    requirements(tree, &mut reqs)?;
    for r in &reqs[1..] {
        if r.0 != reqs[0].0 {
            return Err(format!(
                "all shard ranges must use the same field, got {:?} and {:?}",
                reqs[0].0, r.0
            ));
        }
    }
    let field = if reqs[0].0 == "object.metadata.uid" {
        ShardField::Uid
    } else {
        ShardField::Namespace
    };
    Ok(ShardSelector {
        field,
        ranges: reqs.into_iter().map(|(_, s, e)| (s, e)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ranges_over_uid_or_namespace_are_read() {
        let s = ShardSelector::parse(
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, \"0xc000000000000000\", '0x10000000000000000')",
        )
        .unwrap();
        assert_eq!(s.field, ShardField::Uid);
        assert_eq!(
            s.ranges,
            vec![(0, 1 << 63), (0xc000_0000_0000_0000, 1 << 64)]
        );
        // fnv1a64("a") = 0xaf63dc4c8601ec8c: in neither range; "" = 0xcbf2...: in the second.
        assert!(!s.matches(&json!({"metadata": {"uid": "a"}})));
        assert!(s.matches(&json!({"metadata": {}})));
        let ns = ShardSelector::parse(
            "(shardRange(object.metadata.namespace,'0xa000000000000000','0xb000000000000000'))",
        )
        .unwrap();
        assert_eq!(ns.field, ShardField::Namespace);
        assert!(ns.matches(&json!({"metadata": {"namespace": "a", "uid": "x"}})));
    }

    #[test]
    fn malformed_selectors_are_refused_with_the_reason() {
        let cases = [
            ("  ", "empty shard selector is not allowed"),
            (
                "shardRange(metadata.uid, '0x0000000000000000', '0x8000000000000000')",
                "unsupported field path \"metadata.uid\"",
            ),
            (
                "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
                "unsupported field path",
            ),
            (
                "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
                "hexStart must be a 0x-prefixed 16-digit hex value, got \"0x0\" (did you mean \"0x0000000000000000\"?)",
            ),
            (
                "shardRange(object.metadata.uid, '0000000000000000', '0x8000000000000000')",
                "hexStart must have '0x' prefix",
            ),
            (
                "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000ZZZ')",
                "hexEnd: invalid hex character \"Z\"",
            ),
            (
                "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000ABC')",
                "invalid hex character \"A\"",
            ),
            (
                "shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')",
                "shard range start 0x8000000000000000 must be less than end 0x8000000000000000",
            ),
            (
                "shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')",
                "17-digit hex value must be '0x10000000000000000'",
            ),
            (
                "shardRange(object.metadata.uid, '0x0000000000000000')",
                "shardRange() requires exactly 3 arguments, got 2",
            ),
            (
                "shardRange(object.metadata.uid, 0, '0x8000000000000000')",
                "hexStart must be a string literal, got int64",
            ),
            (
                "hashRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
                "unsupported function \"hashRange\"",
            ),
            (
                "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') && shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
                "unsupported function \"_&&_\"",
            ),
            (
                "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')",
                "all shard ranges must use the same field",
            ),
            (
                "object.metadata.uid",
                "unexpected expression kind SelectKind",
            ),
            (
                "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'",
                "CEL parse error",
            ),
            (
                "shardRange(object.metadata.uid; '0x0', '0x1')",
                "CEL parse error",
            ),
        ];
        for (input, want) in cases {
            let err = ShardSelector::parse(input).unwrap_err();
            assert!(
                err.starts_with("invalid shard selector: "),
                "{input}: {err}"
            );
            assert!(err.contains(want), "{input}: {err} (wanted {want})");
        }
    }
}
