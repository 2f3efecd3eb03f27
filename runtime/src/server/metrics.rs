//! `/metrics`: the manager's Prometheus registry, optionally behind authorization.

use http::{Request, StatusCode};
use std::sync::Arc;

use super::{Handler, authz::Authorizer, text};
use crate::metrics::Metrics;

/// The `/metrics` handler; with an authorizer, only callers allowed to `get` the
/// non-resource URL `/metrics` are served.
pub fn handler(metrics: Metrics, authorizer: Option<Arc<Authorizer>>) -> Handler {
    Arc::new(move |req: Request<hyper::body::Incoming>| {
        let metrics = metrics.clone();
        let authorizer = authorizer.clone();
        Box::pin(async move {
            if req.uri().path() != "/metrics" {
                return text(StatusCode::NOT_FOUND, "not found\n");
            }
            if let Some(authorizer) = authorizer
                && let Err((status, reason)) = authorizer.check(req.headers()).await
            {
                return text(status, format!("{reason}\n"));
            }
            let mut response = text(StatusCode::OK, metrics.render());
            response.headers_mut().insert(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static(
                    "application/openmetrics-text; version=1.0.0; charset=utf-8",
                ),
            );
            response
        })
    })
}
