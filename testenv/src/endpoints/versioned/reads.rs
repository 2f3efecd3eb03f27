//! GET of one object and of collections in a non-storage version: read in the storage
//! version, converted by the webhook (one review per list), then shaped (Tables for kubectl)
//! with the requested version's printer columns.

use std::sync::Arc;

use http::Method;
use serde_json::json;

use super::inner::inner_request;
use crate::endpoints::dispatch::handle_object;
use crate::endpoints::state::Api;
use crate::endpoints::table;
use crate::storage::conversion::Codec;
use crate::support::request::Target;
use crate::support::request::{Reply, Req};
use crate::support::status::ApiError;

/// GET of one object (or its status).
pub async fn get(
    api: &Arc<Api>,
    req: &Req,
    storage: Target,
    conv: &Codec,
) -> Result<Reply, ApiError> {
    let reply = handle_object(api, &inner_request(req, Method::GET, None), storage).await?;
    let reply = conv.reply_to_served(reply).await?;
    if !table::wants_table(&req.accept) {
        return Ok(reply);
    }
    match reply {
        Reply::Json { code, body, .. } if code < 300 => {
            let rv = body["metadata"]["resourceVersion"].clone();
            Ok(table::reply(
                conv.served(),
                &[body],
                json!({"resourceVersion": rv}),
                &req.query,
            ))
        }
        other => Ok(other),
    }
}

/// GET of a collection.
pub async fn list(
    api: &Arc<Api>,
    req: &Req,
    storage: Target,
    conv: &Codec,
) -> Result<Reply, ApiError> {
    let reply = handle_object(api, &inner_request(req, Method::GET, None), storage).await?;
    let reply = conv.reply_to_served(reply).await?;
    if !table::wants_table(&req.accept) {
        return Ok(reply);
    }
    match reply {
        Reply::Json { code, body, .. } if code < 300 => {
            let items = body["items"].as_array().cloned().unwrap_or_default();
            Ok(table::reply(
                conv.served(),
                &items,
                body["metadata"].clone(),
                &req.query,
            ))
        }
        other => Ok(other),
    }
}
