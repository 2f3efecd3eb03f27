//! An IP address read as Go's `netip.ParseAddr` reads it, for the bracketed hosts of URI
//! names: the kind of address, or why it is none, in Go's words (`ParseAddr("..."): ...`).

use crate::support::go_quote::go_quote;

/// The kind of a parsed address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Dotted decimal.
    V4,
    /// IPv6, with or without a zone (IPv4-mapped addresses included).
    V6,
}

/// A parse failure: the explanation and, for some, where in the input it happened.
struct Failure {
    msg: &'static str,
    at: Option<String>,
}

fn fail(msg: &'static str, at: Option<&str>) -> Failure {
    Failure {
        msg,
        at: at.map(str::to_string),
    }
}

/// `netip.ParseAddr`.
pub fn parse_addr(s: &str) -> Result<Family, String> {
    let family = s.bytes().find_map(|b| match b {
        b'.' => Some(Ok(Family::V4)),
        b':' => Some(Ok(Family::V6)),
        b'%' => Some(Err("missing IPv6 address")),
        _ => None,
    });
    let result = match family {
        Some(Ok(Family::V4)) => parse_v4(s.as_bytes()).map(|_| Family::V4),
        Some(Ok(Family::V6)) => parse_v6(s).map(|()| Family::V6),
        Some(Err(msg)) => Err(fail(msg, None)),
        None => Err(fail("unable to parse IP", None)),
    };
    result.map_err(|f| match f.at {
        Some(at) if !at.is_empty() => {
            format!(
                "ParseAddr({}): {} (at {})",
                go_quote(s),
                f.msg,
                go_quote(&at)
            )
        }
        _ => format!("ParseAddr({}): {}", go_quote(s), f.msg),
    })
}

/// The four fields of a dotted-decimal address (`parseIPv4Fields`).
fn parse_v4(s: &[u8]) -> Result<[u8; 4], Failure> {
    let text = |i: usize| String::from_utf8_lossy(&s[i..]).into_owned();
    let mut fields = [0u8; 4];
    let (mut value, mut pos, mut digits) = (0u32, 0usize, 0usize);
    for (i, &c) in s.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                if digits == 1 && value == 0 {
                    return Err(fail("IPv4 field has octet with leading zero", None));
                }
                value = value * 10 + u32::from(c - b'0');
                digits += 1;
                if value > 255 {
                    return Err(fail("IPv4 field has value >255", None));
                }
            }
            b'.' => {
                if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' {
                    return Err(Failure {
                        msg: "IPv4 field must have at least one digit",
                        at: Some(text(i)),
                    });
                }
                if pos == 3 {
                    return Err(fail("IPv4 address too long", None));
                }
                fields[pos] = value as u8;
                pos += 1;
                value = 0;
                digits = 0;
            }
            _ => {
                return Err(Failure {
                    msg: "unexpected character",
                    at: Some(text(i)),
                });
            }
        }
    }
    if pos < 3 {
        return Err(fail("IPv4 address too short", None));
    }
    fields[3] = value as u8;
    Ok(fields)
}

/// An IPv6 address, with an optional non-empty zone after `%` (`parseIPv6`).
fn parse_v6(input: &str) -> Result<(), Failure> {
    let mut s = input;
    if let Some((address, zone)) = input.split_once('%') {
        if zone.is_empty() {
            return Err(fail("zone must be a non-empty string", None));
        }
        s = address;
    }
    // Bytes of the 16 filled so far, and where a `::` stands.
    let mut filled = 0usize;
    let mut ellipsis = None;
    if let Some(rest) = s.strip_prefix("::") {
        ellipsis = Some(0);
        s = rest;
        if s.is_empty() {
            return Ok(());
        }
    }
    while filled < 16 {
        let digits = s.bytes().take_while(u8::is_ascii_hexdigit).count();
        if digits > 4 {
            return Err(fail("each group must have 4 or less digits", Some(s)));
        }
        if digits == 0 {
            return Err(fail(
                "each colon-separated field must have at least one digit",
                Some(s),
            ));
        }
        if s.as_bytes().get(digits) == Some(&b'.') {
            if ellipsis.is_none() && filled != 12 {
                return Err(fail(
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    Some(s),
                ));
            }
            if filled + 4 > 16 {
                return Err(fail(
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    Some(s),
                ));
            }
            parse_v4(s.as_bytes())?;
            s = "";
            filled += 4;
            break;
        }
        filled += 2;
        s = &s[digits..];
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return Err(fail("unexpected character, want colon", Some(s)));
        }
        if s.len() == 1 {
            return Err(fail("colon must be followed by more characters", Some(s)));
        }
        s = &s[1..];
        if let Some(rest) = s.strip_prefix(':') {
            if ellipsis.is_some() {
                return Err(fail("multiple :: in address", Some(s)));
            }
            ellipsis = Some(filled);
            s = rest;
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(fail("trailing garbage after address", Some(s)));
    }
    match (filled < 16, ellipsis) {
        (true, None) => Err(fail("address string too short", None)),
        (false, Some(_)) => Err(fail(
            "the :: must expand to at least one field of zeros",
            None,
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_get_go_answers() {
        let cases = [
            ("::1", Ok(Family::V6)),
            ("fe80::1%en0", Ok(Family::V6)),
            ("::ffff:1.2.3.4", Ok(Family::V6)),
            ("1:2:3:4:5:6:1.2.3.4", Ok(Family::V6)),
            ("1:2:3:4:5:6:7::", Ok(Family::V6)),
            ("::", Ok(Family::V6)),
            ("1.2.3.4", Ok(Family::V4)),
            ("abc", Err(r#"ParseAddr("abc"): unable to parse IP"#)),
            ("", Err(r#"ParseAddr(""): unable to parse IP"#)),
            ("%en0", Err(r#"ParseAddr("%en0"): missing IPv6 address"#)),
            (
                "fe80::1%",
                Err(r#"ParseAddr("fe80::1%"): zone must be a non-empty string"#),
            ),
            (
                "12345::1",
                Err(
                    r#"ParseAddr("12345::1"): each group must have 4 or less digits (at "12345::1")"#,
                ),
            ),
            (
                "1::2::3",
                Err(r#"ParseAddr("1::2::3"): multiple :: in address (at ":3")"#),
            ),
            (
                "1:2:3:4:5:6:7:8:9",
                Err(r#"ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")"#),
            ),
            (
                "::1.2.3",
                Err(r#"ParseAddr("::1.2.3"): IPv4 address too short"#),
            ),
            (
                "::1..2.3",
                Err(
                    r#"ParseAddr("::1..2.3"): IPv4 field must have at least one digit (at ".2.3")"#,
                ),
            ),
            (
                "::1.2.3.x%z",
                Err(r#"ParseAddr("::1.2.3.x%z"): unexpected character (at "x")"#),
            ),
            (
                "1:2:3:4:5:1.2.3.4",
                Err(
                    r#"ParseAddr("1:2:3:4:5:1.2.3.4"): embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4")"#,
                ),
            ),
            (
                "1:2:3",
                Err(r#"ParseAddr("1:2:3"): address string too short"#),
            ),
            (
                "1:2:3:4:5:6:7:8::",
                Err(
                    r#"ParseAddr("1:2:3:4:5:6:7:8::"): the :: must expand to at least one field of zeros"#,
                ),
            ),
            (
                ":1",
                Err(
                    r#"ParseAddr(":1"): each colon-separated field must have at least one digit (at ":1")"#,
                ),
            ),
            (
                "1:",
                Err(r#"ParseAddr("1:"): colon must be followed by more characters (at ":")"#),
            ),
            (
                "::1]",
                Err(r#"ParseAddr("::1]"): unexpected character, want colon (at "]")"#),
            ),
            (
                "01.2.3.4",
                Err(r#"ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero"#),
            ),
            (
                "1.2.3.4.5",
                Err(r#"ParseAddr("1.2.3.4.5"): IPv4 address too long"#),
            ),
            (
                "1.2.3.4%en0",
                Err(r#"ParseAddr("1.2.3.4%en0"): unexpected character (at "%en0")"#),
            ),
        ];
        for (input, want) in cases {
            assert_eq!(parse_addr(input), want.map_err(str::to_string), "{input}");
        }
    }
}
