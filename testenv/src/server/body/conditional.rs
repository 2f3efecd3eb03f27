//! A served document answered as Go's `http.ServeContent` answers (kube-apiserver serves its
//! OpenAPI documents with it): `Last-Modified` and `Accept-Ranges: bytes`, the preconditions
//! (`If-Match` and `If-Unmodified-Since` failing with 412, `If-None-Match` and
//! `If-Modified-Since` giving 304), then one byte range (206, or 416 when it cannot be
//! served), unless `If-Range` names another version.

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, StatusCode};

use super::http_date;
use super::range::{self, RangeError};
use crate::support::request::Document;

/// The request headers a served document answers to, and the `Accept-Encoding` every
/// response answers to.
#[derive(Debug, Clone, Default)]
pub struct Conditions {
    method: Method,
    if_match: String,
    if_none_match: String,
    if_modified_since: String,
    if_unmodified_since: String,
    range: String,
    if_range: String,
    accept_encoding: String,
    pretty: bool,
}

impl Conditions {
    /// The conditions of a request with this method and these headers. A `Range` naming
    /// several ranges is dropped, as kube-apiserver drops it (the whole body is sent).
    pub fn of(method: &Method, headers: &HeaderMap) -> Self {
        let get = |name: header::HeaderName| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string()
        };
        let range = get(header::RANGE);
        Conditions {
            method: method.clone(),
            if_match: get(header::IF_MATCH),
            if_none_match: get(header::IF_NONE_MATCH),
            if_modified_since: get(header::IF_MODIFIED_SINCE),
            if_unmodified_since: get(header::IF_UNMODIFIED_SINCE),
            range: if range.contains(',') {
                String::new()
            } else {
                range
            },
            if_range: get(header::IF_RANGE),
            accept_encoding: get(header::ACCEPT_ENCODING),
            pretty: false,
        }
    }

    /// These conditions, for a request to `path` with `query`, answered pretty-printed when
    /// the query or the client asks for it ([`super::pretty::wanted`]), or always for
    /// `/version`, whose handler indents its answer whoever asks.
    pub fn with_query(mut self, path: &str, query: Option<&str>, headers: &HeaderMap) -> Self {
        self.pretty = path == "/version" || super::pretty::wanted(query, headers);
        self
    }

    /// Whether a JSON answer is pretty-printed.
    pub fn pretty(&self) -> bool {
        self.pretty
    }

    /// The request's first `If-None-Match`, empty when it has none.
    pub fn if_none_match(&self) -> &str {
        &self.if_none_match
    }

    /// The request's `Accept-Encoding`, empty when it has none.
    pub fn accept_encoding(&self) -> &str {
        &self.accept_encoding
    }

    /// Whether the request is a `HEAD` (its answer has headers only).
    pub fn is_head(&self) -> bool {
        self.method == Method::HEAD
    }

    fn safe(&self) -> bool {
        self.method == Method::GET || self.method == Method::HEAD
    }
}

/// A reply's status, content type, entity tag and document part.
pub struct Head<'a> {
    /// HTTP status.
    pub code: u16,
    /// The `Content-Type`, empty for none.
    pub content_type: &'a str,
    /// The quoted `ETag`, if any.
    pub etag: Option<&'a str>,
    /// Set for a served document.
    pub document: Option<&'a Document>,
}

/// What the preconditions decide before the body is looked at.
enum Precondition {
    /// 412: `If-Match` or `If-Unmodified-Since` (or `If-None-Match` on a write) failed.
    Failed,
    /// 304: the client's copy is current.
    NotModified,
}

/// Whether a list of entity tags names `etag`: strongly (both tags strong and equal) or
/// weakly (equal once `W/` is dropped). `*` names any.
fn names(list: &str, etag: Option<&str>, strong: bool) -> bool {
    let Some(etag) = etag else {
        return list.split(',').any(|t| t.trim() == "*");
    };
    let opaque = |t: &str| t.strip_prefix("W/").unwrap_or(t).to_string();
    list.split(',').map(str::trim).any(|t| {
        t == "*"
            || if strong {
                !t.starts_with("W/") && !etag.starts_with("W/") && t == etag
            } else {
                opaque(t) == opaque(etag)
            }
    })
}

fn precondition(c: &Conditions, etag: Option<&str>, modified: i64) -> Option<Precondition> {
    let unchanged = if c.if_match.is_empty() {
        http_date::parse(&c.if_unmodified_since).map(|since| modified <= since)
    } else {
        Some(names(&c.if_match, etag, true))
    };
    if unchanged == Some(false) {
        return Some(Precondition::Failed);
    }
    if !c.if_none_match.is_empty() {
        return names(&c.if_none_match, etag, false).then(|| {
            if c.safe() {
                Precondition::NotModified
            } else {
                Precondition::Failed
            }
        });
    }
    let since = http_date::parse(&c.if_modified_since).filter(|_| c.safe())?;
    (modified <= since).then_some(Precondition::NotModified)
}

/// The `Range` to serve: none when `If-Range` names another version (an entity tag that
/// is not strongly the document's, or a date that is not its `Last-Modified`).
fn range_to_serve<'a>(c: &'a Conditions, etag: Option<&str>, modified: i64) -> &'a str {
    if c.range.is_empty() || c.if_range.is_empty() || !c.safe() {
        return &c.range;
    }
    let current = if c.if_range.starts_with('"') || c.if_range.starts_with("W/") {
        names(&c.if_range, etag, true)
    } else {
        http_date::parse(&c.if_range) == Some(modified)
    };
    if current { &c.range } else { "" }
}

fn set(headers: &mut HeaderMap, name: header::HeaderName, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        headers.insert(name, v);
    }
}

fn response(code: u16, headers: HeaderMap, body: Bytes) -> http::Response<Bytes> {
    let mut response = http::Response::new(body);
    *response.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
    *response.headers_mut() = headers;
    response
}

/// The response to `head` and `body` for a request with `conditions`. Only a 200 with a
/// document is conditional; any other reply goes out as it is.
pub fn answer(conditions: &Conditions, head: Head<'_>, body: Bytes) -> http::Response<Bytes> {
    let mut headers = HeaderMap::new();
    set(&mut headers, header::CACHE_CONTROL, "no-cache, private");
    if !head.content_type.is_empty() {
        set(&mut headers, header::CONTENT_TYPE, head.content_type);
    }
    if let Some(etag) = head.etag {
        set(&mut headers, header::ETAG, etag);
    }
    for (name, value) in head
        .document
        .map(|d| d.headers.as_slice())
        .unwrap_or_default()
    {
        if let Ok(v) = HeaderValue::from_str(value) {
            if name == header::CACHE_CONTROL {
                headers.insert(name, v);
            } else {
                headers.append(name, v);
            }
        }
    }
    let Some(document) = head.document.filter(|_| head.code == 200) else {
        return response(head.code, headers, body);
    };
    let modified = http_date::seconds(document.last_modified);
    set(
        &mut headers,
        header::LAST_MODIFIED,
        &http_date::format(document.last_modified),
    );
    match precondition(conditions, head.etag, modified) {
        Some(Precondition::Failed) => return response(412, headers, Bytes::new()),
        Some(Precondition::NotModified) => {
            headers.remove(header::CONTENT_TYPE);
            if head.etag.is_some() {
                headers.remove(header::LAST_MODIFIED);
            }
            return response(304, headers, Bytes::new());
        }
        None => {}
    }
    let size = i64::try_from(body.len()).unwrap_or(i64::MAX);
    match range::byte_range(range_to_serve(conditions, head.etag, modified), size) {
        Err(e) => {
            headers.remove(header::ETAG);
            headers.remove(header::LAST_MODIFIED);
            set(
                &mut headers,
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8",
            );
            set(&mut headers, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
            if e == RangeError::NoOverlap {
                set(
                    &mut headers,
                    header::CONTENT_RANGE,
                    &format!("bytes */{size}"),
                );
            }
            response(416, headers, Bytes::from(format!("{e}\n")))
        }
        // `ServeContent` sets the length it sends itself, so it is among the handler's headers
        // (a gzip handler in front drops it).
        Ok(None) => {
            set(&mut headers, header::ACCEPT_RANGES, "bytes");
            set(
                &mut headers,
                header::CONTENT_LENGTH,
                &body.len().to_string(),
            );
            response(200, headers, body)
        }
        Ok(Some(r)) => {
            let part = r.slice(&body);
            set(&mut headers, header::ACCEPT_RANGES, "bytes");
            set(
                &mut headers,
                header::CONTENT_LENGTH,
                &part.len().to_string(),
            );
            set(&mut headers, header::CONTENT_RANGE, &r.content_range(size));
            response(206, headers, part)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    const ETAG: &str = "\"ABC\"";
    const BUILT: &str = "Sat, 28 Nov 2026 02:21:58 GMT";

    fn document() -> Document {
        Document::at(UNIX_EPOCH + Duration::from_millis(1_795_832_518_900))
            .with_header(header::VARY, "Accept")
    }

    fn ask(method: Method, headers: &[(&str, &str)]) -> http::Response<Bytes> {
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            map.insert(
                header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        let document = document();
        let head = Head {
            code: 200,
            content_type: "application/json",
            etag: Some(ETAG),
            document: Some(&document),
        };
        answer(
            &Conditions::of(&method, &map),
            head,
            Bytes::from_static(b"0123456789"),
        )
    }

    fn get(headers: &[(&str, &str)]) -> (u16, HeaderMap, Bytes) {
        let (parts, body) = ask(Method::GET, headers).into_parts();
        (parts.status.as_u16(), parts.headers, body)
    }

    #[test]
    fn a_plain_get_has_the_validators_and_accepts_ranges() {
        let (code, headers, body) = get(&[]);
        assert_eq!(code, 200);
        assert_eq!(headers["last-modified"], BUILT);
        assert_eq!(headers["etag"], ETAG);
        assert_eq!(headers["accept-ranges"], "bytes");
        assert_eq!(headers["vary"], "Accept");
        assert_eq!(headers["cache-control"], "no-cache, private");
        assert_eq!(body, "0123456789");
    }

    #[test]
    fn a_current_copy_is_not_sent_again() {
        for conditions in [
            [("If-None-Match", ETAG), ("If-Modified-Since", "garbage")],
            [
                ("If-None-Match", "\"x\", W/\"ABC\""),
                ("Range", "bytes=0-1"),
            ],
            [("If-Modified-Since", BUILT), ("Range", "bytes=0-1")],
            [
                ("If-Modified-Since", "Sun, 29 Nov 2026 00:00:00 GMT"),
                ("If-Match", ETAG),
            ],
        ] {
            let (code, headers, body) = get(&conditions);
            assert_eq!(code, 304, "{conditions:?}");
            assert!(body.is_empty());
            assert_eq!(headers["etag"], ETAG);
            assert!(!headers.contains_key("last-modified"));
            assert!(!headers.contains_key("content-type"));
            assert!(!headers.contains_key("accept-ranges"));
        }
        // An older copy, or an If-None-Match naming another version (which overrides
        // If-Modified-Since), gets the document.
        for conditions in [
            [("If-Modified-Since", "Sat, 28 Nov 2026 02:21:57 GMT")],
            [("If-None-Match", "\"x\"")],
        ] {
            assert_eq!(get(&conditions).0, 200, "{conditions:?}");
        }
        let (code, ..) = get(&[("If-None-Match", "\"x\""), ("If-Modified-Since", BUILT)]);
        assert_eq!(code, 200);
    }

    #[test]
    fn failed_preconditions_are_412_with_the_validators() {
        for conditions in [
            [("If-Match", "\"x\"")],
            [("If-Match", "W/\"ABC\"")],
            [("If-Unmodified-Since", "Sat, 28 Nov 2026 02:21:57 GMT")],
        ] {
            let (code, headers, body) = get(&conditions);
            assert_eq!(code, 412, "{conditions:?}");
            assert!(body.is_empty());
            assert_eq!(headers["last-modified"], BUILT);
            assert_eq!(headers["content-type"], "application/json");
        }
        assert_eq!(get(&[("If-Match", ETAG)]).0, 200);
        assert_eq!(get(&[("If-Unmodified-Since", BUILT)]).0, 200);
        let post = ask(Method::POST, &[("If-None-Match", ETAG)]);
        assert_eq!(post.status(), 412);
    }

    #[test]
    fn one_range_is_206_and_several_are_ignored() {
        let (code, headers, body) = get(&[("Range", "bytes=2-4")]);
        assert_eq!((code, body.as_ref()), (206, b"234".as_ref()));
        assert_eq!(headers["content-range"], "bytes 2-4/10");
        assert_eq!(headers["accept-ranges"], "bytes");
        assert_eq!(headers["last-modified"], BUILT);
        let (code, _, body) = get(&[("Range", "bytes=0-0,abc")]);
        assert_eq!((code, body.len()), (200, 10));
    }

    #[test]
    fn if_range_names_the_version_a_range_is_of() {
        for current in [ETAG, BUILT] {
            assert_eq!(get(&[("Range", "bytes=0-1"), ("If-Range", current)]).0, 206);
        }
        for other in [
            "\"x\"",
            "W/\"ABC\"",
            "Sun, 29 Nov 2026 00:00:00 GMT",
            "garbage",
        ] {
            assert_eq!(get(&[("Range", "bytes=0-1"), ("If-Range", other)]).0, 200);
        }
    }

    #[test]
    fn an_unservable_range_is_416_in_plain_text() {
        let (code, headers, body) = get(&[("Range", "bytes=10-")]);
        assert_eq!(code, 416);
        assert_eq!(body, "invalid range: failed to overlap\n");
        assert_eq!(headers["content-range"], "bytes */10");
        assert_eq!(headers["content-type"], "text/plain; charset=utf-8");
        assert_eq!(headers["x-content-type-options"], "nosniff");
        for gone in ["etag", "last-modified", "accept-ranges"] {
            assert!(!headers.contains_key(gone), "{gone}");
        }
        let (code, headers, body) = get(&[("Range", "items=0-1")]);
        assert_eq!((code, body.as_ref()), (416, b"invalid range\n".as_ref()));
        assert!(!headers.contains_key("content-range"));
    }

    #[test]
    fn other_replies_are_not_conditional() {
        let mut map = HeaderMap::new();
        map.insert(header::IF_NONE_MATCH, HeaderValue::from_static(ETAG));
        let document = document().with_header(header::LOCATION, "/elsewhere");
        let head = Head {
            code: 301,
            content_type: "application/json",
            etag: Some(ETAG),
            document: Some(&document),
        };
        let response = answer(&Conditions::of(&Method::GET, &map), head, Bytes::new());
        assert_eq!(response.status(), 301);
        assert_eq!(response.headers()["location"], "/elsewhere");
        assert!(!response.headers().contains_key("last-modified"));
    }
}
