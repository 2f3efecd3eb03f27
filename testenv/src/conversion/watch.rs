//! Watches in a non-storage version: the storage version's watch stream, with every event's
//! object converted by the webhook as it is sent (after the store lock is released), and
//! bookmarks relabelled. A failed conversion ends the watch with an `ERROR` event carrying
//! the 500 status; clients resume from their last resourceVersion.

use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;
use http::Method;
use serde_json::{Value, json};

use super::{Converter, inner_request};
use crate::rest::route::Target;
use crate::rest::watch::WatchStream;
use crate::rest::{Api, Reply, Req, handle_object};
use crate::status::ApiError;

/// Starts a watch on a collection in the requested version.
pub async fn start(
    api: &Arc<Api>,
    req: &Req,
    storage: Target,
    conv: &Arc<Converter>,
) -> Result<Reply, ApiError> {
    let reply = handle_object(api, &inner_request(req, Method::GET, None), storage).await?;
    let Reply::Watch(WatchStream(inner)) = reply else {
        return conv.reply_to_served(reply).await;
    };
    let state = (inner, conv.clone(), false);
    let stream = futures::stream::unfold(state, |(mut inner, conv, ended)| async move {
        if ended {
            return None;
        }
        let line = inner.next().await?;
        match convert_line(&conv, &line).await {
            Ok(out) => Some((out, (inner, conv, false))),
            Err(e) => Some((to_line("ERROR", &e.to_status()), (inner, conv, true))),
        }
    });
    Ok(Reply::Watch(WatchStream(Box::pin(stream))))
}

fn to_line(event_type: &str, object: &Value) -> Bytes {
    let mut s = json!({"type": event_type, "object": object}).to_string();
    s.push('\n');
    Bytes::from(s)
}

/// One wire event in the requested version.
async fn convert_line(conv: &Converter, line: &Bytes) -> Result<Bytes, ApiError> {
    let Ok(mut event) = serde_json::from_slice::<Value>(line) else {
        return Ok(line.clone());
    };
    let event_type = event["type"].as_str().unwrap_or_default().to_string();
    let object = event["object"].take();
    let object = match event_type.as_str() {
        "ADDED" | "MODIFIED" | "DELETED" if object["kind"] == conv.served().kind.as_str() => {
            conv.to_served(object).await?
        }
        "BOOKMARK" => {
            let mut o = object;
            o["apiVersion"] = Value::String(conv.served().api_version());
            o
        }
        _ => object,
    };
    Ok(to_line(&event_type, &object))
}
