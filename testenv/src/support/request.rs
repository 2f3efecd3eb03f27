//! The request and reply of one API call, as every layer sees them: the parsed HTTP request
//! ([`Req`]), what its path addresses ([`Route`], [`Target`]), and the answer ([`Reply`], a
//! JSON document or a [`WatchStream`]).

use std::pin::Pin;
use std::sync::Arc;
use std::time::SystemTime;

use bytes::Bytes;
use futures::Stream;
use http::Method;
use serde_json::Value;

use super::go_json;
use super::query::Query;
use super::resource::ResourceDef;
use super::status::ApiError;
use super::user::User;

/// What a request path addresses.
#[derive(Debug, Clone)]
pub enum Route {
    /// `/version`
    Version,
    /// `/healthz`, `/livez`, `/readyz`
    Health,
    /// `/.well-known/openid-configuration` of the service account issuer
    OpenIdConfiguration,
    /// `/openid/v1/jwks`: the keys service account tokens are signed with
    Jwks,
    /// `/api`
    CoreVersions,
    /// `/apis`
    Groups,
    /// `/apis/<group>`
    Group(String),
    /// `/api/v1` or `/apis/<group>/<version>`
    Resources(String, String),
    /// `/openapi/v3`
    OpenApiV3,
    /// `/openapi/v3/<key>`: `api/v1`, `apis/<group>/<version>`, `apis/<group>`, `version`, ...
    OpenApiV3Document(String),
    /// `/openapi/v2`: the whole API as one Swagger 2.0 document
    OpenApiV2,
    /// An object, a collection or a subresource.
    Object(Target),
}

/// A resource request: which resource, namespace, object and subresource.
#[derive(Debug, Clone)]
pub struct Target {
    /// The addressed resource.
    pub def: Arc<ResourceDef>,
    /// The namespace in the path, if any.
    pub namespace: Option<String>,
    /// The object name, None for collections.
    pub name: Option<String>,
    /// `status`, `scale`, `finalize`, ...
    pub subresource: Option<String>,
    /// Whether the legacy `/watch/` path prefix was used.
    pub legacy_watch: bool,
}

/// Why a path could not be routed.
#[derive(Debug, Clone, PartialEq)]
pub enum RouteError {
    /// Nothing is served at this path.
    NotFound,
}

/// The body of a watch response: one JSON event per line.
pub struct WatchStream(pub Pin<Box<dyn Stream<Item = Bytes> + Send>>);

/// One HTTP request, already read.
#[derive(Debug, Clone)]
pub struct Req {
    /// HTTP method.
    pub method: Method,
    /// Path without query.
    pub path: String,
    /// Decoded query parameters.
    pub query: Query,
    /// The `Accept` header.
    pub accept: String,
    /// The `Content-Type` header.
    pub content_type: String,
    /// The `User-Agent` header (its prefix names the default field manager).
    pub user_agent: String,
    /// The request body.
    pub body: Bytes,
    /// The bearer token of the `Authorization` header, empty without one.
    pub bearer: String,
    /// Who makes the request: set by authentication before the handlers run.
    pub user: User,
    /// The identity a create keeps instead of a new one; set only on the create the server
    /// makes to itself after validating webhooks saw that identity (a real server assigns it
    /// before validating admission runs).
    pub assigned: Option<Assigned>,
}

/// The uid and creation time of an object being created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assigned {
    /// `metadata.uid`
    pub uid: String,
    /// `metadata.creationTimestamp`
    pub creation_timestamp: String,
}

impl Assigned {
    /// The identity of `object`, when it has both a uid and a creation time.
    pub fn of(object: &Value) -> Option<Assigned> {
        let metadata = object.get("metadata")?;
        let field = |name: &str| {
            metadata
                .get(name)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        Some(Assigned {
            uid: field("uid")?,
            creation_timestamp: field("creationTimestamp")?,
        })
    }
}

/// What to send back.
pub enum Reply {
    /// A JSON document with a status code, content type and `Warning` headers.
    Json {
        /// HTTP status.
        code: u16,
        /// The document.
        body: Value,
        /// The `Content-Type` to send.
        content_type: String,
        /// Messages for `Warning: 299 - "..."` headers.
        warnings: Vec<String>,
    },
    /// A watch: newline-delimited JSON events.
    Watch(WatchStream),
    /// A watch in protobuf (`application/vnd.kubernetes.protobuf;stream=watch`): length-prefixed
    /// `WatchEvent` frames.
    ProtobufWatch(WatchStream),
    /// A reply a client may cache, with the headers its handler sets: `Cache-Control` (the
    /// OpenID documents' `public, max-age=3600`), and for a document served with an entity
    /// tag as kube-apiserver serves aggregated discovery (`ServeHTTPWithETag`) `ETag` and
    /// `Vary: Accept`, and a 304 without a body when the request's `If-None-Match` is exactly
    /// that tag.
    Cacheable {
        /// The `Cache-Control` to send.
        cache_control: &'static str,
        /// The quoted entity tag, if any.
        etag: Option<String>,
        /// The answer when the client's copy is not that version.
        reply: Box<Reply>,
    },
    /// Bytes as they are (204 No Content, a JSON Web Key set); no `Content-Type` when empty.
    Raw {
        /// HTTP status.
        code: u16,
        /// The `Content-Type` to send, if any.
        content_type: String,
        /// The body.
        body: Bytes,
        /// An `ETag` to send (quoted); a request whose `If-None-Match` names it gets 304.
        etag: Option<String>,
        /// Set for a document served as Go's `http.ServeContent` serves one (the OpenAPI
        /// documents): `Last-Modified`, `Accept-Ranges`, conditional requests and ranges.
        document: Option<Document>,
    },
}

/// What a served document adds to a [`Reply::Raw`]: when it last changed and the headers
/// its handler sets besides the validators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// When this version of the document was built (sent as `Last-Modified`, whole seconds).
    pub last_modified: SystemTime,
    /// More headers (`Vary`, or a `Cache-Control` replacing the default `no-cache, private`).
    pub headers: Vec<(http::HeaderName, String)>,
}

impl Document {
    /// A document built at `last_modified`, with no more headers.
    pub fn at(last_modified: SystemTime) -> Self {
        Document {
            last_modified,
            headers: Vec::new(),
        }
    }

    /// The same document with `name: value` sent too.
    pub fn with_header(mut self, name: http::HeaderName, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }
}

impl Reply {
    /// A JSON reply with `application/json`.
    pub fn json(code: u16, body: Value) -> Self {
        Reply::Json {
            code,
            body,
            content_type: "application/json".into(),
            warnings: Vec::new(),
        }
    }

    /// The reply with `edit` applied to a JSON reply's body, content type and warnings (its
    /// status code given to read); other replies as they are.
    pub fn edit_json(
        mut self,
        edit: impl FnOnce(u16, &mut Value, &mut String, &mut Vec<String>),
    ) -> Self {
        if let Reply::Json {
            code,
            body,
            content_type,
            warnings,
        } = &mut self
        {
            edit(*code, body, content_type, warnings);
        }
        self
    }

    /// An empty answer with `code` (204 No Content).
    pub fn empty(code: u16) -> Self {
        Reply::Raw {
            code,
            content_type: String::new(),
            body: Bytes::new(),
            etag: None,
            document: None,
        }
    }

    /// An error reply (a `Status` object).
    pub fn error(e: ApiError) -> Self {
        Reply::Json {
            code: e.code,
            body: e.to_status(),
            content_type: "application/json".into(),
            warnings: e.warnings,
        }
    }
}

impl From<Result<Reply, ApiError>> for Reply {
    fn from(r: Result<Reply, ApiError>) -> Self {
        r.unwrap_or_else(Reply::error)
    }
}

/// Whether a body is sent as JSON (the default when no type is given).
/// Whether the body is sent as JSON (not YAML, protobuf or CBOR).
pub fn is_json(req: &Req) -> bool {
    !["yaml", "protobuf", "cbor"]
        .iter()
        .any(|t| req.content_type.contains(t))
}

/// The start of a body as the real server's decoder quotes it in an error: up to 30 bytes
/// of a JSON-looking body, hex otherwise.
fn summarize(body: &[u8]) -> String {
    const MAX: usize = 30;
    let (head, more) = (&body[..body.len().min(MAX)], body.len() > MAX);
    let text = match body.first() {
        None => return "<empty>".into(),
        Some(b'{') => String::from_utf8_lossy(head).into_owned(),
        Some(_) => head.iter().map(|b| format!("{b:02x}")).collect(),
    };
    if more { format!("{text} ...") } else { text }
}

/// Parses the body of a create or update of a `kind` object: a body that is not JSON gets
/// the real server's 400 with Go's syntax error.
pub fn object_body(req: &Req, kind: &str) -> Result<Value, ApiError> {
    if is_json(req)
        && let Some(why) = go_json::syntax_error(&req.body)
    {
        return Err(ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {kind}): couldn't get version/kind; json parse error: {why} ({})",
            summarize(&req.body)
        )));
    }
    json_body(req)
}

/// Parses the body of a JSON, merge or strategic merge patch: one that is not JSON gets the
/// real server's 400 with Go's syntax error.
pub fn patch_json_body(req: &Req) -> Result<Value, ApiError> {
    if let Some(why) = go_json::syntax_error(&req.body) {
        return Err(ApiError::bad_request(format!(
            "error decoding patch: {why}"
        )));
    }
    json_body(req)
}

/// Parses a JSON request body, with the real server's message on failure.
pub fn json_body(req: &Req) -> Result<Value, ApiError> {
    if req.content_type.contains("protobuf") || req.content_type.contains("cbor") {
        // JSON and YAML are understood, plus the protobuf bodies of kubectl's typed commands.
        let why = match super::protobuf::decode(&req.body) {
            Ok(object) => return Ok(object),
            Err(why) if why.is_bad_request() => return Err(ApiError::bad_request(why.to_string())),
            Err(why) => why,
        };
        let mut e = ApiError::unsupported_media_type();
        e.message = format!(
            "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml ({} body: {why})",
            req.content_type
        );
        return Err(e);
    }
    if req.content_type.contains("yaml") {
        let text =
            std::str::from_utf8(&req.body).map_err(|e| ApiError::bad_request(e.to_string()))?;
        return serde_saphyr::from_str::<Value>(text)
            .map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}")));
    }
    serde_json::from_slice(&req.body).map_err(|e| {
        ApiError::bad_request(format!(
            "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml ({e})"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_identity_needs_both_a_uid_and_a_creation_time() {
        let o = json!({"metadata": {"uid": "u", "creationTimestamp": "t"}});
        assert_eq!(
            Assigned::of(&o),
            Some(Assigned {
                uid: "u".into(),
                creation_timestamp: "t".into()
            })
        );
        assert_eq!(Assigned::of(&json!({"metadata": {"uid": "u"}})), None);
        assert_eq!(
            Assigned::of(&json!({"metadata": {"uid": "", "creationTimestamp": "t"}})),
            None
        );
    }
}
