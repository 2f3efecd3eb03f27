//! A URI subject alternative name as `crypto/x509` reads it: Go's `url.Parse` (the checks
//! that can fail, bracketed hosts with their IPv6 zones and the address inside read by
//! [`super::netip`]), then its host as a domain name.

use crate::support::go_quote::go_quote;

/// Why `url.Parse` or the domain check refuses `uri`, in Go's words (`parse "...": ...`
/// or `invalid domain`).
pub fn check(uri: &str) -> Result<(), String> {
    let (before, fragment) = match uri.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (uri, None),
    };
    let host = parse(before).map_err(|e| format!("parse {}: {e}", go_quote(before)))?;
    if let Some(fragment) = fragment {
        unescape(fragment, Mode::Other).map_err(|e| format!("parse {}: {e}", go_quote(uri)))?;
    }
    match host {
        Some(host) if !host.is_empty() && !valid_domain(&host) => Err("invalid domain".into()),
        _ => Ok(()),
    }
}

/// `parse` without the fragment: the unescaped host, if there is an authority.
fn parse(raw: &str) -> Result<Option<String>, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    if raw == "*" {
        return Ok(None);
    }
    let (scheme, rest) = scheme(raw)?;
    let rest = match rest.strip_suffix('?') {
        Some(r) if !r.contains('?') => r,
        _ => rest.split_once('?').map_or(rest, |(r, _)| r),
    };
    if !rest.starts_with('/') {
        if !scheme.is_empty() {
            return Ok(None);
        }
        if rest.split('/').next().is_some_and(|s| s.contains(':')) {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    let mut host = None;
    let mut path = rest;
    if (!scheme.is_empty() || !rest.starts_with("///"))
        && let Some(after) = rest.strip_prefix("//")
    {
        let (authority, tail) = match after.find('/') {
            Some(i) => after.split_at(i),
            None => (after, ""),
        };
        host = Some(authority_host(authority)?);
        path = tail;
    }
    unescape(path, Mode::Other)?;
    Ok(host)
}

/// `getScheme`.
fn scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".into()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// `parseAuthority`: the user information is checked, the host returned unescaped.
fn authority_host(authority: &str) -> Result<String, String> {
    let (userinfo, host) = match authority.rfind('@') {
        Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
        None => (None, authority),
    };
    let host = parse_host(host)?;
    if let Some(userinfo) = userinfo {
        let valid = userinfo
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&c));
        if !valid {
            return Err("net/url: invalid userinfo".into());
        }
        unescape(userinfo, Mode::Other)?;
    }
    Ok(host)
}

/// Whether `:port` (or nothing) is a port Go accepts after a host.
fn valid_port(colon_port: &str) -> bool {
    colon_port.is_empty()
        || colon_port
            .strip_prefix(':')
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
}

/// `parseHost`.
fn parse_host(host: &str) -> Result<String, String> {
    if host.starts_with('[') {
        return parse_ip_literal(host);
    }
    if host.contains('[') {
        return Err("invalid IP-literal".into());
    }
    if let Some(i) = host.rfind(':') {
        let colon_port = &host[i..];
        if !valid_port(colon_port) {
            return Err(format!("invalid port {} after host", go_quote(colon_port)));
        }
    }
    unescape(host, Mode::Host)
}

/// A bracketed host (`[fe80::1%25en0]:80`): a port after it, the zone after `%25` escaped
/// as a zone may be, and an IPv6 address inside (not a plain IPv4 one).
fn parse_ip_literal(host: &str) -> Result<String, String> {
    let Some(i) = host.rfind(']') else {
        return Err("missing ']' in host".into());
    };
    let colon_port = &host[i + 1..];
    if !valid_port(colon_port) {
        return Err(format!("invalid port {} after host", go_quote(colon_port)));
    }
    let literal = match host[..i].find("%25") {
        Some(zone) => unescape(&host[..zone], Mode::Host)? + &unescape(&host[zone..i], Mode::Zone)?,
        None => unescape(&host[..i], Mode::Host)?,
    };
    match super::netip::parse_addr(&literal[1..]) {
        Err(e) => Err(format!("invalid host: {e}")),
        Ok(super::netip::Family::V4) => Err("invalid IP-literal".into()),
        Ok(super::netip::Family::V6) => Ok(literal + &host[i..]),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Host,
    /// An IPv6 zone: escapes allowed for the bytes a host may hold, and a space.
    Zone,
    Other,
}

/// Whether a host may hold `c` as it is (`shouldEscape` in host mode is false).
fn host_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-_.~!$&'()*+,;=:[]<>\"".contains(&c)
}

/// `unescape`: `%XX` sequences decoded; in a host, only `%25` and non-ASCII bytes may be
/// escaped and only host characters may appear.
fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'%' {
            let hex = |b: u8| char::from(b).to_digit(16);
            let escape = || {
                let end = (i + 3).min(bytes.len());
                format!("invalid URL escape {}", go_quote(&s[i..end]))
            };
            let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).and_then(|b| hex(*b)),
                bytes.get(i + 2).and_then(|b| hex(*b)),
            ) else {
                return Err(escape());
            };
            if mode == Mode::Host && hi < 8 && &s[i..i + 3] != "%25" {
                return Err(escape());
            }
            let byte = (hi * 16 + lo) as u8;
            if mode == Mode::Zone && &s[i..i + 3] != "%25" && byte != b' ' && !host_byte(byte) {
                return Err(escape());
            }
            out.push(byte);
            i += 3;
            continue;
        }
        if mode != Mode::Other && c < 0x80 && !host_byte(c) {
            return Err(format!(
                "invalid character {} in host name",
                go_quote(&s[i..=i])
            ));
        }
        out.push(c);
        i += 1;
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// `domainNameValid`: no empty label (nor a leading or trailing dot), printable ASCII.
fn valid_domain(host: &str) -> bool {
    host.split('.').all(|label| !label.is_empty()) && host.bytes().all(|b| (33..=126).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_get_go_messages() {
        let cases = [
            ("https://a.b/c", None),
            ("a:b/c", None),
            ("mailto:x", None),
            ("https://[::1]/", None),
            ("https://a/x?%zz", None),
            ("https://a.b./x", Some("invalid domain")),
            ("//a..b/x", Some("invalid domain")),
            (
                "https://[::1/",
                Some("parse \"https://[::1/\": missing ']' in host"),
            ),
            (
                "https://a b/",
                Some("parse \"https://a b/\": invalid character \" \" in host name"),
            ),
            (
                "https://a%20b/",
                Some("parse \"https://a%20b/\": invalid URL escape \"%20\""),
            ),
            (
                "https://a/x#%zz",
                Some("parse \"https://a/x#%zz\": invalid URL escape \"%zz\""),
            ),
            (":x", Some("parse \":x\": missing protocol scheme")),
            (
                "https://a:x/",
                Some("parse \"https://a:x/\": invalid port \":x\" after host"),
            ),
            (
                "https://u{@a/",
                Some("parse \"https://u{@a/\": net/url: invalid userinfo"),
            ),
            ("https://[fe80::1%25en0]:80/", None),
            ("https://[fe80::%2541]/", None),
            ("https://[::1%25%3C]/", None),
            ("https://a]b/", None),
            ("https://[fe80::1%25%20x]/", Some("invalid domain")),
            (
                "https://[fe80::1%25%2F]/",
                Some("parse \"https://[fe80::1%25%2F]/\": invalid URL escape \"%2F\""),
            ),
            (
                "https://[::1%25|]/",
                Some("parse \"https://[::1%25|]/\": invalid character \"|\" in host name"),
            ),
            (
                "https://[%41::1]/",
                Some("parse \"https://[%41::1]/\": invalid URL escape \"%41\""),
            ),
            (
                "https://[fe80::1%25en0]%41/",
                Some("parse \"https://[fe80::1%25en0]%41/\": invalid port \"%41\" after host"),
            ),
            (
                "https://[abc%25en0]/",
                Some(
                    "parse \"https://[abc%25en0]/\": invalid host: ParseAddr(\"abc%en0\"): missing IPv6 address",
                ),
            ),
            (
                "https://[1.2.3.4]:80/",
                Some("parse \"https://[1.2.3.4]:80/\": invalid IP-literal"),
            ),
            (
                "https://x[::1]:x/",
                Some("parse \"https://x[::1]:x/\": invalid IP-literal"),
            ),
        ];
        for (uri, want) in cases {
            assert_eq!(check(uri).err().as_deref(), want, "{uri}");
        }
    }
}
