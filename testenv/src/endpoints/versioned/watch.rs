//! Watches in a non-storage version: the storage version's watch stream, with every event's
//! object converted by the webhook as it is sent (after the store lock is released), and
//! bookmarks relabelled. A failed conversion ends the watch with an `ERROR` event carrying
//! the 500 status; clients resume from their last resourceVersion.

use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;
use http::Method;
use serde_json::{Value, json};

use super::inner::inner_request;
use crate::endpoints::dispatch::handle_object;
use crate::endpoints::state::Api;
use crate::storage::conversion::Codec;
use crate::support::request::Target;
use crate::support::request::WatchStream;
use crate::support::request::{Reply, Req};
use crate::support::status::ApiError;

/// Starts a watch on a collection in the requested version.
pub async fn start(
    api: &Arc<Api>,
    req: &Req,
    storage: Target,
    conv: &Arc<Codec>,
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
    let mut s = crate::support::json_order::to_vec(&json!({"type": event_type, "object": object}));
    s.push(b'\n');
    Bytes::from(s)
}

/// One wire event in the requested version.
async fn convert_line(conv: &Codec, line: &Bytes) -> Result<Bytes, ApiError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::crd;
    use crate::storage::conversion::Plan;
    use crate::storage::conversion::converter::tests::FnConverter;
    use crate::storage::conversion::review::ReviewVersion;

    fn converter(caller: FnConverter) -> Codec {
        let crd_obj = json!({"spec": {"group": "example.dev", "scope": "Namespaced",
            "names": {"plural": "gadgets", "kind": "Gadget"},
            "versions": [{"name": "v1beta1", "served": true}, {"name": "v1", "served": true, "storage": true}]}});
        let defs = crd::resources_of(&crd_obj);
        let def = |v: &str| Arc::new(defs.iter().find(|d| d.version == v).unwrap().clone());
        let plan = Plan {
            served: def("v1beta1"),
            storage: def("v1"),
            review_version: Some(ReviewVersion::V1),
            client_config: Value::Null,
        };
        Codec::new(plan, Box::new(caller))
    }

    fn event(event_type: &str, object: Value) -> Bytes {
        to_line(event_type, &object)
    }

    fn parse(line: &Bytes) -> Value {
        assert!(line.ends_with(b"\n"));
        serde_json::from_slice(line).unwrap()
    }

    #[tokio::test]
    async fn events_are_converted_and_bookmarks_relabelled() {
        let conv = converter(FnConverter::new(|review: Value| {
            let mut o = review["request"]["objects"][0].clone();
            o["apiVersion"] = review["request"]["desiredAPIVersion"].clone();
            o["spec"] = json!({"converted": true});
            Ok(
                json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                "response": {"uid": review["request"]["uid"], "result": {"status": "Success"},
                             "convertedObjects": [o]}}),
            )
        }));
        let object = json!({"apiVersion": "example.dev/v1", "kind": "Gadget",
            "metadata": {"name": "a", "resourceVersion": "3"}, "spec": {}});
        let out = parse(
            &convert_line(&conv, &event("MODIFIED", object))
                .await
                .unwrap(),
        );
        assert_eq!(out["type"], "MODIFIED");
        assert_eq!(out["object"]["apiVersion"], "example.dev/v1beta1");
        assert_eq!(out["object"]["spec"], json!({"converted": true}));
        let bookmark = json!({"apiVersion": "example.dev/v1", "kind": "Gadget",
            "metadata": {"resourceVersion": "9"}});
        let out = parse(
            &convert_line(&conv, &event("BOOKMARK", bookmark))
                .await
                .unwrap(),
        );
        assert_eq!(out["object"]["apiVersion"], "example.dev/v1beta1");
        assert_eq!(out["object"]["metadata"]["resourceVersion"], "9");
    }

    #[tokio::test]
    async fn a_failed_conversion_is_a_500_status() {
        let conv = converter(FnConverter::new(|_| Err("connection refused".into())));
        let object = json!({"apiVersion": "example.dev/v1", "kind": "Gadget",
            "metadata": {"name": "a"}});
        let e = convert_line(&conv, &event("ADDED", object))
            .await
            .unwrap_err();
        assert_eq!(e.code, 500);
        assert_eq!(
            e.message,
            "conversion webhook for example.dev/v1, Kind=Gadget failed: connection refused"
        );
    }
}
