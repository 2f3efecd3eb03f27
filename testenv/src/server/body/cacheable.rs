//! A reply a client may cache ([`Reply::Cacheable`](crate::support::request::Reply)): the
//! `Cache-Control` its handler sets in place of the default `no-cache, private`, and for a
//! document served as kube-apiserver serves aggregated discovery (`ServeHTTPWithETag`) its
//! entity tag and `Vary: Accept` on every answer, with a bare 304 when the request's
//! `If-None-Match` is exactly the tag.

use http::HeaderValue;
use http::header::{CACHE_CONTROL, ETAG, VARY};

use super::ResponseBody;

/// `answer` (built only when needed) with the caching headers `cache_control` and `etag`, or
/// the 304 that replaces it for a client whose `If-None-Match` is `etag` (Go compares the two
/// as strings: a list, a weak tag or `*` is no match).
pub fn respond(
    cache_control: &'static str,
    etag: Option<&str>,
    if_none_match: &str,
    answer: impl FnOnce() -> http::Response<ResponseBody>,
) -> http::Response<ResponseBody> {
    let mut response = if etag.is_some_and(|tag| tag == if_none_match) {
        let mut not_modified = http::Response::new(ResponseBody::Full(None));
        *not_modified.status_mut() = http::StatusCode::NOT_MODIFIED;
        not_modified
    } else {
        answer()
    };
    let headers = response.headers_mut();
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
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAG: &str = "\"ABC\"";

    fn answer() -> http::Response<ResponseBody> {
        http::Response::builder()
            .status(200)
            .header(CACHE_CONTROL, "no-cache, private")
            .header(VARY, "Accept-Encoding")
            .body(ResponseBody::Full(Some(bytes::Bytes::from_static(b"{}"))))
            .unwrap()
    }

    #[test]
    fn a_tagged_answer_carries_the_tag_and_public_caching() {
        let response = respond("public", Some(TAG), "", answer);
        assert_eq!(response.status(), 200);
        let h = response.headers();
        assert_eq!(h[ETAG], TAG);
        assert_eq!(h[CACHE_CONTROL], "public");
        let vary: Vec<_> = h.get_all(VARY).iter().collect();
        assert_eq!(vary, ["Accept", "Accept-Encoding"]);
    }

    #[test]
    fn only_the_exact_tag_is_not_modified() {
        let response = respond("public", Some(TAG), TAG, || {
            panic!("a 304 builds no answer")
        });
        assert_eq!(response.status(), 304);
        assert!(matches!(response.body(), ResponseBody::Full(None)));
        assert_eq!(response.headers()[ETAG], TAG);
        for other in ["W/\"ABC\"", "*", "\"X\", \"ABC\"", "ABC"] {
            let response = respond("public", Some(TAG), other, answer);
            assert_eq!(response.status(), 200, "{other}");
        }
    }

    #[test]
    fn an_untagged_answer_only_changes_its_caching() {
        let response = respond("public, max-age=3600", None, TAG, answer);
        assert_eq!(response.status(), 200);
        let h = response.headers();
        assert_eq!(h[CACHE_CONTROL], "public, max-age=3600");
        assert!(h.get(ETAG).is_none());
        let vary: Vec<_> = h.get_all(VARY).iter().collect();
        assert_eq!(vary, ["Accept-Encoding"]);
    }
}
