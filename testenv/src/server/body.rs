//! Response bodies: a whole JSON, YAML or protobuf document, or a watch stream of chunks; served documents
//! answer conditional and range requests ([`conditional`]); whole bodies are gzipped when the
//! client accepts it, by the rules of the writer that sends them on kube-apiserver
//! ([`compress`]).

mod cacheable;
mod compress;
mod conditional;
mod http_date;
mod pretty;
mod range;

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};

use crate::support::request::WatchStream;
use crate::support::request::{Document, Reply};
use crate::support::status::ApiError;

pub use conditional::Conditions;

/// The body of every response the server sends.
pub enum ResponseBody {
    /// A complete document, sent with its `Content-Length`.
    Full(Option<Bytes>),
    /// A complete document sent without its length (chunked), as Go's `net/http` sends a
    /// handler's answer longer than its write buffer ([`WRITE_BUFFER`]).
    Unsized(Option<Bytes>),
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
            ResponseBody::Full(data) | ResponseBody::Unsized(data) => {
                Poll::Ready(data.take().map(|d| Ok(Frame::data(d))))
            }
            ResponseBody::Stream(s) => {
                s.0.as_mut()
                    .poll_next(cx)
                    .map(|o| o.map(|d| Ok(Frame::data(d))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, ResponseBody::Full(None) | ResponseBody::Unsized(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            ResponseBody::Full(Some(d)) => SizeHint::with_exact(d.len() as u64),
            ResponseBody::Full(None) => SizeHint::with_exact(0),
            ResponseBody::Unsized(_) | ResponseBody::Stream(_) => SizeHint::default(),
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

fn content_type_is_protobuf(builder: &http::response::Builder) -> bool {
    builder
        .headers_ref()
        .and_then(|h| h.get(http::header::CONTENT_TYPE))
        .and_then(|v| v.to_str().ok())
        // Aggregated discovery's names its form in parameters.
        .is_some_and(|v| v.split(';').next() == Some("application/vnd.kubernetes.protobuf"))
}

fn content_type_is_yaml(builder: &http::response::Builder) -> bool {
    builder
        .headers_ref()
        .and_then(|h| h.get(http::header::CONTENT_TYPE))
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next() == Some("application/yaml"))
}

/// The real server's answer when its YAML serializer cannot convert the JSON it wrote (yaml.v2's
/// reader refuses a character): a 500 `Status` with the reader's message, in YAML.
fn unconvertible(message: &str, warnings: Vec<String>) -> Reply {
    Reply::Json {
        code: 500,
        body: serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": message, "code": 500}),
        content_type: "application/yaml".into(),
        warnings,
    }
}

/// Whether a served document says it varies on `Accept-Encoding`.
fn varies_on_encoding(document: &Document) -> bool {
    document.headers.iter().any(|(name, value)| {
        name == http::header::VARY && value.eq_ignore_ascii_case("Accept-Encoding")
    })
}

/// Turns a handler's reply into an HTTP response, for a request without conditions.
pub fn into_response(reply: Reply) -> http::Response<ResponseBody> {
    respond(reply, &Conditions::default())
}

/// Turns a handler's reply into the HTTP response to a request with `conditions`.
pub fn respond(reply: Reply, conditions: &Conditions) -> http::Response<ResponseBody> {
    let content_type = match &reply {
        Reply::ProtobufWatch(_) => "application/vnd.kubernetes.protobuf;stream=watch",
        _ => "application/json",
    };
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
            for w in &warnings {
                builder = builder.header("Warning", quote_warning(w));
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
                    // Go's `http.Error` and the health checks' root handler say not to sniff
                    // (text without that header is a `Reply::Raw`).
                    builder = builder.header(http::header::X_CONTENT_TYPE_OPTIONS, "nosniff");
                    return builder
                        .body(ResponseBody::Full(Some(Bytes::from(text.clone()))))
                        .unwrap_or_else(|_| http::Response::new(ResponseBody::Full(None)));
                }
                // YAML, converted from the JSON as the real server's YAML serializer does
                // (`?pretty` changes nothing).
                _ if content_type_is_yaml(&builder) => {
                    let json = crate::support::json_order::to_vec(&body);
                    match crate::support::yaml_v2::from_json(&json) {
                        Ok(text) => Bytes::from(text),
                        Err(message) => {
                            return respond(unconvertible(message, warnings), conditions);
                        }
                    }
                }
                // Protobuf, when the encoder can write the object (negotiation checked it).
                _ if content_type_is_protobuf(&builder)
                    && let Ok(encoded) = crate::support::protobuf::encode(&body) =>
                {
                    Bytes::from(encoded)
                }
                _ => {
                    let compact = crate::support::json_order::to_vec(&body);
                    if conditions.pretty() {
                        Bytes::from(pretty::indent(&compact))
                    } else {
                        let mut line = compact;
                        line.push(b'\n');
                        Bytes::from(line)
                    }
                }
            };
            // API objects, lists, Status errors and discovery: the API response writer's rule.
            let bytes = if bytes.len() > compress::API_THRESHOLD
                && compress::api_accepts_gzip(conditions.accept_encoding())
            {
                builder = builder
                    .header(http::header::CONTENT_ENCODING, "gzip")
                    .header(http::header::VARY, "Accept-Encoding");
                compress::gzip(&bytes, 1)
            } else {
                bytes
            };
            builder
                .body(written(bytes))
                .unwrap_or_else(|_| http::Response::new(ResponseBody::Full(None)))
        }
        Reply::Raw {
            code,
            content_type,
            body,
            etag,
            document,
        } => {
            let head = conditional::Head {
                code,
                content_type: &content_type,
                etag: etag.as_deref(),
                document: document.as_ref(),
            };
            // A document that varies on `Accept-Encoding` (`/openapi/v2`) is served behind
            // the gzip handler.
            let gzip_handler = document.as_ref().is_some_and(varies_on_encoding);
            let (mut parts, mut body) = conditional::answer(conditions, head, body).into_parts();
            let mut gzipped = false;
            if gzip_handler
                && !conditions.is_head()
                && body.len() >= compress::HANDLER_MIN_SIZE
                && compress::handler_accepts_gzip(conditions.accept_encoding())
            {
                parts.headers.insert(
                    http::header::CONTENT_ENCODING,
                    http::HeaderValue::from_static("gzip"),
                );
                parts.headers.remove(http::header::CONTENT_LENGTH);
                body = compress::gzip(&body, 6);
                gzipped = true;
            }
            // A 304 carries no body at all (not even an empty one with its length).
            if parts.status == http::StatusCode::NOT_MODIFIED {
                return http::Response::from_parts(parts, ResponseBody::Full(None));
            }
            // `http.ServeContent` sets the length; the gzip handler drops it, leaving the
            // answer to the write buffer's rule.
            let body = if gzipped {
                written(body)
            } else {
                ResponseBody::Full(Some(body))
            };
            http::Response::from_parts(parts, body)
        }
        Reply::Cacheable {
            cache_control,
            etag,
            reply,
        } => {
            let mut response =
                if cacheable::not_modified(etag.as_deref(), conditions.if_none_match()) {
                    let mut not_modified = http::Response::new(ResponseBody::Full(None));
                    *not_modified.status_mut() = http::StatusCode::NOT_MODIFIED;
                    not_modified
                } else {
                    respond(*reply, conditions)
                };
            cacheable::set_headers(response.headers_mut(), cache_control, etag.as_deref());
            response
        }
        Reply::Watch(stream) | Reply::ProtobufWatch(stream) => http::Response::builder()
            .status(200)
            .header(http::header::CONTENT_TYPE, content_type)
            .header("Cache-Control", "no-cache, private")
            .body(ResponseBody::Stream(stream))
            .unwrap_or_else(|_| http::Response::new(ResponseBody::Full(None))),
    }
}

/// How many bytes of a handler's answer Go's `net/http` buffers over HTTP/1.1 before sending
/// it: an answer that fits goes out with its `Content-Length`, a longer one chunked.
pub const WRITE_BUFFER: usize = 2048;

/// How many bytes of a handler's answer Go's HTTP/2 server buffers before sending it: an
/// answer that fits goes out with its `content-length`, a longer one without.
pub const WRITE_BUFFER_H2: usize = 4096;

/// `response` framed for the request's protocol, headed as Go's `net/http` heads it. Over
/// HTTP/1.1: the handler's headers sorted by name, then `Date`, then the length of a whole
/// body or `Transfer-Encoding: chunked` (which hyper writes after the headers it is given;
/// it writes their names in Go's canonical case, see the listener). Over HTTP/2: the
/// handler's headers sorted by name, then the `content-length` of an answer that fit its
/// write buffer ([`WRITE_BUFFER_H2`]; an empty one too), then `date`.
pub fn framed(
    version: http::Version,
    mut response: http::Response<ResponseBody>,
) -> http::Response<ResponseBody> {
    if version != http::Version::HTTP_2 {
        let headers = std::mem::take(response.headers_mut());
        let mut sorted = sorted_by_name(&headers, |_| true);
        with_date(&mut sorted);
        *response.headers_mut() = sorted;
        return response;
    }
    if let ResponseBody::Unsized(data) = response.body_mut()
        && data.as_ref().is_none_or(|d| d.len() <= WRITE_BUFFER_H2)
    {
        *response.body_mut() = ResponseBody::Full(data.take());
    }
    let status = response.status();
    let body_allowed = !status.is_informational()
        && status != http::StatusCode::NO_CONTENT
        && status != http::StatusCode::NOT_MODIFIED;
    let headers = std::mem::take(response.headers_mut());
    let mut length = headers.get(http::header::CONTENT_LENGTH).cloned();
    if length.is_none()
        && body_allowed
        && let ResponseBody::Full(data) = response.body()
    {
        length = Some(http::HeaderValue::from(data.as_ref().map_or(0, Bytes::len)));
    }
    let mut sorted = sorted_by_name(&headers, |name| name != http::header::CONTENT_LENGTH);
    if let Some(length) = length {
        sorted.insert(http::header::CONTENT_LENGTH, length);
    }
    with_date(&mut sorted);
    *response.headers_mut() = sorted;
    response
}

/// The `headers` that `keep` keeps, sorted by name (each name's values in their order), as
/// Go writes a handler's headers.
fn sorted_by_name(
    headers: &http::HeaderMap,
    keep: impl Fn(&http::header::HeaderName) -> bool,
) -> http::HeaderMap {
    let mut names: Vec<&http::header::HeaderName> =
        headers.keys().filter(|name| keep(name)).collect();
    names.sort_unstable_by_key(|name| name.as_str());
    let mut sorted = http::HeaderMap::with_capacity(headers.len() + 2);
    for name in names {
        for value in headers.get_all(name) {
            sorted.append(name.clone(), value.clone());
        }
    }
    sorted
}

/// `headers` with the server's `Date` last, unless the handler set one.
fn with_date(headers: &mut http::HeaderMap) {
    if !headers.contains_key(http::header::DATE)
        && let Ok(date) =
            http::HeaderValue::from_str(&http_date::format(std::time::SystemTime::now()))
    {
        headers.insert(http::header::DATE, date);
    }
}

/// `bytes` as a Go handler's write sends them: with their length when they fit the write
/// buffer, chunked otherwise.
fn written(bytes: Bytes) -> ResponseBody {
    if bytes.len() > WRITE_BUFFER {
        ResponseBody::Unsized(Some(bytes))
    } else {
        ResponseBody::Full(Some(bytes))
    }
}

/// `response` with `X-Content-Type-Options: nosniff`, as Go's `http.Error` and the real
/// server's refusal writer send it.
pub fn nosniff(mut response: http::Response<ResponseBody>) -> http::Response<ResponseBody> {
    response.headers_mut().insert(
        http::header::X_CONTENT_TYPE_OPTIONS,
        http::HeaderValue::from_static("nosniff"),
    );
    response
}

/// A response for an error found before a handler ran.
pub fn error_response(e: ApiError) -> http::Response<ResponseBody> {
    into_response(Reply::error(e))
}
