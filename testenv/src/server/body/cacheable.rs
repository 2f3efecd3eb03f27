//! A reply a client may cache ([`Reply::Cacheable`](crate::support::request::Reply)): the
//! `Cache-Control` its handler sets in place of the default `no-cache, private`, and for a
//! document served as kube-apiserver serves aggregated discovery (`ServeHTTPWithETag`) its
//! entity tag and `Vary: Accept` on every answer, with a bare 304 when the request's
//! `If-None-Match` is exactly the tag.

use http::HeaderMap;
use http::HeaderValue;
use http::header::{CACHE_CONTROL, ETAG, VARY};

/// Whether a client whose `If-None-Match` is `if_none_match` holds the version `etag`: Go
/// compares the two as strings (a list, a weak tag or `*` is no match).
pub fn not_modified(etag: Option<&str>, if_none_match: &str) -> bool {
    etag.is_some_and(|tag| tag == if_none_match)
}

/// Sets the caching headers `cache_control` and `etag` on an answer's `headers`.
pub fn set_headers(headers: &mut HeaderMap, cache_control: &'static str, etag: Option<&str>) {
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(cache_control));
    if let Some(value) = etag.and_then(|tag| HeaderValue::from_str(tag).ok()) {
        // `Vary: Accept` is set before the answer is written; a gzipped answer adds
        // `Accept-Encoding` after it.
        let written_vary: Vec<HeaderValue> = headers.get_all(VARY).iter().cloned().collect();
        headers.insert(VARY, HeaderValue::from_static("Accept"));
        for vary in written_vary {
            headers.append(VARY, vary);
        }
        headers.insert(ETAG, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAG: &str = "\"ABC\"";

    fn written() -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache, private"));
        headers.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
        headers
    }

    #[test]
    fn a_tagged_answer_carries_the_tag_and_public_caching() {
        let mut h = written();
        set_headers(&mut h, "public", Some(TAG));
        assert_eq!(h[ETAG], TAG);
        assert_eq!(h[CACHE_CONTROL], "public");
        let vary: Vec<_> = h.get_all(VARY).iter().collect();
        assert_eq!(vary, ["Accept", "Accept-Encoding"]);
    }

    #[test]
    fn only_the_exact_tag_is_not_modified() {
        assert!(not_modified(Some(TAG), TAG));
        for other in ["W/\"ABC\"", "*", "\"X\", \"ABC\"", "ABC", ""] {
            assert!(!not_modified(Some(TAG), other), "{other}");
        }
        assert!(!not_modified(None, ""));
    }

    #[test]
    fn an_untagged_answer_only_changes_its_caching() {
        let mut h = written();
        set_headers(&mut h, "public, max-age=3600", None);
        assert_eq!(h[CACHE_CONTROL], "public, max-age=3600");
        assert!(h.get(ETAG).is_none());
        let vary: Vec<_> = h.get_all(VARY).iter().collect();
        assert_eq!(vary, ["Accept-Encoding"]);
    }
}
