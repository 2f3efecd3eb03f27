//! The top-level encodings: an object of a described kind, a list of them, a `Status`, a
//! `PartialObjectMetadata(List)`, a discovery document, each in the `k8s\0` envelope; and a watch event as the
//! `;stream=watch` framing sends it.

use serde_json::{Map, Value};

use super::encode::{EncodeError, encode_message, envelope, put_bytes};
use super::encode_status::{
    API_GROUP, API_GROUP_DISCOVERY, API_GROUP_LIST, API_RESOURCE_LIST, API_VERSIONS, LIST_META,
    PARTIAL_OBJECT_METADATA, STATUS,
};
use super::schema::Message;
use crate::support::json_order::raw;

/// The message of an object's kind, or of the list of a kind (`metadata` 1, `items` 2).
fn top_level(api_version: &str, kind: &str) -> Option<TopLevel> {
    let meta = matches!(api_version, "meta.k8s.io/v1" | "meta.k8s.io/v1beta1");
    match kind {
        "Status" if api_version == "v1" => return Some(TopLevel::One(&STATUS)),
        // The discovery documents (`/api` and `/api/v1` have no apiVersion).
        "APIVersions" | "APIGroupList" | "APIGroup" | "APIResourceList"
            if api_version.is_empty() || api_version == "v1" =>
        {
            return Some(TopLevel::One(match kind {
                "APIVersions" => &API_VERSIONS,
                "APIGroupList" => &API_GROUP_LIST,
                "APIGroup" => &API_GROUP,
                _ => &API_RESOURCE_LIST,
            }));
        }
        "APIGroupDiscoveryList" if api_version == "apidiscovery.k8s.io/v2" => {
            return Some(TopLevel::List(&API_GROUP_DISCOVERY));
        }
        "PartialObjectMetadata" if meta => return Some(TopLevel::One(&PARTIAL_OBJECT_METADATA)),
        "PartialObjectMetadataList" if meta => {
            return Some(TopLevel::List(&PARTIAL_OBJECT_METADATA));
        }
        _ => {}
    }
    if let Some(message) = super::kinds_typed::message_of(api_version, kind) {
        return Some(TopLevel::One(message));
    }
    let item = kind.strip_suffix("List")?;
    super::kinds_typed::message_of(api_version, item).map(TopLevel::List)
}

enum TopLevel {
    One(&'static Message),
    List(&'static Message),
}

/// The fields of a list of `item`s.
fn encode_list(
    object: &Map<String, Value>,
    item: &'static Message,
    raw_kind: bool,
) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    let mut meta = Vec::new();
    let empty = Map::new();
    encode_message(
        object
            .get("metadata")
            .and_then(Value::as_object)
            .unwrap_or(&empty),
        &LIST_META,
        &mut meta,
    )?;
    put_bytes(&mut out, 1, &meta);
    for entry in object
        .get("items")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let mut bytes = Vec::new();
        let entry = entry.as_object().unwrap_or(&empty);
        let _writing = raw_kind.then(|| raw::writing(entry));
        encode_message(entry, item, &mut bytes)?;
        put_bytes(&mut out, 2, &bytes);
    }
    Ok(out)
}

/// Whether `object` can be written in protobuf: a kind kube-apiserver has a Go type for, whose
/// fields hold values of the types the message says (what is answered as protobuf must be
/// written as protobuf when it goes out).
pub fn encodable(object: &Value) -> bool {
    encode_object(object).is_ok()
}

/// `object` as kube-apiserver writes it in protobuf (`k8s\0` and a `runtime.Unknown`).
pub fn encode(object: &Value) -> Result<Vec<u8>, String> {
    encode_object(object).map_err(|e| e.0)
}

fn encode_object(object: &Value) -> Result<Vec<u8>, EncodeError> {
    let Value::Object(map) = object else {
        return Err(EncodeError("not an object".into()));
    };
    let text = |k: &str| map.get(k).and_then(Value::as_str).unwrap_or_default();
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    // The raw values of a kind that holds them are written with the bytes kept for them.
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let raw_kind = |kind: &str| raw::holds_raw(group, version, kind);
    let raw = match top_level(api_version, kind) {
        Some(TopLevel::One(message)) => {
            let _writing = raw_kind(kind).then(|| raw::writing(map));
            let mut out = Vec::new();
            encode_message(map, message, &mut out)?;
            out
        }
        Some(TopLevel::List(item)) => {
            let items = kind.strip_suffix("List").is_some_and(raw_kind);
            encode_list(map, item, items)?
        }
        None => {
            return Err(EncodeError(format!(
                "no protobuf encoding of {api_version} {kind}"
            )));
        }
    };
    Ok(envelope(api_version, kind, &raw))
}

/// A watch event (`{"type", "object"}`) as a `;stream=watch` frame: the big-endian length
/// of a `WatchEvent` whose object is a `RawExtension` holding the object's envelope.
pub fn watch_frame(event: &Value) -> Result<Vec<u8>, String> {
    let object = encode(&event["object"])?;
    let mut raw = Vec::new();
    put_bytes(&mut raw, 1, &object);
    let mut message = Vec::new();
    put_bytes(
        &mut message,
        1,
        event["type"].as_str().unwrap_or_default().as_bytes(),
    );
    put_bytes(&mut message, 2, &raw);
    let len = u32::try_from(message.len()).map_err(|_| "event too long".to_string())?;
    let mut out = len.to_be_bytes().to_vec();
    out.extend_from_slice(&message);
    Ok(out)
}
