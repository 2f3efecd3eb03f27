//! The decoder on bodies a real kube-apiserver v1.34 wrote (the kinds decoded beyond kubectl's,
//! and the RBAC and PriorityClass kinds kubectl sends, to check them too): each fixture in
//! `tests/fixtures/protobuf/` holds an object as the real server answered a GET (or a review's
//! POST) in JSON and in protobuf; the decoded protobuf must be that JSON object, except that the
//! JSON may also hold the zero values Go's JSON encoder writes for unset non-pointer fields
//! (`null` times, `""`, `false`, `{}`), which the decoder leaves out as unset.

/// A fixture's name and text.
macro_rules! fixture {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/protobuf/",
                $name,
                ".json"
            )),
        )
    };
}

use base64::Engine;
use serde_json::Value;

use super::decode;

/// The recorded objects, by file name.
pub(super) const FIXTURES: &[(&str, &str)] = &[
    fixture!("apiservice"),
    fixture!("clusterrole"),
    fixture!("clusterrolebinding"),
    fixture!("csidriver"),
    fixture!("csinode"),
    fixture!("csistoragecapacity"),
    fixture!("customresourcedefinition"),
    fixture!("deviceclass"),
    fixture!("flowschema"),
    fixture!("localsubjectaccessreview"),
    fixture!("mutatingwebhookconfiguration"),
    fixture!("priorityclass"),
    fixture!("prioritylevelconfiguration"),
    fixture!("resourceclaim"),
    fixture!("resourceclaimtemplate"),
    fixture!("resourceslice"),
    fixture!("role"),
    fixture!("rolebinding"),
    fixture!("runtimeclass"),
    fixture!("storageclass"),
    fixture!("subjectaccessreview"),
    fixture!("subjectaccessreview-nonresource"),
    fixture!("tokenreview"),
    fixture!("validatingadmissionpolicy"),
    fixture!("validatingadmissionpolicybinding"),
    fixture!("validatingwebhookconfiguration"),
    fixture!("volumeattachment"),
    fixture!("volumeattributesclass"),
];

/// Whether `v` is a zero value Go's JSON encoder writes for an unset non-pointer field.
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Bool(b) => !b,
        Value::Object(o) => o.values().all(is_zero),
        _ => false,
    }
}

/// The differences between `decoded` and `expected` at `path`: members differ, or one side has
/// a member the other has not (the expected side may have zero values the decoder left out).
fn differences(path: &str, decoded: &Value, expected: &Value, out: &mut Vec<String>) {
    match (decoded, expected) {
        (Value::Object(d), Value::Object(e)) => {
            for (k, ev) in e {
                match d.get(k) {
                    Some(dv) => differences(&format!("{path}.{k}"), dv, ev, out),
                    None if is_zero(ev) => {}
                    None => out.push(format!("{path}.{k}: missing, expected {ev}")),
                }
            }
            for (k, dv) in d {
                if !e.contains_key(k) {
                    out.push(format!("{path}.{k}: {dv} not expected"));
                }
            }
        }
        (Value::Array(d), Value::Array(e)) if d.len() == e.len() => {
            for (i, (dv, ev)) in d.iter().zip(e).enumerate() {
                differences(&format!("{path}[{i}]"), dv, ev, out);
            }
        }
        _ if decoded == expected => {}
        _ => out.push(format!("{path}: {decoded} where {expected} was expected")),
    }
}

#[test]
fn decodes_every_recorded_object_as_the_real_server_wrote_it_in_json() {
    let mut problems = Vec::new();
    for (name, text) in FIXTURES {
        let recorded: Value = serde_json::from_str(text).expect("fixture is JSON");
        let body = base64::engine::general_purpose::STANDARD
            .decode(recorded["protobuf"].as_str().expect("protobuf is base64"))
            .expect("protobuf is base64");
        match decode(&body) {
            Ok(decoded) => differences(name, &decoded, &recorded["get"], &mut problems),
            Err(e) => problems.push(format!("{name}: {e}")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
