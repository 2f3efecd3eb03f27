//! What an injected failure answers: the `Status` body kube-apiserver sends for the code.

use std::time::Duration;

use serde_json::{Value, json};

use super::matcher::RequestInfo;
use crate::support::status::ApiError;

/// An error answer for a matching request, with the real apiserver's `Status` body.
///
/// - 500 `InternalError` ("Internal error occurred: ..."),
/// - 503 `ServiceUnavailable`,
/// - 504 `Timeout` ("Timeout: request did not complete within requested timeout ..."),
/// - 429 `TooManyRequests` with `details.retryAfterSeconds` and a `Retry-After` header,
/// - 409 `Conflict` worded like an optimistic-concurrency conflict on the addressed object,
/// - any other code: the `Status` reason the code stands for (`NotFound`, `Forbidden`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    code: u16,
    retry_after: Option<Duration>,
    message: Option<String>,
    after_handling: bool,
}

impl Failure {
    /// Answers with HTTP `code` and its `Status` body (429 gets `Retry-After: 1`, like the
    /// real server's max-in-flight filter).
    pub fn status(code: u16) -> Failure {
        Failure {
            code,
            retry_after: (code == 429).then_some(Duration::from_secs(1)),
            message: None,
            after_handling: false,
        }
    }

    /// 429 TooManyRequests with `Retry-After` (whole seconds, at least 1) and
    /// `details.retryAfterSeconds`, as API Priority and Fairness answers.
    pub fn too_many_requests(retry_after: Duration) -> Failure {
        Failure {
            code: 429,
            retry_after: Some(retry_after),
            message: None,
            after_handling: false,
        }
    }

    /// Adds `Retry-After` and `details.retryAfterSeconds` to any code (503 and 504 carry
    /// them on real servers too).
    #[must_use]
    pub fn retry_after(mut self, after: Duration) -> Failure {
        self.retry_after = Some(after);
        self
    }

    /// Replaces the default message (for 500, the inner error of "Internal error occurred").
    #[must_use]
    pub fn message(mut self, message: impl Into<String>) -> Failure {
        self.message = Some(message.into());
        self
    }

    /// Lets the request be handled (a write is stored, and its watch event sent) and only then
    /// answers with the failure: the answer was lost after the work was done, like a 504 from
    /// an apiserver whose etcd write succeeded. Clients must cope with "it failed but it
    /// happened" (a retried create gets AlreadyExists, a retried update a Conflict).
    #[must_use]
    pub fn after_handling(mut self) -> Failure {
        self.after_handling = true;
        self
    }

    /// Whether the request is handled before the failure is answered.
    pub fn is_after_handling(&self) -> bool {
        self.after_handling
    }

    /// The HTTP status code.
    pub fn code(&self) -> u16 {
        self.code
    }

    /// The error the server answers for the request `info` describes.
    pub(crate) fn to_error(&self, info: &RequestInfo) -> ApiError {
        let custom = self.message.clone();
        let resource = info.resource.split('/').next().unwrap_or_default();
        let qualified = if info.group.is_empty() {
            resource.to_string()
        } else {
            format!("{resource}.{}", info.group)
        };
        let object_details = || {
            if info.resource.is_empty() {
                Value::Null
            } else {
                json!({"name": info.name, "group": info.group, "kind": resource})
            }
        };
        let (reason, message, mut details): (&'static str, String, Value) = match self.code {
            500 => {
                let inner = custom.unwrap_or_else(|| "injected fault".to_string());
                (
                    "InternalError",
                    format!("Internal error occurred: {inner}"),
                    json!({"causes": [{"message": inner}]}),
                )
            }
            503 => (
                "ServiceUnavailable",
                custom.unwrap_or_else(|| {
                    "the server is currently unable to handle the request".to_string()
                }),
                Value::Null,
            ),
            504 => (
                "Timeout",
                format!(
                    "Timeout: {}",
                    custom.unwrap_or_else(|| {
                        "request did not complete within requested timeout - context deadline exceeded"
                            .to_string()
                    })
                ),
                json!({}),
            ),
            429 => (
                "TooManyRequests",
                custom.unwrap_or_else(|| "Too many requests, please try again later.".to_string()),
                json!({}),
            ),
            409 => (
                "Conflict",
                format!(
                    "Operation cannot be fulfilled on {qualified} \"{}\": {}",
                    info.name,
                    custom.unwrap_or_else(|| "the object has been modified; please apply your changes to the latest version and try again".to_string())
                ),
                object_details(),
            ),
            code => {
                let (reason, default) = generic(code);
                (
                    reason,
                    custom.unwrap_or_else(|| default.to_string()),
                    object_details(),
                )
            }
        };
        if let Some(after) = self.retry_after {
            if details.is_null() {
                details = json!({});
            }
            details["retryAfterSeconds"] = json!(retry_after_seconds(after));
        }
        ApiError {
            code: self.code,
            reason,
            message,
            details,
            warnings: Vec::new(),
        }
    }
}

/// Whole seconds for `Retry-After`, rounded up and at least 1 (the header has no fractions).
fn retry_after_seconds(after: Duration) -> u64 {
    let secs = after.as_secs() + u64::from(after.subsec_nanos() > 0);
    secs.max(1)
}

/// The `Status` reason a code stands for, with the message client-go gives it.
fn generic(code: u16) -> (&'static str, &'static str) {
    match code {
        400 => (
            "BadRequest",
            "the server rejected our request for an unknown reason",
        ),
        401 => (
            "Unauthorized",
            "the server has asked for the client to provide credentials",
        ),
        403 => (
            "Forbidden",
            "the server does not allow access to the requested resource",
        ),
        404 => (
            "NotFound",
            "the server could not find the requested resource",
        ),
        405 => (
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
        ),
        406 => (
            "NotAcceptable",
            "the server cannot produce an acceptable response",
        ),
        410 => ("Gone", "the requested resource is no longer available"),
        413 => ("RequestEntityTooLarge", "the request is too large"),
        415 => (
            "UnsupportedMediaType",
            "the body of the request was in an unknown format",
        ),
        422 => (
            "Invalid",
            "the server rejected our request due to an error in our request",
        ),
        c if c >= 500 => (
            "InternalError",
            "an error on the server has prevented the request from succeeding",
        ),
        _ => ("", "the server responded with an error"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cm(verb: &str) -> RequestInfo {
        RequestInfo {
            verb: verb.into(),
            group: String::new(),
            resource: "configmaps".into(),
            namespace: "default".into(),
            name: "x".into(),
        }
    }

    #[test]
    fn status_bodies_follow_the_real_server() {
        let e = Failure::status(500).to_error(&cm("get"));
        assert_eq!((e.code, e.reason), (500, "InternalError"));
        assert_eq!(e.message, "Internal error occurred: injected fault");
        assert_eq!(e.details["causes"][0]["message"], "injected fault");

        let e = Failure::status(503).to_error(&cm("list"));
        assert_eq!((e.code, e.reason), (503, "ServiceUnavailable"));

        let e = Failure::status(504).to_error(&cm("list"));
        assert_eq!(e.reason, "Timeout");
        assert!(e.message.starts_with("Timeout: "));

        let e = Failure::too_many_requests(Duration::from_millis(1500)).to_error(&cm("patch"));
        assert_eq!((e.code, e.reason), (429, "TooManyRequests"));
        assert_eq!(e.details["retryAfterSeconds"], 2);
        assert_eq!(
            Failure::status(429).to_error(&cm("patch")).details["retryAfterSeconds"],
            1
        );

        let e = Failure::status(409).to_error(&cm("update"));
        assert_eq!(e.reason, "Conflict");
        assert_eq!(
            e.message,
            "Operation cannot be fulfilled on configmaps \"x\": the object has been modified; please apply your changes to the latest version and try again"
        );
        assert_eq!(e.details["kind"], "configmaps");

        let mut deploy = cm("update");
        deploy.group = "apps".into();
        deploy.resource = "deployments/status".into();
        let e = Failure::status(409).to_error(&deploy);
        assert!(
            e.message.contains("deployments.apps \"x\""),
            "{}",
            e.message
        );

        let e = Failure::status(403).message("nope").to_error(&cm("get"));
        assert_eq!((e.reason, e.message.as_str()), ("Forbidden", "nope"));
        assert_eq!(
            Failure::status(502).to_error(&cm("get")).reason,
            "InternalError"
        );
        assert!(Failure::status(503).to_error(&cm("get")).details.is_null());
        assert_eq!(
            Failure::status(503)
                .retry_after(Duration::from_secs(3))
                .to_error(&cm("get"))
                .details["retryAfterSeconds"],
            3
        );
    }
}
