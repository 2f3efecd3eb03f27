//! The decoder against what Go's generated `Unmarshal` does at its edges: map entries read
//! without wire type checks, negative lengths, illegal tags, Go field names, and the review
//! kinds' statuses.

use serde_json::json;

use super::tests::{envelope, field, int, key, meta, varint};
use super::*;

/// The message of a body Go refuses: its 400's reason.
fn refused(api_version: &str, kind: &str, raw: &[u8]) -> String {
    let e = decode(&envelope(api_version, kind, raw)).unwrap_err();
    assert!(e.is_bad_request(), "{e:?}");
    let prefix = format!("{kind} in version ");
    let text = e.to_string();
    assert!(text.starts_with(&prefix), "{text}");
    text.split_once(": ").expect("a reason").1.to_string()
}

fn config_map(raw: &[u8]) -> Value {
    decode(&envelope("v1", "ConfigMap", raw)).expect("decodes")
}

#[test]
fn map_entries_are_read_without_checking_wire_types() {
    let meta = field(1, &meta("c"));
    // The key sent as a varint field (wire type 0) and the value as a 32-bit one (5): Go reads
    // both as the strings they are in a map<string, string>.
    let entry = [
        key(1, 0),
        varint(1),
        b"k".to_vec(),
        key(2, 5),
        varint(1),
        b"v".to_vec(),
    ]
    .concat();
    assert_eq!(
        config_map(&[meta.clone(), field(2, &entry)].concat())["data"],
        json!({"k": "v"})
    );
    // Unknown fields in an entry are skipped, whatever their wire type.
    let entry = [
        field(1, b"k"),
        int(7, 1),
        key(8, 5),
        b"1234".to_vec(),
        field(2, b"v"),
    ]
    .concat();
    assert_eq!(
        config_map(&[meta.clone(), field(2, &entry)].concat())["data"],
        json!({"k": "v"})
    );
    // A value that runs past the entry's end takes the enclosing message's bytes, which are
    // then read again as its fields.
    let later = field(1, &super::tests::meta("c2"));
    let entry_head = [field(1, b"k"), key(2, 2), varint(later.len() as u64)].concat();
    let body = [
        key(2, 2),
        varint(entry_head.len() as u64),
        entry_head,
        later.clone(),
    ]
    .concat();
    let v = config_map(&body);
    assert_eq!(v["metadata"]["name"], "c2");
    assert_eq!(
        v["data"]["k"],
        Value::String(String::from_utf8(later).expect("ASCII"))
    );
    // An end of group in an entry is Go's skip error; a skipped field past the entry's end is
    // a truncated body.
    let entry = [field(1, b"k"), key(3, 4)].concat();
    assert_eq!(
        refused(
            "v1",
            "ConfigMap",
            &[meta.clone(), field(2, &entry)].concat()
        ),
        "proto: unexpected end of group"
    );
    let entry = [field(1, b"k"), key(3, 2), varint(5), b"ab".to_vec()].concat();
    let body = [meta, field(2, &entry), field(3, b"")].concat();
    assert_eq!(refused("v1", "ConfigMap", &body), "unexpected EOF");
}

#[test]
fn lengths_that_overflow_go_ints_are_negative() {
    let negative = "proto: negative length found during unmarshaling";
    let meta = meta("c");
    // 2⁶³ is negative as an int; 2⁶³ - 2 overflows when added to the position.
    for len in [1u64 << 63, (1 << 63) - 2, u64::MAX] {
        let body = [key(1, 2), varint(len), meta.clone()].concat();
        assert_eq!(refused("v1", "ConfigMap", &body), negative, "{len}");
    }
    // In a string, a skipped field and a map entry's key.
    let name = [key(1, 2), varint(u64::MAX)].concat();
    assert_eq!(refused("v1", "ConfigMap", &field(1, &name)), negative);
    let skipped = [field(1, &meta), key(99, 2), varint(1 << 63)].concat();
    assert_eq!(refused("v1", "ConfigMap", &skipped), negative);
    let entry_key = [key(1, 2), varint(1 << 63)].concat();
    let body = [field(1, &meta), field(2, &entry_key)].concat();
    assert_eq!(refused("v1", "ConfigMap", &body), negative);
    // A length that fits but runs past the end is a truncated body.
    let body = [key(1, 2), varint(1000), meta].concat();
    assert_eq!(refused("v1", "ConfigMap", &body), "unexpected EOF");
}

#[test]
fn field_numbers_are_go_int32s() {
    let meta = field(1, &meta("c"));
    assert_eq!(
        refused(
            "v1",
            "ConfigMap",
            &[meta.clone(), key(0, 2), varint(0)].concat()
        ),
        "proto: ConfigMap: illegal tag 0 (wire type 2)"
    );
    // 2³¹ is negative once cut to 32 bits; the whole key is printed as the wire type.
    assert_eq!(
        refused("v1", "ConfigMap", &[key(1 << 31, 0), varint(0)].concat()),
        "proto: ConfigMap: illegal tag -2147483648 (wire type 17179869184)"
    );
    // 2³² + 1 is field 1.
    let name = super::tests::meta("c");
    let body = [key((1 << 32) + 1, 2), varint(name.len() as u64), name].concat();
    assert_eq!(config_map(&body)["metadata"]["name"], "c");
    // Inside the wrapper messages too.
    let port = [
        field(1, b"http"),
        field(4, &[key(0, 0), varint(0)].concat()),
    ]
    .concat();
    let spec = field(1, &port);
    assert_eq!(
        refused(
            "v1",
            "Service",
            &[field(1, &super::tests::meta("s")), field(2, &spec)].concat()
        ),
        "proto: IntOrString: illegal tag 0 (wire type 0)"
    );
}

#[test]
fn wrong_wire_types_name_the_go_field() {
    let wrong = |kind: &str, raw: &[u8]| refused("v1", kind, raw);
    let pod = |spec: &[u8]| [field(1, &meta("p")), field(2, spec)].concat();
    // Embedded ObjectMeta, a recorded name, an embedded struct, a derived name.
    assert_eq!(
        wrong("ConfigMap", &int(1, 3)),
        "proto: wrong wireType = 0 for field ObjectMeta"
    );
    let volume = |source: &[u8]| field(1, &[field(1, b"v"), source.to_vec()].concat());
    assert_eq!(
        wrong("Pod", &pod(&volume(&field(2, &int(28, 1))))),
        "proto: wrong wireType = 0 for field CSI"
    );
    assert_eq!(
        wrong("Pod", &pod(&volume(&int(2, 1)))),
        "proto: wrong wireType = 0 for field VolumeSource"
    );
    assert_eq!(
        wrong("Pod", &pod(&field(21, &int(1, 1)))),
        "proto: wrong wireType = 2 for field AutomountServiceAccountToken"
    );
    // IntOrString, Quantity, Time (read as a Timestamp), RawExtension.
    let port = [
        field(1, b"http"),
        field(4, &[int(1, 0), field(2, b"x")].concat()),
    ]
    .concat();
    assert_eq!(
        wrong(
            "Service",
            &[field(1, &meta("s")), field(2, &field(1, &port))].concat()
        ),
        "proto: wrong wireType = 2 for field IntVal"
    );
    let hard = field(1, &[field(1, b"pods"), field(2, &int(1, 3))].concat());
    assert_eq!(
        wrong(
            "ResourceQuota",
            &[field(1, &meta("q")), field(2, &hard)].concat()
        ),
        "proto: wrong wireType = 0 for field String_"
    );
    let event = |time: &[u8]| {
        [
            field(1, &meta("e")),
            field(2, &field(1, b"Pod")),
            field(6, time),
        ]
        .concat()
    };
    assert_eq!(
        wrong("Event", &event(&field(1, b"x"))),
        "proto: wrong wireType = 2 for field Seconds"
    );
    assert_eq!(
        wrong("Event", &event(&key(3, 4))),
        "proto: Timestamp: wiretype end group for non-group"
    );
    let revision = [field(1, &meta("r")), field(2, &int(1, 1))].concat();
    assert_eq!(
        refused("apps/v1", "ControllerRevision", &revision),
        "proto: wrong wireType = 0 for field Raw"
    );
}

#[test]
fn review_statuses_are_decoded() {
    // A TokenRequest's status as a client may send it: decoded (the server replaces it).
    let status = [field(1, b"token"), field(2, &int(1, 100))].concat();
    let raw = [
        field(1, &meta("t")),
        field(2, &field(1, b"aud")),
        field(3, &status),
    ]
    .concat();
    let v = decode(&envelope("authentication.k8s.io/v1", "TokenRequest", &raw)).expect("decodes");
    assert_eq!(
        v["status"],
        json!({"token": "token", "expirationTimestamp": "1970-01-01T00:01:40Z"})
    );
    // A SelfSubjectRulesReview's rules and flags.
    let rule = [field(1, b"get"), field(3, b"pods")].concat();
    let status = [field(1, &rule), int(3, 1), field(4, b"x")].concat();
    let raw = [
        field(1, &meta("")),
        field(2, &field(1, b"ns")),
        field(3, &status),
    ]
    .concat();
    let v = decode(&envelope(
        "authorization.k8s.io/v1",
        "SelfSubjectRulesReview",
        &raw,
    ))
    .expect("decodes");
    assert_eq!(
        v["status"],
        json!({"resourceRules": [{"verbs": ["get"], "resources": ["pods"]}], "incomplete": true, "evaluationError": "x"})
    );
    // What Go refuses in a status is refused: a SelfSubjectReview's userInfo as a varint.
    assert_eq!(
        refused(
            "authentication.k8s.io/v1",
            "SelfSubjectReview",
            &[field(1, b""), field(2, &int(1, 5))].concat()
        ),
        "proto: wrong wireType = 0 for field UserInfo"
    );
}

#[test]
fn quantities_are_parsed_as_they_are_read() {
    let quota = |quantity: &[u8]| {
        let hard = field(1, &[field(1, b"pods"), field(2, quantity)].concat());
        [field(1, &meta("q")), field(2, &hard)].concat()
    };
    let format = quantity::FORMAT_ERROR;
    assert_eq!(
        refused("v1", "ResourceQuota", &quota(&field(1, b"abc"))),
        format
    );
    // An empty string does not parse; an empty message is the zero quantity.
    assert_eq!(
        refused("v1", "ResourceQuota", &quota(&field(1, b""))),
        format
    );
    assert_eq!(
        refused("v1", "ResourceQuota", &quota(&field(1, b"1mi"))),
        "unable to parse quantity's suffix"
    );
    let v = decode(&envelope("v1", "ResourceQuota", &quota(&field(1, b"10")))).expect("decodes");
    assert_eq!(v["spec"]["hard"]["pods"], "10");
    assert!(decode(&envelope("v1", "ResourceQuota", &quota(b""))).is_ok());
}
