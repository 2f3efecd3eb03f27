//! Label selectors (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`).

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
    Greater(String, i64),
    Less(String, i64),
}

/// A parsed label selector; all requirements must hold.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

use super::lexer::{Token, tokens};

/// The operators the real parser names when it expects one.
const OPERATORS: &str = "in, notin, =, ==, !=, gt, lt";

/// A label key must be a qualified name (an optional DNS subdomain prefix and `/`).
fn check_key(key: &str) -> Result<String, String> {
    let msgs = crate::support::meta::label_key_errors(key);
    if msgs.is_empty() {
        Ok(key.to_string())
    } else {
        Err(format!("key: Invalid value: {key:?}: {}", msgs.join("; ")))
    }
}

/// A parser over the tokens of a selector, in apimachinery's grammar and words.
struct Parser {
    toks: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        self.toks.get(self.pos).unwrap_or(&Token::End)
    }

    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        self.pos += 1;
        t
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        let mut negated = false;
        let mut tok = self.next();
        if tok == Token::Not {
            negated = true;
            tok = self.next();
        }
        let Token::Identifier(key) = tok else {
            return Err(format!("found '{}', expected: identifier", tok.literal()));
        };
        let key = check_key(&key)?;
        if matches!(self.peek(), Token::End | Token::Comma) {
            return Ok(if negated {
                Requirement::DoesNotExist(key)
            } else {
                Requirement::Exists(key)
            });
        }
        if negated {
            let t = self.next();
            return Err(format!(
                "found '{}', expected: ',' or 'end of string'",
                t.literal()
            ));
        }
        let op = self.next();
        match op {
            Token::Identifier(ref w) if w == "in" || w == "notin" => {
                let values = self.values()?;
                Ok(if w == "in" {
                    Requirement::In(key, values)
                } else {
                    Requirement::NotIn(key, values)
                })
            }
            Token::Equals
            | Token::DoubleEquals
            | Token::NotEquals
            | Token::Greater
            | Token::Less => {
                let value = self.exact_value()?;
                Ok(match op {
                    Token::NotEquals => Requirement::NotEquals(key, value),
                    Token::Greater | Token::Less => {
                        let n: i64 = value.parse().map_err(|_| {
                            "for 'Gt', 'Lt' operators, the value must be an integer".to_string()
                        })?;
                        if op == Token::Greater {
                            Requirement::Greater(key, n)
                        } else {
                            Requirement::Less(key, n)
                        }
                    }
                    _ => Requirement::Equals(key, value),
                })
            }
            other => Err(format!(
                "found '{}', expected: {OPERATORS}",
                other.literal()
            )),
        }
    }

    fn exact_value(&mut self) -> Result<String, String> {
        if matches!(self.peek(), Token::End | Token::Comma) {
            return Ok(String::new());
        }
        match self.next() {
            Token::Identifier(v) => Ok(v),
            other => Err(format!("found '{}', expected: identifier", other.literal())),
        }
    }

    fn values(&mut self) -> Result<Vec<String>, String> {
        let open = self.next();
        if open != Token::OpenPar {
            return Err(format!("found '{}' expected: '('", open.literal()));
        }
        match self.peek().clone() {
            Token::ClosePar => {
                self.next();
                Ok(vec![String::new()])
            }
            Token::Identifier(_) | Token::Comma => {
                let lit = self.peek().literal();
                let values = self.identifiers()?;
                if self.next() != Token::ClosePar {
                    return Err(format!("found '{lit}', expected: ')'"));
                }
                Ok(values)
            }
            other => Err(format!(
                "found '{}', expected: ',', ')' or identifier",
                other.literal()
            )),
        }
    }

    fn identifiers(&mut self) -> Result<Vec<String>, String> {
        let mut out: Vec<String> = Vec::new();
        loop {
            match self.next() {
                Token::Identifier(v) => {
                    if !out.contains(&v) {
                        out.push(v);
                    }
                    match self.peek() {
                        Token::Comma => continue,
                        Token::ClosePar => return Ok(out),
                        other => {
                            return Err(format!(
                                "found '{}', expected: ',' or ')'",
                                other.literal()
                            ));
                        }
                    }
                }
                Token::Comma => {
                    if out.is_empty() {
                        out.push(String::new());
                    }
                    match self.peek() {
                        Token::ClosePar => {
                            if !out.contains(&String::new()) {
                                out.push(String::new());
                            }
                            return Ok(out);
                        }
                        Token::Comma => {
                            self.next();
                            if !out.contains(&String::new()) {
                                out.push(String::new());
                            }
                        }
                        _ => {}
                    }
                }
                other => {
                    return Err(format!(
                        "found '{}', expected: ',', or identifier",
                        other.literal()
                    ));
                }
            }
        }
    }
}

impl LabelSelector {
    /// Parses the `labelSelector` query parameter, with apimachinery's grammar and error
    /// messages (`unable to parse requirement: found 'web' expected: '('`).
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut p = Parser {
            toks: tokens(s),
            pos: 0,
        };
        let mut requirements = Vec::new();
        loop {
            match p.peek().clone() {
                Token::End => break,
                Token::Identifier(_) | Token::Not => {
                    let r = p
                        .requirement()
                        .map_err(|e| format!("unable to parse requirement: {e}"))?;
                    requirements.push(r);
                    match p.next() {
                        Token::End => break,
                        Token::Comma => {
                            if !matches!(p.peek(), Token::Identifier(_) | Token::Not) {
                                return Err(format!(
                                    "found '{}', expected: identifier after ','",
                                    p.peek().literal()
                                ));
                            }
                        }
                        other => {
                            return Err(format!(
                                "found '{}', expected: ',' or 'end of string'",
                                other.literal()
                            ));
                        }
                    }
                }
                other => {
                    return Err(format!(
                        "found '{}', expected: !, identifier, or 'end of string'",
                        other.literal()
                    ));
                }
            }
        }
        Ok(LabelSelector { requirements })
    }

    /// A structured `metav1.LabelSelector` (`matchLabels`, `matchExpressions`), as webhook
    /// configurations carry it; absent parts select everything. A `matchLabels` value that
    /// is not a string selects objects without that label, and an unknown operator selects
    /// nothing (the server refuses both when the selector is stored).
    pub fn from_metav1(selector: &serde_json::Value) -> Self {
        use serde_json::Value;
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        };
        let mut requirements: Vec<Requirement> = selector["matchLabels"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| match v.as_str() {
                Some(v) => Requirement::Equals(k.clone(), v.to_string()),
                None => Requirement::DoesNotExist(k.clone()),
            })
            .collect();
        for e in selector["matchExpressions"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let key = e["key"].as_str().unwrap_or_default().to_string();
            requirements.push(match e["operator"].as_str().unwrap_or_default() {
                "In" => Requirement::In(key, strings(&e["values"])),
                "NotIn" => Requirement::NotIn(key, strings(&e["values"])),
                "Exists" => Requirement::Exists(key),
                "DoesNotExist" => Requirement::DoesNotExist(key),
                _ => Requirement::In(key, Vec::new()),
            });
        }
        LabelSelector { requirements }
    }

    /// Whether the selector selects everything.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether an object's labels (its `metadata.labels` JSON) satisfy the selector.
    pub fn matches(&self, labels: &serde_json::Value) -> bool {
        let get = |k: &str| labels.get(k).and_then(|v| v.as_str());
        self.requirements.iter().all(|r| match r {
            Requirement::Equals(k, v) => get(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => get(k) != Some(v.as_str()),
            Requirement::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            Requirement::NotIn(k, vs) => get(k).is_none_or(|x| !vs.iter().any(|v| v == x)),
            Requirement::Exists(k) => get(k).is_some(),
            Requirement::DoesNotExist(k) => get(k).is_none(),
            Requirement::Greater(k, n) => get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v > *n),
            Requirement::Less(k, n) => get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v < *n),
        })
    }
}

impl std::fmt::Display for LabelSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .requirements
            .iter()
            .map(|r| match r {
                Requirement::Equals(k, v) => format!("{k}={v}"),
                Requirement::NotEquals(k, v) => format!("{k}!={v}"),
                Requirement::In(k, vs) => format!("{k} in ({})", vs.join(",")),
                Requirement::NotIn(k, vs) => format!("{k} notin ({})", vs.join(",")),
                Requirement::Exists(k) => k.clone(),
                Requirement::DoesNotExist(k) => format!("!{k}"),
                Requirement::Greater(k, n) => format!("{k}>{n}"),
                Requirement::Less(k, n) => format!("{k}<{n}"),
            })
            .collect();
        f.write_str(&parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn all_operators() {
        let labels = json!({"app": "web", "tier": "front"});
        let m = |s: &str| LabelSelector::parse(s).unwrap().matches(&labels);
        assert!(m("app=web"));
        assert!(m("app==web"));
        assert!(!m("app!=web"));
        assert!(m("app in (web, db),tier"));
        assert!(!m("app notin (web)"));
        assert!(m("env notin (prod)"));
        assert!(m("!env"));
        assert!(!m("!app"));
        assert!(m(""));
        assert!(m("app==web,tier=front"));
        let err = |s: &str| LabelSelector::parse(s).unwrap_err();
        // apimachinery's messages
        assert_eq!(
            err("app in web"),
            "unable to parse requirement: found 'web' expected: '('"
        );
        assert_eq!(
            err("Bad Key=x"),
            "unable to parse requirement: found 'Key', expected: in, notin, =, ==, !=, gt, lt"
        );
        assert_eq!(
            err("app in (a"),
            "unable to parse requirement: found '', expected: ',' or ')'"
        );
        assert_eq!(err("a=b=c"), "found '=', expected: ',' or 'end of string'");
        assert_eq!(err("x=y,,"), "found ',', expected: identifier after ','");
        let n = json!({"n": "5"});
        assert!(LabelSelector::parse("n>4").unwrap().matches(&n));
        assert!(!LabelSelector::parse("n<4").unwrap().matches(&n));
    }
}
