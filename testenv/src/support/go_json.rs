//! Go's `encoding/json` syntax errors: the message the real server's decoder gives for the
//! first byte that makes a document invalid (`invalid character 'n' looking for beginning of
//! object key string`, `unexpected end of JSON input`), found by a scanner with the states
//! of Go's. serde_json finds the same errors but words them differently.

/// Where the scanner is: what the next significant byte may be.
#[derive(Clone, Copy, PartialEq)]
enum Expect {
    /// A value (document start, after `:`, after `,` in an array, after `[`).
    Value,
    /// The first key of an object, or `}`.
    FirstKey,
    /// A key after `,` in an object.
    Key,
    /// `:` after a key.
    Colon,
    /// `,` or `}` after an object member.
    AfterMember,
    /// `,` or `]` after an array element.
    AfterElement,
    /// Nothing but white space after the top-level value.
    End,
}

/// A byte as Go's scanner quotes it in its messages.
pub fn quote(b: u8) -> String {
    match b {
        b'\'' => r"'\''".into(),
        b'"' => "'\"'".into(),
        0x20..=0x7e => format!("'{}'", b as char),
        _ => format!(r"'\x{b:02x}'"),
    }
}

fn invalid(b: u8, context: &str) -> String {
    format!("invalid character {} {context}", quote(b))
}

/// The state after a complete value, given the enclosing containers.
fn after_value(stack: &[u8]) -> Expect {
    match stack.last() {
        Some(b'{') => Expect::AfterMember,
        Some(_) => Expect::AfterElement,
        None => Expect::End,
    }
}

/// Scans a string starting after its opening quote; returns the index after the closing
/// quote.
pub(crate) fn string_end(doc: &[u8], mut i: usize) -> Result<usize, String> {
    while i < doc.len() {
        match doc[i] {
            b'"' => return Ok(i + 1),
            b'\\' => {
                let Some(&e) = doc.get(i + 1) else { break };
                match e {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                    b'u' => {
                        for k in 0..4 {
                            match doc.get(i + 2 + k) {
                                Some(h) if h.is_ascii_hexdigit() => {}
                                Some(&h) => {
                                    return Err(invalid(h, "in \\u hexadecimal character escape"));
                                }
                                None => return Err("unexpected end of JSON input".into()),
                            }
                        }
                        i += 6;
                    }
                    _ => return Err(invalid(e, "in string escape code")),
                }
            }
            c if c < 0x20 => return Err(invalid(c, "in string literal")),
            _ => i += 1,
        }
    }
    Err("unexpected end of JSON input".into())
}

/// Scans a number starting at `i`; returns the index after it.
pub(crate) fn number_end(doc: &[u8], mut i: usize) -> Result<usize, String> {
    let digits = |doc: &[u8], mut i: usize| {
        while doc.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    if doc[i] == b'-' {
        i += 1;
        match doc.get(i) {
            Some(d) if d.is_ascii_digit() => {}
            Some(&c) => return Err(invalid(c, "in numeric literal")),
            None => return Err("unexpected end of JSON input".into()),
        }
    }
    i = if doc[i] == b'0' {
        i + 1
    } else {
        digits(doc, i)
    };
    if doc.get(i) == Some(&b'.') {
        i += 1;
        match doc.get(i) {
            Some(d) if d.is_ascii_digit() => i = digits(doc, i),
            Some(&c) => return Err(invalid(c, "after decimal point in numeric literal")),
            None => return Err("unexpected end of JSON input".into()),
        }
    }
    if matches!(doc.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(doc.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        match doc.get(i) {
            Some(d) if d.is_ascii_digit() => i = digits(doc, i),
            Some(&c) => return Err(invalid(c, "in exponent of numeric literal")),
            None => return Err("unexpected end of JSON input".into()),
        }
    }
    Ok(i)
}

/// Scans `true`, `false` or `null` starting at `i`; returns the index after it.
pub(crate) fn literal_end(doc: &[u8], i: usize) -> Result<usize, String> {
    let word: &[u8] = match doc[i] {
        b't' => b"true",
        b'f' => b"false",
        _ => b"null",
    };
    let name = std::str::from_utf8(word).unwrap_or_default();
    for (k, &want) in word.iter().enumerate().skip(1) {
        match doc.get(i + k) {
            Some(&c) if c == want => {}
            Some(&c) => {
                return Err(invalid(
                    c,
                    &format!("in literal {name} (expecting {})", quote(want)),
                ));
            }
            None => return Err("unexpected end of JSON input".into()),
        }
    }
    Ok(i + word.len())
}

/// The index after the JSON value that starts at `i` (after white space) in a valid
/// document; `None` when it is not a whole value.
pub(crate) fn value_end(doc: &[u8], i: usize) -> Option<usize> {
    let mut i = skip_space(doc, i);
    let mut depth = 0usize;
    loop {
        match *doc.get(i)? {
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            b'"' => i = string_end(doc, i + 1).ok()?,
            b'-' | b'0'..=b'9' => i = number_end(doc, i).ok()?,
            b't' | b'f' | b'n' => i = literal_end(doc, i).ok()?,
            b',' | b':' | b' ' | b'\t' | b'\r' | b'\n' if depth > 0 => i += 1,
            _ => return None,
        }
        if depth == 0 {
            return Some(i);
        }
    }
}

/// The index of the first byte at or after `i` that is not JSON white space.
pub(crate) fn skip_space(doc: &[u8], mut i: usize) -> usize {
    while doc.get(i).is_some_and(|b| b" \t\r\n".contains(b)) {
        i += 1;
    }
    i
}

/// A valid JSON value as Go's encoder writes what a `json.Marshaler` returned (a
/// `RawExtension`'s bytes): `json.Compact` with HTML escaping. White space outside strings
/// goes; `<`, `>`, `&`, U+2028 and U+2029 are escaped; everything else (member order,
/// repeated keys, numbers and escapes) stays as written.
pub fn compact(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut in_string = false;
    let mut escaped = false;
    let text = String::from_utf8_lossy(raw);
    for c in text.chars() {
        match c {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            ' ' | '\t' | '\r' | '\n' if !in_string => {}
            _ => out.push(c),
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        }
    }
    out
}

/// How deep Go's scanner lets objects and arrays nest (`maxNestingDepth`): one level more
/// is refused with "exceeded max depth".
const MAX_NESTING: usize = 10_000;

/// Go's message for the first syntax error of `doc`, or `None` when it is valid JSON.
pub fn syntax_error(doc: &[u8]) -> Option<String> {
    let mut stack: Vec<u8> = Vec::new();
    let mut expect = Expect::Value;
    let mut i = 0;
    loop {
        while doc.get(i).is_some_and(|b| b" \t\r\n".contains(b)) {
            i += 1;
        }
        let Some(&b) = doc.get(i) else {
            return (expect != Expect::End).then(|| "unexpected end of JSON input".into());
        };
        let scanned = match expect {
            Expect::Value => match b {
                b'{' | b'[' if stack.len() == MAX_NESTING => Err("exceeded max depth".into()),
                b'{' => {
                    stack.push(b'{');
                    expect = Expect::FirstKey;
                    Ok(i + 1)
                }
                b'[' => {
                    stack.push(b'[');
                    i += 1;
                    while doc.get(i).is_some_and(|b| b" \t\r\n".contains(b)) {
                        i += 1;
                    }
                    if doc.get(i) == Some(&b']') {
                        stack.pop();
                        expect = after_value(&stack);
                        Ok(i + 1)
                    } else {
                        Ok(i)
                    }
                }
                b'"' => string_end(doc, i + 1).inspect(|_| expect = after_value(&stack)),
                b'-' | b'0'..=b'9' => number_end(doc, i).inspect(|_| expect = after_value(&stack)),
                b't' | b'f' | b'n' => literal_end(doc, i).inspect(|_| expect = after_value(&stack)),
                _ => Err(invalid(b, "looking for beginning of value")),
            },
            Expect::FirstKey | Expect::Key => match b {
                b'}' if expect == Expect::FirstKey => {
                    stack.pop();
                    expect = after_value(&stack);
                    Ok(i + 1)
                }
                b'"' => string_end(doc, i + 1).inspect(|_| expect = Expect::Colon),
                _ => Err(invalid(b, "looking for beginning of object key string")),
            },
            Expect::Colon => match b {
                b':' => {
                    expect = Expect::Value;
                    Ok(i + 1)
                }
                _ => Err(invalid(b, "after object key")),
            },
            Expect::AfterMember => match b {
                b',' => {
                    expect = Expect::Key;
                    Ok(i + 1)
                }
                b'}' => {
                    stack.pop();
                    expect = after_value(&stack);
                    Ok(i + 1)
                }
                _ => Err(invalid(b, "after object key:value pair")),
            },
            Expect::AfterElement => match b {
                b',' => {
                    expect = Expect::Value;
                    Ok(i + 1)
                }
                b']' => {
                    stack.pop();
                    expect = after_value(&stack);
                    Ok(i + 1)
                }
                _ => Err(invalid(b, "after array element")),
            },
            Expect::End => Err(invalid(b, "after top-level value")),
        };
        match scanned {
            Ok(next) => i = next,
            Err(message) => return Some(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_end_and_compact_as_go_does() {
        let doc = br#"{"a": [1, {"b": "}"}], "c": 2}"#;
        assert_eq!(value_end(doc, 6), Some(21));
        assert_eq!(value_end(doc, 0), Some(doc.len()));
        assert_eq!(value_end(b" 1e3 ", 0), Some(4));
        assert_eq!(value_end(b"[1,", 0), None);
        assert_eq!(
            compact(
                " { \"z\" : 1.0, \"s\": \"a b\\\" <&>\u{2028}\\u0041\", \"z\": [ ] }".as_bytes()
            ),
            r#"{"z":1.0,"s":"a b\" \u003c\u0026\u003e\u2028\u0041","z":[]}"#
        );
    }

    #[test]
    fn messages_are_gos() {
        let cases: [(&str, Option<&str>); 12] = [
            (
                "{not json",
                Some("invalid character 'n' looking for beginning of object key string"),
            ),
            (
                "{bad",
                Some("invalid character 'b' looking for beginning of object key string"),
            ),
            ("", Some("unexpected end of JSON input")),
            ("{\"a\":1", Some("unexpected end of JSON input")),
            ("{\"a\" 1}", Some("invalid character '1' after object key")),
            (
                "{\"a\":1 \"b\"}",
                Some("invalid character '\"' after object key:value pair"),
            ),
            ("[1 2]", Some("invalid character '2' after array element")),
            (
                "{\"a\":tru}",
                Some("invalid character '}' in literal true (expecting 'e')"),
            ),
            ("{} x", Some("invalid character 'x' after top-level value")),
            (
                "\u{1}",
                Some("invalid character '\\x01' looking for beginning of value"),
            ),
            ("{\"a\":[1,{\"b\":-0.5e+3}],\"c\":\"\\u00e9\"}", None),
            ("[]", None),
        ];
        for (doc, want) in cases {
            assert_eq!(syntax_error(doc.as_bytes()).as_deref(), want, "{doc}");
        }
    }
}
