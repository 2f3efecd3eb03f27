//! The inner requests a conversion-aware handler sends to the storage version's handlers.

use bytes::Bytes;
use http::Method;
use serde_json::Value;

use crate::support::go_decode::Decoding;
use crate::support::request::Req;

/// A request for the storage version's handlers: JSON in and out, same query (without what
/// decoding found in the request's body when the server writes the body itself: the
/// requested version's admission reported it, and admitted the body).
pub fn inner_request(req: &Req, method: Method, body: Option<&Value>) -> Req {
    let mut query = req.query.clone();
    if body.is_some() {
        query.set_decoding(Decoding::default());
        query = query.admitted_elsewhere();
    }
    Req {
        method,
        path: req.path.clone(),
        query,
        accept: "application/json".into(),
        content_type: match body {
            Some(_) => "application/json".into(),
            None => req.content_type.clone(),
        },
        body: body.map_or_else(|| req.body.clone(), |b| Bytes::from(b.to_string())),
        user_agent: req.user_agent.clone(),
        bearer: req.bearer.clone(),
        user: req.user.clone(),
        assigned: req.assigned.clone(),
    }
}
