//! The webhook both servers call: admission reviews by path (`/allow`, `/deny`, `/mutate`,
//! `/warn`, and the `/connect-*` patches of a CONNECT's options) and conversion reviews
//! (`/convert`: `spec.host` in v1beta1 is `spec.hostname` in v1; `/convert-mark` also records
//! in an annotation which version each object was converted from, `/convert-extra` adds a
//! field no schema declares). `/seen` records in annotations the `apiVersion` of the object
//! (and old object) an admission webhook is sent, and its `spec` fields.

use serde_json::{Value, json};

use crate::webhook_server::{self, WebhookServer};

/// Starts the webhook on 127.0.0.1.
pub async fn start() -> WebhookServer {
    WebhookServer::start(
        &[],
        |path, review: Value| async move { answer(&path, &review) },
    )
    .await
}

fn answer(path: &str, review: &Value) -> Value {
    match path {
        "/deny" => webhook_server::deny(review, 403, "denied by the differential webhook"),
        "/mutate" => {
            let labels = &review["request"]["object"]["metadata"]["labels"];
            let op = if labels.is_object() {
                json!({"op": "add", "path": "/metadata/labels/mutated", "value": "yes"})
            } else {
                json!({"op": "add", "path": "/metadata/labels", "value": {"mutated": "yes"}})
            };
            webhook_server::patch(review, json!([op]))
        }
        "/warn" => webhook_server::respond(
            review,
            json!({"allowed": true, "warnings": ["checked by the differential webhook"]}),
        ),
        "/convert" => convert(review, Mark::Nothing),
        "/convert-mark" => convert(review, Mark::Source),
        "/convert-extra" => convert(review, Mark::Undeclared),
        "/seen" => seen(review),
        path if path.starts_with("/connect-") => connect_options(path, review),
        _ => webhook_server::allow(review),
    }
}

/// Patches of a CONNECT's options object: `/connect-upper-container` sets `CONTAINER` (which
/// the server's case-sensitive decoder does not read as `container`), `/connect-bad-stdout`
/// a string where a bool belongs, `/connect-extra` a field the options type lacks and a zero
/// value; `/connect-as-deployment`, `/connect-as-delete-options` and `/connect-as-apps` make
/// the options an `apps/v1` Deployment, a `v1` DeleteOptions and the same kind in `apps/v1`;
/// `/connect-seen` names the keys of the options it was sent in `container` (the
/// connection's error then shows them).
fn connect_options(path: &str, review: &Value) -> Value {
    let ops = match path {
        "/connect-upper-container" => {
            json!([{"op": "add", "path": "/CONTAINER", "value": "upper"}])
        }
        "/connect-bad-stdout" => json!([{"op": "add", "path": "/stdout", "value": "yes"}]),
        "/connect-extra" => json!([{"op": "add", "path": "/extra", "value": "x"},
            {"op": "add", "path": "/stdin", "value": false}]),
        "/connect-as-deployment" => {
            json!([{"op": "replace", "path": "/apiVersion", "value": "apps/v1"},
            {"op": "replace", "path": "/kind", "value": "Deployment"}])
        }
        "/connect-as-delete-options" => {
            json!([{"op": "replace", "path": "/kind", "value": "DeleteOptions"}])
        }
        "/connect-as-apps" => {
            json!([{"op": "replace", "path": "/apiVersion", "value": "apps/v1"}])
        }
        _ => {
            let object = &review["request"]["object"];
            let mut keys: Vec<&str> = object
                .as_object()
                .map(|o| o.keys().map(String::as_str).collect())
                .unwrap_or_default();
            keys.sort();
            json!([{"op": "add", "path": "/container", "value": keys.join(".")}])
        }
    };
    webhook_server::patch(review, ops)
}

/// Annotates the object with the `apiVersion` of the object and old object it was sent, and
/// the names of the object's `spec` fields.
fn seen(review: &Value) -> Value {
    let request = &review["request"];
    let version = |o: &Value| o["apiVersion"].as_str().unwrap_or("none").to_string();
    let mut marks = serde_json::Map::new();
    marks.insert(
        "diff.kubeforge.dev/seen".into(),
        json!(version(&request["object"])),
    );
    marks.insert(
        "diff.kubeforge.dev/seen-old".into(),
        json!(version(&request["oldObject"])),
    );
    let mut fields: Vec<&str> = request["object"]["spec"]
        .as_object()
        .map(|spec| spec.keys().map(String::as_str).collect())
        .unwrap_or_default();
    fields.sort_unstable();
    marks.insert(
        "diff.kubeforge.dev/seen-spec".into(),
        json!(fields.join(".")),
    );
    let annotations = &request["object"]["metadata"]["annotations"];
    let ops: Vec<Value> = if annotations.is_object() {
        marks
            .into_iter()
            .map(|(k, v)| {
                let path = format!("/metadata/annotations/{}", k.replace('/', "~1"));
                json!({"op": "add", "path": path, "value": v})
            })
            .collect()
    } else {
        vec![json!({"op": "add", "path": "/metadata/annotations", "value": marks})]
    };
    webhook_server::patch(review, json!(ops))
}

/// What a conversion adds besides renaming.
#[derive(Clone, Copy, PartialEq)]
enum Mark {
    Nothing,
    /// The version each object came in, as the annotation `diff.kubeforge.dev/converted-from`.
    Source,
    /// `spec.convertedBy`, which no version's schema declares.
    Undeclared,
}

/// Renames `spec.host` and `spec.hostname` for the desired version, adding what `mark` says.
fn convert(review: &Value, mark: Mark) -> Value {
    let request = &review["request"];
    let desired = request["desiredAPIVersion"].as_str().unwrap_or_default();
    let (from, to) = if desired.ends_with("/v1") {
        ("host", "hostname")
    } else {
        ("hostname", "host")
    };
    let objects: Vec<Value> = request["objects"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|mut o| {
            if let Some(spec) = o["spec"].as_object_mut()
                && let Some(v) = spec.remove(from)
            {
                spec.insert(to.to_string(), v);
            }
            if mark == Mark::Source {
                let from = o["apiVersion"].clone();
                if !o["metadata"]["annotations"].is_object() {
                    o["metadata"]["annotations"] = json!({});
                }
                o["metadata"]["annotations"]["diff.kubeforge.dev/converted-from"] = from;
            }
            if mark == Mark::Undeclared && o["spec"].is_object() {
                o["spec"]["convertedBy"] = json!("webhook");
            }
            o["apiVersion"] = json!(desired);
            o
        })
        .collect();
    json!({"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": {
        "uid": request["uid"], "result": {"status": "Success"}, "convertedObjects": objects}})
}
