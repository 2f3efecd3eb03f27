//! A URL read as Go's `net/url.Parse` reads it, for the checks kube-apiserver makes of a
//! webhook's URL (scheme, host, user information, query, fragment) and the words of its
//! parse errors (`parse "<url>": <why>`).

/// The parts of a parsed URL the webhook checks look at.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct GoUrl {
    /// The scheme, in lower case (empty when there is none).
    pub scheme: String,
    /// The host (and port) of the authority; empty without one.
    pub host: String,
    /// The user information as `url.Userinfo.String` prints it, when there is some.
    pub user: Option<String>,
    /// The query, without its `?`.
    pub raw_query: String,
    /// The fragment, unescaped.
    pub fragment: String,
}

/// `url.Parse(raw)`: the URL's parts, or the error's text.
pub fn parse(raw: &str) -> Result<GoUrl, String> {
    let wrap = |why: String| format!("parse {raw:?}: {why}");
    let (rest, fragment) = match raw.split_once('#') {
        Some((rest, fragment)) => (rest, unescape(fragment).map_err(wrap)?),
        None => (raw, String::new()),
    };
    let mut url = parse_without_fragment(rest).map_err(wrap)?;
    url.fragment = fragment;
    Ok(url)
}

fn parse_without_fragment(raw: &str) -> Result<GoUrl, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    let mut url = GoUrl::default();
    if raw == "*" {
        return Ok(url);
    }
    let (scheme, rest) = scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let rest = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        &rest[..rest.len() - 1]
    } else {
        match rest.split_once('?') {
            Some((rest, query)) => {
                url.raw_query = query.to_string();
                rest
            }
            None => rest,
        }
    };
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // An opaque URL (`scheme:opaque`): no authority.
            return Ok(url);
        }
        let first = rest.split('/').next().unwrap_or_default();
        if first.contains(':') {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    let mut path = rest;
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let authority_and_path = &rest[2..];
        let end = authority_and_path
            .find('/')
            .unwrap_or(authority_and_path.len());
        let authority = &authority_and_path[..end];
        path = &authority_and_path[end..];
        let host = match authority.rfind('@') {
            Some(at) => {
                let user = &authority[..at];
                if !user.bytes().all(valid_userinfo) {
                    return Err("net/url: invalid userinfo".into());
                }
                url.user = Some(user_string(user)?);
                &authority[at + 1..]
            }
            None => authority,
        };
        url.host = parse_host(host)?;
    }
    unescape(path)?;
    Ok(url)
}

/// `getScheme`: the scheme before the first `:`, when the text before it could be one.
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

/// The characters `validUserinfo` accepts.
fn valid_userinfo(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&c)
}

/// `url.Userinfo.String`: the user, then `:` and the password when there is one.
fn user_string(user: &str) -> Result<String, String> {
    match user.split_once(':') {
        Some((name, password)) => Ok(format!("{}:{}", unescape(name)?, unescape(password)?)),
        None => unescape(user),
    }
}

/// `parseHost`: a bracketed IPv6 literal, or a name with an optional numeric port.
fn parse_host(host: &str) -> Result<String, String> {
    if let Some(inner) = host.strip_prefix('[') {
        let Some(close) = inner.rfind(']') else {
            return Err("missing ']' in host".into());
        };
        let port = &inner[close + 1..];
        if !valid_optional_port(port) {
            return Err(format!("invalid port {port:?} after host"));
        }
    } else if let Some(colon) = host.rfind(':') {
        let port = &host[colon..];
        if !valid_optional_port(port) {
            return Err(format!("invalid port {port:?} after host"));
        }
    }
    unescape(host)
}

fn valid_optional_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
}

/// `unescape`: `%XX` sequences decoded; a bad one is an `invalid URL escape`.
fn unescape(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit));
            let Some(hex) = hex else {
                let end = (i + 3).min(b.len());
                return Err(format!("invalid URL escape {:?}", &s[i..end]));
            };
            let text = std::str::from_utf8(hex).unwrap_or("00");
            out.push(u8::from_str_radix(text, 16).unwrap_or(0));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_urls_as_go_does() {
        let u = parse("http://u:p@h.example.com/x?q=1#f").expect("parses");
        assert_eq!(
            (u.scheme.as_str(), u.host.as_str(), u.user.as_deref()),
            ("http", "h.example.com", Some("u:p"))
        );
        assert_eq!((u.raw_query.as_str(), u.fragment.as_str()), ("q=1", "f"));
        let u = parse("not a url").expect("parses");
        assert_eq!((u.scheme.as_str(), u.host.as_str()), ("", ""));
        assert_eq!(parse("HTTPS://h/x?").expect("parses").scheme, "https");
        assert_eq!(
            parse("https://h/%zz").unwrap_err(),
            "parse \"https://h/%zz\": invalid URL escape \"%zz\""
        );
        assert_eq!(
            parse("://x").unwrap_err(),
            "parse \"://x\": missing protocol scheme"
        );
        assert_eq!(
            parse("https://[::1/x").unwrap_err(),
            "parse \"https://[::1/x\": missing ']' in host"
        );
    }
}
