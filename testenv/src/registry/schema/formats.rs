//! String `format` checks, for the formats the apiextensions apiserver validates.
//!
//! The real server strips every format not in its supported list before validating, so
//! `int32`, `int64`, `float`, `double` and unknown formats are never checked: a CRD field
//! with `format: int32` accepts `2^40`. We do the same ([`check_format`] returns `None`).
//! Formats only apply to string values.

/// Checks `value` against `format`.
///
/// Returns `Some(true)`/`Some(false)` for a format the real server validates and `None` for
/// one it ignores.
pub fn check_format(format: &str, value: &str) -> Option<bool> {
    Some(match format {
        "bsonobjectid" => value.len() == 24 && value.bytes().all(|b| b.is_ascii_hexdigit()),
        "uri" => !value.is_empty() && !value.chars().any(|c| c.is_ascii_control()),
        "email" => is_email(value),
        "hostname" => is_hostname(value),
        "ipv4" => value.parse::<std::net::IpAddr>().is_ok() && value.contains('.'),
        "ipv6" => value.parse::<std::net::IpAddr>().is_ok() && value.contains(':'),
        "cidr" => is_cidr(value),
        "mac" => is_mac(value),
        "uuid" => is_uuid(value, None),
        "uuid3" => is_uuid(value, Some('3')),
        "uuid4" => is_uuid(value, Some('4')),
        "uuid5" => is_uuid(value, Some('5')),
        "isbn" => is_isbn10(value) || is_isbn13(value),
        "isbn10" => is_isbn10(value),
        "isbn13" => is_isbn13(value),
        "creditcard" => is_creditcard(value),
        "ssn" => is_ssn(value),
        "hexcolor" => is_hexcolor(value),
        "rgbcolor" => is_rgbcolor(value),
        "byte" => is_base64(value),
        "password" => true,
        "date" => is_date(value),
        "duration" => is_duration(value),
        "datetime" | "date-time" => is_datetime(value),
        _ => return None,
    })
}

fn is_email(s: &str) -> bool {
    // net/mail.ParseAddress also accepts `Name <addr>`.
    let addr = match (s.rfind('<'), s.ends_with('>')) {
        (Some(i), true) => &s[i + 1..s.len() - 1],
        _ => s,
    };
    let Some((local, domain)) = addr.rsplit_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.is_empty()
        && !addr.chars().any(|c| c.is_whitespace() || c.is_control())
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
}

fn is_label_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || (!c.is_ascii() && c.is_alphanumeric())
}

fn is_hostname(s: &str) -> bool {
    if s.is_empty() || s.len() > 255 {
        return false;
    }
    let labels: Vec<&str> = s.split('.').collect();
    if labels.len() == 1 {
        let l: Vec<char> = s.chars().collect();
        // one label: a character, then optionally one hyphen, then up to 62 characters
        let rest = if l.len() > 1 && l[1] == '-' {
            &l[2..]
        } else {
            &l[1..]
        };
        return is_label_char(l[0]) && rest.len() <= 62 && rest.iter().all(|c| is_label_char(*c));
    }
    let (tld, domains) = labels.split_last().expect("at least two labels");
    let tld_len = tld.chars().count();
    if !(2..=63).contains(&tld_len) || !tld.chars().all(char::is_alphabetic) {
        return false;
    }
    domains.iter().all(|l| {
        let n = l.chars().count();
        (1..=63).contains(&n)
            && l.chars().all(|c| is_label_char(c) || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    })
}

fn is_cidr(s: &str) -> bool {
    let Some((ip, prefix)) = s.split_once('/') else {
        return false;
    };
    let Ok(ip) = ip.parse::<std::net::IpAddr>() else {
        return false;
    };
    if prefix.is_empty() || !prefix.bytes().all(|b| b.is_ascii_digit()) || prefix.len() > 3 {
        return false;
    }
    let p: u32 = prefix.parse().unwrap_or(999);
    p <= if ip.is_ipv4() { 32 } else { 128 }
}

fn is_mac(s: &str) -> bool {
    let groups_ok = |sep: char, width: usize| {
        let parts: Vec<&str> = s.split(sep).collect();
        let octets = parts.len() * width / 2;
        matches!(octets, 6 | 8 | 20)
            && parts
                .iter()
                .all(|p| p.len() == width && p.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    if s.contains(':') {
        groups_ok(':', 2)
    } else if s.contains('-') {
        groups_ok('-', 2)
    } else if s.contains('.') {
        groups_ok('.', 4)
    } else {
        false
    }
}

fn is_uuid(s: &str, version: Option<char>) -> bool {
    let b = s.as_bytes();
    let hex_at = |i: usize| b[i].is_ascii_hexdigit();
    let hyphenated = b.len() == 36
        && [8, 13, 18, 23].iter().all(|&i| b[i] == b'-')
        && (0..36).filter(|i| ![8, 13, 18, 23].contains(i)).all(hex_at);
    match version {
        None => hyphenated || (b.len() == 32 && (0..32).all(hex_at)),
        Some(v) => {
            hyphenated
                && b[14] as char == v
                && (v == '3' || matches!(b[19].to_ascii_lowercase(), b'8' | b'9' | b'a' | b'b'))
        }
    }
}

fn strip_isbn(s: &str) -> String {
    s.chars().filter(|c| *c != '-' && *c != ' ').collect()
}

fn is_isbn10(s: &str) -> bool {
    let s = strip_isbn(s);
    let c: Vec<char> = s.chars().collect();
    if c.len() != 10
        || !c[..9].iter().all(char::is_ascii_digit)
        || !(c[9].is_ascii_digit() || c[9] == 'X')
    {
        return false;
    }
    let sum: u32 = c
        .iter()
        .enumerate()
        .map(|(i, ch)| {
            let v = if *ch == 'X' {
                10
            } else {
                ch.to_digit(10).unwrap_or(0)
            };
            (i as u32 + 1) * v
        })
        .sum();
    sum.is_multiple_of(11)
}

fn is_isbn13(s: &str) -> bool {
    let s = strip_isbn(s);
    if s.len() != 13 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let sum: u32 = s
        .bytes()
        .enumerate()
        .map(|(i, b)| u32::from(b - b'0') * if i % 2 == 0 { 1 } else { 3 })
        .sum();
    sum.is_multiple_of(10)
}

fn is_creditcard(s: &str) -> bool {
    let digits: String = s.chars().filter(|c| *c != ' ' && *c != '-').collect();
    if !(12..=19).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let mut sum = 0;
    for (i, b) in digits.bytes().rev().enumerate() {
        let mut d = u32::from(b - b'0');
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    sum.is_multiple_of(10)
}

fn is_ssn(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    match b.len() {
        9 => digits(0..9),
        11 => {
            digits(0..3)
                && matches!(b[3], b'-' | b' ')
                && digits(4..6)
                && matches!(b[6], b'-' | b' ')
                && digits(7..11)
        }
        10 => {
            // one separator present
            (matches!(b[3], b'-' | b' ') && digits(0..3) && digits(4..10))
                || (matches!(b[5], b'-' | b' ') && digits(0..5) && digits(6..10))
        }
        _ => false,
    }
}

fn is_hexcolor(s: &str) -> bool {
    let h = s.strip_prefix('#').unwrap_or(s);
    (h.len() == 3 || h.len() == 6) && h.bytes().all(|b| b.is_ascii_hexdigit())
}

fn is_rgbcolor(s: &str) -> bool {
    let Some(inner) = s.strip_prefix("rgb(").and_then(|r| r.strip_suffix(')')) else {
        return false;
    };
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
                && p.parse::<u32>().is_ok_and(|v| v <= 255)
        })
}

fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(4) {
        return false;
    }
    let pad = b.iter().rev().take_while(|c| **c == b'=').count();
    if pad > 2 {
        return false;
    }
    b[..b.len() - pad]
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/')
}

fn digits_n(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok())?
}

fn is_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    if parts.len() != 3 {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (
        digits_n(parts[0], 4),
        digits_n(parts[1], 2),
        digits_n(parts[2], 2),
    ) else {
        return false;
    };
    if !(1..=12).contains(&m) || d == 0 {
        return false;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let max = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    d <= max
}

fn is_time(s: &str, allow_no_seconds: bool) -> bool {
    let (hms, frac) = match s.split_once('.') {
        Some((a, f)) => (a, Some(f)),
        None => (s, None),
    };
    if let Some(f) = frac
        && (f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()))
    {
        return false;
    }
    let parts: Vec<&str> = hms.split(':').collect();
    let ok_len = parts.len() == 3 || (allow_no_seconds && parts.len() == 2 && frac.is_none());
    if !ok_len {
        return false;
    }
    let limits = [23, 59, 60];
    parts
        .iter()
        .zip(limits)
        .all(|(p, max)| digits_n(p, 2).is_some_and(|v| v <= max))
}

fn is_datetime(s: &str) -> bool {
    if s.len() < 11 || !s.is_char_boundary(10) {
        return false;
    }
    let (date, rest) = s.split_at(10);
    if !is_date(date) {
        return false;
    }
    let Some(rest) = rest.strip_prefix('T').or_else(|| rest.strip_prefix(' ')) else {
        return false;
    };
    // time zone: Z, +hh:mm, +hhmm, or none (local time layouts are accepted by strfmt)
    let (time, zone) = if let Some(t) = rest.strip_suffix('Z') {
        (t, None)
    } else if let Some(i) = rest.rfind(['+', '-']) {
        (&rest[..i], Some(&rest[i + 1..]))
    } else {
        (rest, None)
    };
    if let Some(z) = zone {
        let z = z.replace(':', "");
        if digits_n(&z, 4).is_none_or(|v| v / 100 > 23 || v % 100 > 59) {
            return false;
        }
    }
    is_time(time, true)
}

fn is_duration(s: &str) -> bool {
    is_go_duration(s) || is_long_duration(s)
}

/// Go's `time.ParseDuration` syntax: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`.
fn is_go_duration(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    if s == "0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    let mut rest = s;
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let num = &rest[..num_end];
        if num.is_empty() || num == "." || num.matches('.').count() > 1 {
            return false;
        }
        rest = &rest[num_end..];
        let unit = ["ns", "us", "µs", "μs", "ms", "s", "m", "h"]
            .iter()
            .filter(|u| rest.starts_with(**u))
            .max_by_key(|u| u.len());
        match unit {
            Some(u) => rest = &rest[u.len()..],
            None => return false,
        }
    }
    true
}

/// strfmt's extended form: `<n> <unit>` with units like `d`, `days`, `w`, `weeks`, `hours`.
fn is_long_duration(s: &str) -> bool {
    let num_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if num_end == 0 {
        return false;
    }
    let unit = s[num_end..].trim_start();
    matches!(
        unit,
        "ns" | "us"
            | "µs"
            | "ms"
            | "s"
            | "m"
            | "h"
            | "d"
            | "w"
            | "nanosecond"
            | "nanoseconds"
            | "microsecond"
            | "microseconds"
            | "millisecond"
            | "milliseconds"
            | "second"
            | "seconds"
            | "sec"
            | "secs"
            | "minute"
            | "minutes"
            | "min"
            | "mins"
            | "hour"
            | "hours"
            | "hr"
            | "hrs"
            | "day"
            | "days"
            | "week"
            | "weeks"
    )
}

#[cfg(test)]
mod tests {
    use super::check_format;

    #[test]
    fn supported_formats() {
        let ok = [
            ("date", "2024-02-29"),
            ("date-time", "2024-01-02T03:04:05Z"),
            ("date-time", "2024-01-02T03:04:05.123+02:00"),
            ("uuid", "123e4567-e89b-12d3-a456-426614174000"),
            ("email", "a@example.com"),
            ("hostname", "my-host.example.com"),
            ("hostname", "localhost"),
            ("ipv4", "10.0.0.1"),
            ("ipv6", "fe80::1"),
            ("cidr", "10.0.0.0/8"),
            ("mac", "01:23:45:67:89:ab"),
            ("byte", "aGVsbG8="),
            ("duration", "1h30m"),
            ("duration", "3 days"),
            ("hexcolor", "#fff"),
            ("rgbcolor", "rgb(1, 2, 255)"),
            ("isbn", "0-306-40615-2"),
            ("creditcard", "4111 1111 1111 1111"),
            ("ssn", "123-45-6789"),
            ("bsonobjectid", "507f1f77bcf86cd799439011"),
        ];
        for (f, v) in ok {
            assert_eq!(check_format(f, v), Some(true), "{f} {v}");
        }
        let bad = [
            ("date", "2023-02-29"),
            ("date-time", "2024-01-02"),
            ("date-time", "yesterday"),
            ("date-time", "2024-01-0éT00:00:00Z"),
            ("uuid", "123e4567"),
            ("email", "nope"),
            ("hostname", "-bad.example.com"),
            ("hostname", "10.0.0.1"),
            ("ipv4", "10.0.0.256"),
            ("ipv6", "10.0.0.1"),
            ("cidr", "10.0.0.0/33"),
            ("mac", "01:23:45"),
            ("byte", "abc"),
            ("duration", "forever"),
            ("hexcolor", "#ffff"),
        ];
        for (f, v) in bad {
            assert_eq!(check_format(f, v), Some(false), "{f} {v}");
        }
        assert_eq!(check_format("int32", "x"), None);
        assert_eq!(check_format("k8s-short-name", "x"), None);
    }
}
