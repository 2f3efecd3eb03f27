//! The inner requests a conversion-aware handler sends to the storage version's handlers.

use bytes::Bytes;
use http::Method;
use serde_json::Value;

use crate::support::request::Req;

/// A request for the storage version's handlers: JSON in and out, same query.
pub fn inner_request(req: &Req, method: Method, body: Option<&Value>) -> Req {
    Req {
        method,
        path: req.path.clone(),
        query: req.query.clone(),
        accept: "application/json".into(),
        content_type: match body {
            Some(_) => "application/json".into(),
            None => req.content_type.clone(),
        },
        body: body.map_or_else(|| req.body.clone(), |b| Bytes::from(b.to_string())),
        user_agent: req.user_agent.clone(),
    }
}
