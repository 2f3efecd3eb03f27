//! The filter chain in front of the handlers: the request's audit ID, the request (its head and
//! its body, read whole by the connection that carried it, HTTP/1.1 or HTTP/2) made into a
//! [`Req`], injected faults applied (latency, failures, failures after handling, tracking of
//! watch streams so they can be closed), then routing; the answer framed as Go's server frames
//! it over the request's protocol.

use std::sync::Arc;

use bytes::Bytes;

use super::body::{self, ResponseBody};
use super::routing;
use crate::endpoints::Api;
use crate::endpoints::impersonation::Requested;
use crate::faults::{FaultState, RequestInfo};
use crate::support::query::Query;
use crate::support::request::{Reply, Req};

/// Answers one HTTP request, its head `parts` and its `body` (or why the body could not be
/// read): applies the injected faults and hands it to routing; the answer is framed for the
/// request's protocol.
pub async fn serve(
    api: &Arc<Api>,
    faults: &Arc<FaultState>,
    parts: http::request::Parts,
    body: Result<Bytes, String>,
) -> http::Response<ResponseBody> {
    let version = parts.version;
    let audit_id = audit_id(&parts.headers);
    let mut response = answer(api, faults, parts, body).await;
    response.headers_mut().insert("audit-id", audit_id);
    body::framed(version, response)
}

/// The filters after the audit ID's.
async fn answer(
    api: &Arc<Api>,
    faults: &Arc<FaultState>,
    parts: http::request::Parts,
    body: Result<Bytes, String>,
) -> http::Response<ResponseBody> {
    let body = match body {
        Ok(b) => b,
        Err(e) => {
            return body::error_response(crate::support::status::ApiError::bad_request(format!(
                "could not read the request body: {e}"
            )));
        }
    };
    let header = |name: http::header::HeaderName| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let conditions = body::Conditions::of(&parts.method, &parts.headers).with_query(
        parts.uri.path(),
        parts.uri.query(),
        &parts.headers,
    );
    let impersonating = Requested::from_headers(&parts.headers, &request_uri(&parts.uri));
    let request = Req {
        method: parts.method.clone(),
        path: parts.uri.path().to_string(),
        query: Query::parse(parts.uri.query()),
        accept: header(http::header::ACCEPT),
        content_type: header(http::header::CONTENT_TYPE),
        user_agent: header(http::header::USER_AGENT),
        bearer: header(http::header::AUTHORIZATION)
            .strip_prefix("Bearer ")
            .unwrap_or_default()
            .trim()
            .to_string(),
        user: crate::support::user::User::anonymous(),
        body,
        assigned: None,
    };
    tracing::debug!(method = %request.method, path = %request.path, "request");
    if faults.armed() {
        let info = RequestInfo::parse(
            &request.method,
            &request.path,
            request.query.flag("watch"),
            request.query.get("fieldSelector"),
        );
        let decision = faults.on_request(&info);
        if !decision.delay.is_zero() {
            tokio::time::sleep(decision.delay).await;
        }
        if let Some(failure) = decision.failure {
            tracing::debug!(verb = %info.verb, resource = %info.resource, code = failure.code(), "injected failure");
            if failure.is_after_handling() {
                // The work is done (a watch reply is dropped at once), the answer is lost.
                drop(routing::handle(api, request, &impersonating).await);
            }
            return body::error_response(failure.to_error(&info));
        }
    }
    let routed = routing::handle(api, request, &impersonating).await;
    let mut response = match routed.handled {
        routing::Handled::Reply(Reply::Watch(stream)) => {
            body::into_response(Reply::Watch(faults.track(stream)))
        }
        routing::Handled::Reply(Reply::ProtobufWatch(stream)) => {
            body::into_response(Reply::ProtobufWatch(faults.track(stream)))
        }
        routing::Handled::Reply(reply) => body::respond(reply, &conditions),
        routing::Handled::Refused(reply) => body::nosniff(body::respond(reply, &conditions)),
    };
    if let Some(flow) = routed.flow {
        flow.set_headers(response.headers_mut());
    }
    response
}

/// The `Audit-Id` of a request: the one the client sent in its `Audit-ID` header, or a new
/// one, answered on every response as the real server's audit filter answers it.
fn audit_id(headers: &http::HeaderMap) -> http::HeaderValue {
    headers
        .get("audit-id")
        .filter(|v| !v.is_empty())
        .cloned()
        .unwrap_or_else(|| {
            http::HeaderValue::from_str(&crate::support::meta::new_uid())
                .expect("a UID is a valid header value")
        })
}

/// The request-target as sent: the path with its query, if any.
fn request_uri(uri: &http::Uri) -> String {
    uri.path_and_query()
        .map_or_else(|| uri.path().to_string(), |p| p.as_str().to_string())
}
