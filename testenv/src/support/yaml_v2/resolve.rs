//! What yaml.v2's `resolve` reads a plain scalar as: a string can be written plain only when
//! it would be read back as a string (`encode.go`'s `stringv`), so everything `resolve.go`
//! would take for a bool, null, int, float, timestamp or merge key (and a base 60 float,
//! kept quoted for other parsers) is quoted. The checks follow Go's `strconv.ParseInt`,
//! `ParseUint` and `ParseFloat` and `time.Parse` with yaml.v2's four timestamp layouts.

use std::sync::OnceLock;

use regex::Regex;

/// The plain scalars yaml.v2 looks up before anything else (`resolveMapList`).
const RESOLVED: [&str; 39] = [
    "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no", "No",
    "NO", "false", "False", "FALSE", "off", "Off", "OFF", "", "~", "null", "Null", "NULL", ".nan",
    ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
];

fn yaml_style_float() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$").expect("valid")
    })
}

fn base60_float() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$").expect("valid")
    })
}

/// Whether yaml.v2 may write `s` as a plain scalar: it reads back as a string (`resolve`
/// gives `!!str`) and is no base 60 float (`isBase60Float`).
pub fn plain_is_string(s: &str) -> bool {
    reads_as_string(s) && !is_base60_float(s)
}

fn is_base60_float(s: &str) -> bool {
    let Some(&c) = s.as_bytes().first() else {
        return false;
    };
    (c == b'+' || c == b'-' || c.is_ascii_digit()) && s.contains(':') && base60_float().is_match(s)
}

/// `resolve("", s)` gives `!!str`.
fn reads_as_string(s: &str) -> bool {
    let hint = match s.as_bytes().first() {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        Some(_) => return true,
    };
    if RESOLVED.contains(&s) {
        return false;
    }
    match hint {
        b'.' => !parse_float(s),
        b'D' | b'S' => !reads_as_number(s),
        _ => true,
    }
}

/// The `'D'` and `'S'` hints: a timestamp, an int (any base, underscores dropped), a uint, a
/// YAML-style float, or a `0b`/`-0b` binary int.
fn reads_as_number(s: &str) -> bool {
    if is_timestamp(s) {
        return true;
    }
    let plain = s.replace('_', "");
    if parse_int(&plain, 0).is_some() || parse_uint(&plain, 0).is_some() {
        return true;
    }
    if yaml_style_float().is_match(&plain) && parse_float(&plain) {
        return true;
    }
    if let Some(rest) = plain.strip_prefix("0b") {
        return parse_int(rest, 2).is_some() || parse_uint(rest, 2).is_some();
    }
    if let Some(rest) = plain.strip_prefix("-0b") {
        return parse_int(&format!("-{rest}"), 2).is_some();
    }
    false
}

/// Go's `strconv.ParseUint(s, base, 64)` succeeds (base 0: a `0b`, `0o`, `0x` or `0` prefix
/// picks it, and underscores may separate digits).
fn parse_uint(s: &str, base: u32) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let base0 = base == 0;
    let (digits, base) = if base0 {
        let b = s.as_bytes();
        if b[0] == b'0' {
            match b.get(1).map(u8::to_ascii_lowercase) {
                Some(b'b') if s.len() >= 3 => (&s[2..], 2),
                Some(b'o') if s.len() >= 3 => (&s[2..], 8),
                Some(b'x') if s.len() >= 3 => (&s[2..], 16),
                _ => (&s[1..], 8),
            }
        } else {
            (s, 10)
        }
    } else {
        (s, base)
    };
    let mut n: u64 = 0;
    let mut underscores = false;
    for c in digits.chars() {
        if c == '_' && base0 {
            underscores = true;
            continue;
        }
        let d = c.to_digit(base)?;
        n = n.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    if underscores && !underscore_ok(s) {
        return None;
    }
    Some(n)
}

/// Go's `strconv.ParseInt(s, base, 64)` succeeds.
fn parse_int(s: &str, base: u32) -> Option<i64> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let n = parse_uint(rest, base)?;
    if negative {
        if n > 1 << 63 {
            return None;
        }
        Some((n as i64).wrapping_neg())
    } else {
        i64::try_from(n).ok()
    }
}

/// Go's `underscoreOK`: underscores only between digits (a base prefix counts as one).
fn underscore_ok(s: &str) -> bool {
    let mut b = s.as_bytes();
    if let Some(b'+' | b'-') = b.first() {
        b = &b[1..];
    }
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = b[1].eq_ignore_ascii_case(&b'x');
    }
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c.is_ascii_digit() || hex && c.is_ascii_hexdigit() {
            saw = b'0';
            continue;
        }
        if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
            continue;
        }
        if saw == b'_' {
            return false;
        }
        saw = b'!';
    }
    saw != b'_'
}

/// Go's `strconv.ParseFloat(s, 64)` succeeds on a decimal float (the only ones reaching it
/// here: a string led by `.`, or one the YAML float pattern matched): the whole string is
/// digits with at most one point and an exponent, underscores only between digits, and the
/// value is finite (an overflow is Go's range error).
fn parse_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if let Some(b'+' | b'-') = b.first() {
        i = 1;
    }
    let (mut dot, mut digits, mut underscores) = (false, false, false);
    while i < b.len() {
        match b[i] {
            b'_' => underscores = true,
            b'.' if !dot => dot = true,
            c if c.is_ascii_digit() => digits = true,
            _ => break,
        }
        i += 1;
    }
    if !digits {
        return false;
    }
    if i < b.len() && b[i].eq_ignore_ascii_case(&b'e') {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            underscores |= b[i] == b'_';
            i += 1;
        }
    }
    if i != b.len() || underscores && !underscore_ok(s) {
        return false;
    }
    s.replace('_', "").parse::<f64>().is_ok_and(f64::is_finite)
}

/// yaml.v2's `parseTimestamp`: four digits and `-`, then one of its layouts parses the whole
/// string as Go's `time.Parse` does.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    [Some(b"T"), Some(b"t"), Some(b" "), None]
        .into_iter()
        .any(|sep| parse_layout(b, sep.map(|s| s[0])))
}

/// `getnum`: one or two digits (two when `fixed`).
fn getnum(b: &[u8], fixed: bool) -> Option<(u32, &[u8])> {
    let first = *b.first().filter(|c| c.is_ascii_digit())?;
    match b.get(1).filter(|c| c.is_ascii_digit()) {
        Some(second) => Some((
            u32::from(first - b'0') * 10 + u32::from(second - b'0'),
            &b[2..],
        )),
        None if fixed => None,
        None => Some((u32::from(first - b'0'), &b[1..])),
    }
}

fn literal(b: &[u8], c: u8) -> Option<&[u8]> {
    (b.first() == Some(&c)).then(|| &b[1..])
}

/// `2006-1-2` and, with a separator, `15:4:5.999999999` after it, then `Z07:00` unless the
/// separator is a space.
fn parse_layout(b: &[u8], sep: Option<u8>) -> bool {
    let year: u32 = std::str::from_utf8(&b[..4])
        .ok()
        .and_then(|y| y.parse().ok())
        .unwrap_or_default();
    let parsed = (|| {
        let rest = literal(&b[4..], b'-')?;
        let (month, rest) = getnum(rest, false)?;
        let rest = literal(rest, b'-')?;
        let (day, rest) = getnum(rest, false)?;
        if !(1..=12).contains(&month) {
            return None;
        }
        let Some(sep) = sep else {
            return Some((month, day, rest));
        };
        let rest = if sep == b' ' {
            // `skip`: a space in the layout takes any run of spaces (at least one here).
            let trimmed = rest.iter().position(|c| *c != b' ').unwrap_or(rest.len());
            (trimmed > 0).then(|| &rest[trimmed..])?
        } else {
            literal(rest, sep)?
        };
        let (hour, rest) = getnum(rest, false)?;
        let rest = literal(rest, b':')?;
        let (minute, rest) = getnum(rest, false)?;
        let rest = literal(rest, b':')?;
        let (second, mut rest) = getnum(rest, false)?;
        if hour >= 24 || minute >= 60 || second >= 60 {
            return None;
        }
        if rest.len() >= 2 && matches!(rest[0], b'.' | b',') && rest[1].is_ascii_digit() {
            let digits = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            rest = &rest[1 + digits..];
        }
        if sep == b' ' {
            return Some((month, day, rest));
        }
        if let Some(after) = literal(rest, b'Z') {
            return Some((month, day, after));
        }
        if rest.len() < 6 || rest[3] != b':' || !matches!(rest[0], b'+' | b'-') {
            return None;
        }
        let (zone_hour, _) = getnum(&rest[1..3], true)?;
        let (zone_minute, _) = getnum(&rest[4..6], true)?;
        if zone_hour > 24 || zone_minute > 60 {
            return None;
        }
        Some((month, day, &rest[6..]))
    })();
    let Some((month, day, rest)) = parsed else {
        return false;
    };
    rest.is_empty() && day >= 1 && day <= days_in(month, year)
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_yaml_v2_would_read_as_another_type_are_not_plain() {
        for s in [
            "",
            "~",
            "null",
            "true",
            "Yes",
            "on",
            "OFF",
            "n",
            "123",
            "-1",
            "+1",
            "1e3",
            "1.5",
            ".5",
            ".5_5",
            ".5e3",
            "0x1F",
            "0o17",
            "017",
            "08",
            "09.5",
            "1_000",
            "0b101",
            "0b-101",
            "-0b101",
            "1e-400",
            "99999999999999999999",
            "18446744073709551615",
            "2024-01-01",
            "2024-02-29",
            "2024-1-2",
            "2024-01-02T03:04:05Z",
            "2024-01-02t03:04:05.123+01:00",
            "2024-01-02 03:04:05",
            "2001-12-14t21:59:43.10-05:00",
            ".inf",
            "-.INF",
            ".NaN",
            "1:20",
            "190:20:30",
            "1:20.5_5",
            "-1:20",
        ] {
            assert!(!plain_is_string(s), "{s:?} must be quoted");
        }
        for s in [
            "a",
            "._5",
            ".e3",
            ".5.",
            ".",
            "...",
            ".iNf",
            "1e400",
            "2024-02-30",
            "2023-02-29",
            "2024-13-01",
            "2024-01-02 03:04:05Z",
            "2024-01-02T03:04:05",
            "1:60",
            "yess",
            "-",
            "+",
            "0x",
            "<",
            "<<",
            "1.2.3",
            "1:2:3:4.5x",
        ] {
            assert!(plain_is_string(s), "{s:?} reads as a string");
        }
    }
}
