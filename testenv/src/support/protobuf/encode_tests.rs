//! The encoder on the objects a real kube-apiserver v1.34 wrote in protobuf
//! (`tests/fixtures/protobuf/`): encoding the JSON it answered for each must give the very bytes
//! it answered in protobuf.

use base64::Engine;
use serde_json::{Value, json};

use super::tests_recorded::FIXTURES;
use super::{decode, decode_keeping_raw, encode, watch_frame};
use crate::support::json_order::raw::{self, Rewrite, Sent};

/// Records the bytes of the raw values (`RawExtension`) of `object` as the protobuf `bytes` a
/// real server wrote for it hold them (some as their client wrote them, with spaces), as a
/// write of it would have kept them.
fn keep_raw_bytes(object: &Value, bytes: &[u8]) {
    let Ok((_, raws)) = decode_keeping_raw(bytes) else {
        return;
    };
    let text = |k: &str| object[k].as_str().unwrap_or_default();
    let (group, version) = text("apiVersion")
        .rsplit_once('/')
        .unwrap_or(("", text("apiVersion")));
    let sent = Sent::of_raw_bytes(group, version, text("kind"), object, &raws);
    raw::record(object, &sent, false, Rewrite::Body);
    raw::record(object, &sent, true, Rewrite::Body);
}

/// The first byte where `a` and `b` differ, with some context.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    let at = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = at.saturating_sub(16);
    format!(
        "lengths {} and {}, first difference at {at}:\n  encoded  {:02x?}\n  recorded {:02x?}",
        a.len(),
        b.len(),
        &a[from..a.len().min(at + 16)],
        &b[from..b.len().min(at + 16)]
    )
}

#[test]
fn encodes_every_recorded_object_as_the_real_server_wrote_it_in_protobuf() {
    let mut problems = Vec::new();
    for (name, text) in FIXTURES {
        let recorded: Value = serde_json::from_str(text).expect("fixture is JSON");
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(recorded["protobuf"].as_str().expect("protobuf is base64"))
            .expect("protobuf is base64");
        keep_raw_bytes(&recorded["get"], &bytes);
        match encode(&recorded["get"]) {
            Ok(encoded) if encoded == bytes => {}
            Ok(encoded) => problems.push(format!("{name}: {}", first_difference(&encoded, &bytes))),
            Err(e) => problems.push(format!("{name}: {e:?}")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_status_error_is_written_as_the_real_server_writes_it() {
    // A 404 kube-apiserver v1.34 answered in protobuf.
    let recorded: &[u8] = b"k8s\0\x0a\x0c\x0a\x02v1\x12\x06Status\x12\x55\x0a\x06\x0a\x00\x12\x00\x1a\x00\x12\x07Failure\x1a\x1bconfigmaps \"nope\" not found\x22\x08NotFound\x2a\x18\x0a\x04nope\x12\x00\x1a\x0aconfigmaps\x28\x00\x32\x00\x30\x94\x03\x1a\x00\x22\x00";
    let status = json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "message": "configmaps \"nope\" not found", "reason": "NotFound",
        "details": {"name": "nope", "kind": "configmaps"}, "code": 404});
    assert_eq!(encode(&status).expect("a Status"), recorded);
}

#[test]
fn a_list_and_a_watch_event_round_trip() {
    let list = json!({"kind": "ConfigMapList", "apiVersion": "v1",
        "metadata": {"resourceVersion": "7"},
        "items": [{"metadata": {"name": "a", "namespace": "default"}, "data": {"k": "v"}}]});
    let bytes = encode(&list).expect("a list");
    // ListMeta: selfLink, resourceVersion and continue, always written.
    assert!(
        bytes
            .windows(10)
            .any(|w| w == b"\x0a\x07\x0a\x00\x12\x017\x1a\x00\x12")
    );
    let event = json!({"type": "ADDED", "object": {"kind": "ConfigMap", "apiVersion": "v1",
        "metadata": {"name": "a"}, "data": {"k": "v"}}});
    let frame = watch_frame(&event).expect("an event");
    let len = u32::from_be_bytes(frame[..4].try_into().expect("4 bytes")) as usize;
    assert_eq!(len, frame.len() - 4);
    let object = encode(&event["object"]).expect("an object");
    assert!(frame.windows(object.len()).any(|w| w == object));
    assert_eq!(decode(&object).expect("decodes")["data"]["k"], "v");
}

#[test]
fn discovery_documents_are_written_as_the_real_server_wrote_them() {
    for text in [
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/protobuf-discovery/apis-apps-v1.json"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/protobuf-discovery/apis-apps.json"
        )),
    ] {
        let recorded: Value = serde_json::from_str(text).expect("fixture is JSON");
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(recorded["protobuf"].as_str().expect("protobuf is base64"))
            .expect("protobuf is base64");
        let encoded = encode(&recorded["get"]).expect("a discovery document");
        assert!(
            encoded == bytes,
            "{}: {}",
            recorded["path"],
            first_difference(&encoded, &bytes)
        );
    }
}

#[test]
fn what_the_messages_cannot_hold_is_not_encodable() {
    use super::encodable;
    assert!(encodable(&json!({"apiVersion": "v1", "kind": "ConfigMap"})));
    // A custom resource has no message.
    assert!(!encodable(
        &json!({"apiVersion": "example.com/v1", "kind": "Widget"})
    ));
    // A number where a time is.
    assert!(!encodable(&json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"creationTimestamp": 5}})));
}
