//! cel-go compiles the constant patterns of `matches` (method or global) and of the
//! Kubernetes regex library's `find` and `findAll` when it plans a program, so a pattern
//! literal Go's `regexp` refuses fails the program's instantiation (the real server reports
//! `program instantiation failed: error parsing regexp: <code>: `<text>``, an internal
//! error of the field). [`regex_constant_error`] finds the first such pattern in planning
//! order; [`go_regexp_error`] says what Go's parser says of a pattern.

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

/// The instantiation error of the first constant pattern Go's `regexp` refuses, in the
/// order cel-go plans the expression (operands before the call that uses them).
pub fn regex_constant_error(expr: &IdedExpr) -> Option<String> {
    let children: Vec<&IdedExpr> = match &expr.expr {
        Expr::Call(call) => call.target.iter().map(|t| &**t).chain(&call.args).collect(),
        Expr::Select(s) => vec![&*s.operand],
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Map(m) => entries(&m.entries),
        Expr::Struct(s) => entries(&s.entries),
        Expr::Comprehension(c) => vec![
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ],
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => Vec::new(),
    };
    if let Some(found) = children.into_iter().find_map(regex_constant_error) {
        return Some(found);
    }
    let Expr::Call(call) = &expr.expr else {
        return None;
    };
    if !matches!(call.func_name.as_str(), "matches" | "find" | "findAll") {
        return None;
    }
    // The pattern is the second operand, the receiver of a method counting as the first.
    let pattern = if call.target.is_some() {
        call.args.first()
    } else {
        call.args.get(1)
    }?;
    let Expr::Literal(LiteralValue::String(p)) = &pattern.expr else {
        return None;
    };
    go_regexp_error(p).map(|e| format!("program instantiation failed: {e}"))
}

fn entries(entries: &[cel::common::ast::IdedEntryExpr]) -> Vec<&IdedExpr> {
    entries
        .iter()
        .flat_map(|e| match &e.expr {
            EntryExpr::MapEntry(me) => vec![&me.key, &me.value],
            EntryExpr::StructField(f) => vec![&f.value],
        })
        .collect()
}

fn syntax_error(code: &str, text: &str) -> String {
    format!("error parsing regexp: {code}: `{text}`")
}

/// What Go's `regexp.Compile` (Perl syntax) answers for `pattern`, when it refuses it: the
/// errors of its parser that patterns meet in practice (unbalanced brackets and
/// parentheses, repetition without an operand or of a repetition, bad escapes, repeat
/// counts, class ranges, unsupported Perl groups).
pub fn go_regexp_error(pattern: &str) -> Option<String> {
    let chars: Vec<(usize, char)> = pattern.char_indices().collect();
    let text = |from: usize, to: usize| -> &str {
        let start = chars.get(from).map_or(pattern.len(), |c| c.0);
        let end = chars.get(to).map_or(pattern.len(), |c| c.0);
        &pattern[start..end]
    };
    let mut depth = 0usize;
    // Whether there is an operand a repetition may apply to, and where the last
    // repetition operator began (a second one right after it is a nested repetition).
    let mut operand = false;
    let mut last_repeat: Option<usize> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i].1;
        let next = |k: usize| chars.get(i + k).map(|c| c.1);
        let mut repeat_end = None;
        match c {
            '(' => {
                if next(1) == Some('?') {
                    let mut j = i + 2;
                    let named =
                        next(2) == Some('<') || (next(2) == Some('P') && next(3) == Some('<'));
                    if named {
                        let name_start = if next(2) == Some('P') { i + 4 } else { i + 3 };
                        while j < chars.len() && chars[j].1 != '>' {
                            j += 1;
                        }
                        if j == chars.len() {
                            return Some(syntax_error("invalid named capture", text(i, j)));
                        }
                        let name = &chars[name_start..j];
                        if name.is_empty()
                            || !name
                                .iter()
                                .all(|c| c.1.is_ascii_alphanumeric() || c.1 == '_')
                        {
                            return Some(syntax_error("invalid named capture", text(i, j + 1)));
                        }
                    } else {
                        while j < chars.len() && matches!(chars[j].1, 'i' | 'm' | 's' | 'U' | '-') {
                            j += 1;
                        }
                        match chars.get(j).map(|c| c.1) {
                            Some(')') => {
                                i = j + 1;
                                continue;
                            }
                            Some(':') => {}
                            _ => {
                                return Some(syntax_error(
                                    "invalid or unsupported Perl syntax",
                                    text(i, j + 1),
                                ));
                            }
                        }
                    }
                    i = j;
                }
                depth += 1;
                operand = false;
                last_repeat = None;
            }
            ')' => {
                if depth == 0 {
                    return Some(syntax_error("unexpected )", pattern));
                }
                depth -= 1;
                operand = true;
                last_repeat = None;
            }
            '|' => {
                operand = false;
                last_repeat = None;
            }
            '[' => {
                let start = i;
                let mut j = i + 1;
                if chars.get(j).map(|c| c.1) == Some('^') {
                    j += 1;
                }
                let mut first = true;
                let mut prev: Option<char> = None;
                loop {
                    let Some(&(_, cj)) = chars.get(j) else {
                        return Some(syntax_error("missing closing ]", text(start, chars.len())));
                    };
                    if cj == ']' && !first {
                        break;
                    }
                    first = false;
                    if cj == '['
                        && chars.get(j + 1).map(|c| c.1) == Some(':')
                        && let Some(end) = (j + 2..chars.len().saturating_sub(1))
                            .find(|&k| chars[k].1 == ':' && chars[k + 1].1 == ']')
                    {
                        j = end + 2;
                        prev = None;
                        continue;
                    }
                    let (value, width) = if cj == '\\' {
                        let end = escape(&chars, j).map_err(|(code, end)| {
                            syntax_error(code, if end > j { text(j, end) } else { "" })
                        });
                        let end = match end {
                            Ok(end) => end,
                            Err(e) => return Some(e),
                        };
                        let e = chars[j + 1].1;
                        (Some(e).filter(|e| !e.is_ascii_alphanumeric()), end - j)
                    } else {
                        (Some(cj), 1)
                    };
                    if cj == '-'
                        && let (Some(lo), Some(&(_, hi))) = (prev, chars.get(j + 1))
                        && hi != ']'
                        && hi < lo
                    {
                        return Some(syntax_error(
                            "invalid character class range",
                            text(j - 1, j + 2),
                        ));
                    }
                    prev = value;
                    j += width;
                }
                i = j;
                operand = true;
                last_repeat = None;
            }
            '\\' => match escape(&chars, i) {
                Err((code, end)) => {
                    return Some(syntax_error(code, if end > i { text(i, end) } else { "" }));
                }
                Ok(end) => {
                    i = end - 1;
                    operand = true;
                    last_repeat = None;
                }
            },
            '*' | '+' | '?' => repeat_end = Some(i + 1),
            '{' => {
                if let Some((end, min, max)) = repeat_count(&chars, i) {
                    if !operand && last_repeat.is_none() {
                        return Some(syntax_error(
                            "missing argument to repetition operator",
                            text(i, end),
                        ));
                    }
                    if min > 1000 || max.is_some_and(|m| m > 1000 || m < min) {
                        return Some(syntax_error("invalid repeat count", text(i, end)));
                    }
                    repeat_end = Some(end);
                } else {
                    operand = true;
                    last_repeat = None;
                }
            }
            _ => {
                operand = true;
                last_repeat = None;
            }
        }
        if let Some(mut end) = repeat_end {
            if chars.get(end).map(|c| c.1) == Some('?') {
                end += 1;
            }
            if let Some(start) = last_repeat {
                return Some(syntax_error(
                    "invalid nested repetition operator",
                    text(start, end),
                ));
            }
            if !operand {
                return Some(syntax_error(
                    "missing argument to repetition operator",
                    text(i, end),
                ));
            }
            last_repeat = Some(i);
            operand = false;
            i = end;
            continue;
        }
        i += 1;
    }
    (depth > 0).then(|| syntax_error("missing closing )", pattern))
}

/// The end of the escape at `at` (a backslash), or Go's error code and the end of the text
/// it quotes (none for a trailing backslash).
fn escape(chars: &[(usize, char)], at: usize) -> Result<usize, (&'static str, usize)> {
    let Some(&(_, c)) = chars.get(at + 1) else {
        return Err(("trailing backslash at end of expression", at));
    };
    let after = chars.get(at + 2).map(|c| c.1);
    match c {
        // A lone non-zero digit would be a backreference; two octal digits are a value.
        '1'..='7' if after.is_some_and(|d| ('0'..='7').contains(&d)) => Ok(at + 3),
        '0' | 'a' | 'f' | 't' | 'n' | 'r' | 'v' | 'x' | 'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'b'
        | 'B' | 'A' | 'z' | 'Q' | 'E' => Ok(at + 2),
        'p' | 'P' => {
            // A Unicode class: its name must be one Go knows (the regex crate's names stand
            // in for Go's tables).
            let end = if after == Some('{') {
                match (at + 3..chars.len()).find(|&k| chars[k].1 == '}') {
                    Some(close) => close + 1,
                    None => return Ok(at + 2),
                }
            } else {
                (at + 3).min(chars.len())
            };
            let class: String = chars[at..end].iter().map(|c| c.1).collect();
            if regex::Regex::new(&class).is_ok() {
                Ok(end)
            } else {
                Err(("invalid character class range", end))
            }
        }
        c if c.is_ascii_alphanumeric() => Err(("invalid escape sequence", at + 2)),
        _ => Ok(at + 2),
    }
}

/// A `{n}`, `{n,}` or `{n,m}` at `at`: its end and bounds.
fn repeat_count(chars: &[(usize, char)], at: usize) -> Option<(usize, u32, Option<u32>)> {
    let mut j = at + 1;
    let number = |j: &mut usize| -> Option<u32> {
        let start = *j;
        while chars.get(*j).is_some_and(|c| c.1.is_ascii_digit()) {
            *j += 1;
        }
        (*j > start).then(|| {
            chars[start..*j].iter().fold(0u32, |n, c| {
                n.saturating_mul(10).saturating_add(c.1 as u32 - '0' as u32)
            })
        })
    };
    let min = number(&mut j)?;
    let max = match chars.get(j)?.1 {
        '}' => Some(min),
        ',' => {
            j += 1;
            if chars.get(j)?.1 == '}' {
                None
            } else {
                let m = number(&mut j)?;
                if chars.get(j)?.1 != '}' {
                    return None;
                }
                Some(m)
            }
        }
        _ => return None,
    };
    Some((j + 1, min, max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_go_refuses_with_its_messages() {
        // Each as kube-apiserver v1.34.9 answered for `matches(object.metadata.name, '<p>')`
        // in a policy's validation.
        for (pattern, want) in [
            ("[", "missing closing ]: `[`"),
            ("ab[a-z", "missing closing ]: `[a-z`"),
            ("(", "missing closing ): `(`"),
            ("a(b", "missing closing ): `a(b`"),
            ("a)", "unexpected ): `a)`"),
            ("*a", "missing argument to repetition operator: `*`"),
            ("a**", "invalid nested repetition operator: `**`"),
            ("a+*?", "invalid nested repetition operator: `+*?`"),
            ("a\\", "trailing backslash at end of expression: ``"),
            ("\\q", "invalid escape sequence: `\\q`"),
            ("[z-a]", "invalid character class range: `z-a`"),
            ("a{1001}", "invalid repeat count: `{1001}`"),
            ("a{2,1}", "invalid repeat count: `{2,1}`"),
            ("(?=a)", "invalid or unsupported Perl syntax: `(?=`"),
            ("(?<=a)", "invalid named capture: `(?<=a)`"),
            ("(?<n", "invalid named capture: `(?<n`"),
            ("(?i", "invalid or unsupported Perl syntax: `(?i`"),
            ("\\1", "invalid escape sequence: `\\1`"),
            ("\\8", "invalid escape sequence: `\\8`"),
            ("\\C", "invalid escape sequence: `\\C`"),
            ("\\p{Foo}", "invalid character class range: `\\p{Foo}`"),
            ("x{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
            ("a{2}*", "invalid nested repetition operator: `{2}*`"),
            ("a|*", "missing argument to repetition operator: `*`"),
            ("[a", "missing closing ]: `[a`"),
        ] {
            assert_eq!(
                go_regexp_error(pattern),
                Some(format!("error parsing regexp: {want}")),
                "{pattern}"
            );
        }
        for pattern in [
            "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
            "[]a]",
            "[^]a]",
            "a{,2}",
            "x{",
            "(?i)abc",
            "(?:a|b)+?",
            "(?P<n>a)(?<m>b)",
            "[[:alpha:]-]",
            "\\d+\\.\\d*",
            "a*?",
            "\\pN",
            "\\12",
            "",
        ] {
            assert_eq!(go_regexp_error(pattern), None, "{pattern}");
        }
    }
}
