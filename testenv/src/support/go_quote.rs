//! Go's `%q` (`strconv.Quote`) of a string: the form kube-apiserver's messages quote values
//! in (`Invalid value: "a\"b"`, `parsing "x"`).

/// `s` between double quotes with Go's escapes: `\"`, `\\`, `\n`, `\r`, `\t`, `\a`, `\b`,
/// `\f`, `\v`, other C0 controls and DEL as `\x..`, C1 controls and the line and paragraph
/// separators as `\u....`; every other character as it is.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (0x80..=0x9f).contains(&(c as u32)) || matches!(c, '\u{2028}' | '\u{2029}') => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_as_go_does() {
        assert_eq!(go_quote("plain"), r#""plain""#);
        assert_eq!(go_quote("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(go_quote("t\tn\n\u{7}\u{1}\u{7f}"), r#""t\tn\n\a\x01\x7f""#);
        assert_eq!(go_quote("\u{85}\u{2028}é"), "\"\\u0085\\u2028é\"");
    }
}
