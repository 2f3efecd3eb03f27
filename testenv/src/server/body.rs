//! Response bodies: a whole JSON document, or a watch stream of chunks.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};

use crate::support::request::Reply;
use crate::support::request::WatchStream;
use crate::support::status::ApiError;

/// The body of every response the server sends.
pub enum ResponseBody {
    /// A complete document.
    Full(Option<Bytes>),
    /// A stream of watch events.
    Stream(WatchStream),
}

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.get_mut() {
            ResponseBody::Full(data) => Poll::Ready(data.take().map(|d| Ok(Frame::data(d)))),
            ResponseBody::Stream(s) => {
                s.0.as_mut()
                    .poll_next(cx)
                    .map(|o| o.map(|d| Ok(Frame::data(d))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, ResponseBody::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            ResponseBody::Full(Some(d)) => SizeHint::with_exact(d.len() as u64),
            ResponseBody::Full(None) => SizeHint::with_exact(0),
            ResponseBody::Stream(_) => SizeHint::default(),
        }
    }
}

fn quote_warning(w: &str) -> String {
    format!("299 - \"{}\"", w.replace('\\', "\\\\").replace('"', "\\\""))
}

fn content_type_is_text(builder: &http::response::Builder) -> bool {
    builder
        .headers_ref()
        .and_then(|h| h.get(http::header::CONTENT_TYPE))
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/plain"))
}

/// Turns a handler's reply into an HTTP response.
pub fn into_response(reply: Reply) -> http::Response<ResponseBody> {
    match reply {
        Reply::Json {
            code,
            body,
            content_type,
            warnings,
        } => {
            let mut builder = http::Response::builder()
                .status(code)
                .header(http::header::CONTENT_TYPE, content_type)
                .header("Cache-Control", "no-cache, private");
            for w in warnings {
                builder = builder.header("Warning", quote_warning(&w));
            }
            // Like the real server's error writer: a Status asking for a retry delay also
            // says so in `Retry-After`.
            if code >= 400
                && let Some(secs) = body["details"]["retryAfterSeconds"].as_u64()
                && secs > 0
            {
                builder = builder.header(http::header::RETRY_AFTER, secs.to_string());
            }
            let bytes = match &body {
                // Plain text answers (the mux's `404 page not found`) go out as they are.
                serde_json::Value::String(text) if content_type_is_text(&builder) => {
                    Bytes::from(text.clone())
                }
                _ => Bytes::from(crate::support::json_order::to_vec(&body)),
            };
            builder
                .body(ResponseBody::Full(Some(bytes)))
                .unwrap_or_else(|_| http::Response::new(ResponseBody::Full(None)))
        }
        Reply::Raw {
            code,
            content_type,
            body,
            etag,
        } => {
            let mut builder = http::Response::builder()
                .status(code)
                .header("Cache-Control", "no-cache, private");
            if !content_type.is_empty() {
                builder = builder.header(http::header::CONTENT_TYPE, content_type);
            }
            if let Some(etag) = etag {
                builder = builder.header(http::header::ETAG, etag);
            }
            builder
                .body(ResponseBody::Full(Some(body)))
                .unwrap_or_else(|_| http::Response::new(ResponseBody::Full(None)))
        }
        Reply::Watch(stream) => http::Response::builder()
            .status(200)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header("Cache-Control", "no-cache, private")
            .body(ResponseBody::Stream(stream))
            .unwrap_or_else(|_| http::Response::new(ResponseBody::Full(None))),
    }
}

/// A response for an error found before a handler ran.
pub fn error_response(e: ApiError) -> http::Response<ResponseBody> {
    into_response(Reply::error(e))
}

/// A 200 answer carrying the `ETag` a request's `If-None-Match` names becomes an empty 304
/// with the same headers but the body's, as Go's `http.ServeContent` answers.
pub fn not_modified_if_matched(
    if_none_match: &str,
    response: http::Response<ResponseBody>,
) -> http::Response<ResponseBody> {
    let matched = response.status() == http::StatusCode::OK
        && response
            .headers()
            .get(http::header::ETAG)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|etag| {
                if_none_match
                    .split(',')
                    .any(|t| t.trim() == etag || t.trim() == "*")
            });
    if !matched {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    parts.status = http::StatusCode::NOT_MODIFIED;
    parts.headers.remove(http::header::CONTENT_TYPE);
    parts.headers.remove(http::header::CONTENT_LENGTH);
    http::Response::from_parts(parts, ResponseBody::Full(None))
}
