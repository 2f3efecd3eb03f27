//! Kubernetes' URL library: `url()`, `isURL()` and the methods of a `net.URL`
//! (`getScheme`, `getHost`, `getHostname`, `getPort`, `getEscapedPath`, `getQuery`).
//!
//! As the real library, a URL is an absolute URI (`scheme://host/path?query`) or an
//! absolute path (`/path`).

use super::overload::{fail, opaque_arg, opaque_type, str_arg, value_fn};
use cel::common::types::STRING_TYPE;
use cel::objects::{Key, Map, Opaque};
use cel::{DeclarationError, Env, ExecutionError, Value};
use std::collections::HashMap;
use std::sync::Arc;

const TYPE_NAME: &str = "net.URL";

/// A parsed URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    scheme: String,
    host: String,
    path: String,
    query: String,
}

impl Opaque for Url {
    fn runtime_type_name(&self) -> &str {
        TYPE_NAME
    }
}

/// Parses an absolute URI or an absolute path.
pub fn parse(s: &str) -> Result<Url, String> {
    let err = || format!("URL {s:?} is not a valid absolute URI or absolute path");
    if s.contains(char::is_whitespace) || s.is_empty() {
        return Err(err());
    }
    let without_fragment = s.split('#').next().unwrap_or("");
    let (before_query, query) = without_fragment
        .split_once('?')
        .unwrap_or((without_fragment, ""));
    if before_query.starts_with('/') {
        return Ok(Url {
            scheme: String::new(),
            host: String::new(),
            path: before_query.to_string(),
            query: query.to_string(),
        });
    }
    let (scheme, rest) = before_query.split_once(':').ok_or_else(err)?;
    let scheme_ok = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return Err(err());
    }
    let (host, path) = match rest.strip_prefix("//") {
        Some(auth) => {
            let end = auth.find('/').unwrap_or(auth.len());
            let host = auth[..end].rsplit('@').next().unwrap_or("");
            (host.to_string(), auth[end..].to_string())
        }
        None => (String::new(), rest.to_string()),
    };
    Ok(Url {
        scheme: scheme.to_string(),
        host,
        path,
        query: query.to_string(),
    })
}

impl Url {
    fn hostname_port(&self) -> (&str, &str) {
        if let Some(rest) = self.host.strip_prefix('[') {
            let (h, after) = rest.split_once(']').unwrap_or((rest, ""));
            return (h, after.strip_prefix(':').unwrap_or(""));
        }
        match self.host.rsplit_once(':') {
            Some((h, p)) => (h, p),
            None => (&self.host, ""),
        }
    }
}

fn url(a: &[Value]) -> Result<&Url, ExecutionError> {
    opaque_arg::<Url>(a, 0)
}

fn s(v: &str) -> Value {
    Value::String(Arc::new(v.to_string()))
}

/// The CEL type of a URL.
fn url_type() -> cel::common::types::Type {
    opaque_type(TYPE_NAME)
}

/// Declares this library's functions on `env` (called once, when the environment is built).
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload("url", "string_to_url", vec![STRING_TYPE], to_url)?;
    env.add_overload("isURL", "is_url_string", vec![STRING_TYPE], is_url)?;
    for (name, f) in [
        ("getScheme", get_scheme as cel::common::functions::Function),
        ("getHost", get_host),
        ("getHostname", get_hostname),
        ("getPort", get_port),
        ("getEscapedPath", get_path),
        ("getQuery", get_query),
    ] {
        env.add_member_overload(name, &format!("url_{name}"), url_type(), vec![], f)?;
    }
    Ok(())
}

value_fn!(to_url, |a| parse(str_arg(a, 0)?)
    .map(|u| Value::Opaque(Arc::new(u)))
    .map_err(|e| fail("url", e)));
value_fn!(is_url, |a| Ok(Value::Bool(parse(str_arg(a, 0)?).is_ok())));
value_fn!(get_scheme, |a| Ok(s(&url(a)?.scheme)));
value_fn!(get_host, |a| Ok(s(&url(a)?.host)));
value_fn!(get_hostname, |a| Ok(s(url(a)?.hostname_port().0)));
value_fn!(get_port, |a| Ok(s(url(a)?.hostname_port().1)));
value_fn!(get_path, |a| Ok(s(&url(a)?.path)));
value_fn!(get_query, |a| {
    let mut out: HashMap<Key, Vec<Value>> = HashMap::new();
    for pair in url(a)?.query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.entry(Key::String(Arc::new(k.to_string())))
            .or_default()
            .push(s(v));
    }
    let map = out
        .into_iter()
        .map(|(k, v)| (k, Value::List(Arc::new(v))))
        .collect();
    Ok(Value::Map(Map { map: Arc::new(map) }))
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_absolute_uris_and_paths() {
        let u = parse("https://user@example.com:8443/a/b?x=1&x=2#frag").unwrap();
        assert_eq!(u.scheme, "https");
        assert_eq!(u.hostname_port(), ("example.com", "8443"));
        assert_eq!(u.path, "/a/b");
        assert_eq!(u.query, "x=1&x=2");
        let v6 = parse("http://[::1]:80/").unwrap();
        assert_eq!(v6.hostname_port(), ("::1", "80"));
        assert!(parse("/just/a/path").is_ok());
        assert!(parse("not a url").is_err());
        assert!(parse("relative/path").is_err());
    }
}
