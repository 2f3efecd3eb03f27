//! An answer served with an entity tag as kube-apiserver serves aggregated discovery
//! (`ServeHTTPWithETag`): the tag, `Vary: Accept` and `Cache-Control: public` on every answer,
//! and a bare 304 when the request's `If-None-Match` is exactly the tag.

use http::HeaderValue;
use http::header::{CACHE_CONTROL, ETAG, VARY};

use super::ResponseBody;

/// `answer` (built only when needed) with the headers of `etag`, or the 304 that replaces it
/// for a client whose `If-None-Match` is `etag` (Go compares the two as strings: a list, a
/// weak tag or `*` is no match).
pub fn respond(
    etag: &str,
    if_none_match: &str,
    answer: impl FnOnce() -> http::Response<ResponseBody>,
) -> http::Response<ResponseBody> {
    let mut response = if if_none_match == etag {
        let mut not_modified = http::Response::new(ResponseBody::Full(None));
        *not_modified.status_mut() = http::StatusCode::NOT_MODIFIED;
        not_modified
    } else {
        answer()
    };
    let headers = response.headers_mut();
    // `Vary: Accept` is set before the answer is written; a gzipped answer adds
    // `Accept-Encoding` after it.
    let written_vary: Vec<HeaderValue> = headers.get_all(VARY).iter().cloned().collect();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("public"));
    headers.insert(VARY, HeaderValue::from_static("Accept"));
    for value in written_vary {
        headers.append(VARY, value);
    }
    if let Ok(value) = HeaderValue::from_str(etag) {
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
    fn an_answer_carries_the_tag_and_public_caching() {
        let response = respond(TAG, "", answer);
        assert_eq!(response.status(), 200);
        let h = response.headers();
        assert_eq!(h[ETAG], TAG);
        assert_eq!(h[CACHE_CONTROL], "public");
        let vary: Vec<_> = h.get_all(VARY).iter().collect();
        assert_eq!(vary, ["Accept", "Accept-Encoding"]);
    }

    #[test]
    fn only_the_exact_tag_is_not_modified() {
        let response = respond(TAG, TAG, || panic!("a 304 builds no answer"));
        assert_eq!(response.status(), 304);
        assert!(matches!(response.body(), ResponseBody::Full(None)));
        assert_eq!(response.headers()[ETAG], TAG);
        for other in ["W/\"ABC\"", "*", "\"X\", \"ABC\"", "ABC"] {
            assert_eq!(respond(TAG, other, answer).status(), 200, "{other}");
        }
    }
}
