//! VolumeAttachments (`ValidateVolumeAttachment` of `pkg/apis/storage/validation`): the
//! attacher, the source (a volume's name or an inline volume spec) and the node of the
//! spec, the size of the status's metadata and error messages; on create the tighter v1
//! checks, on update a spec that never changes.

use serde_json::Value;

use super::errors::{
    Errors, child, dns1123_subdomain, forbidden, invalid_str, invalid_text, required,
    required_because,
};
use super::go_diff::{GoValue, marshal};
use super::pv_go;
use super::pv_source::csi_driver;
use super::storage::{persistent_volume_spec, resource_list, too_long};

/// The most bytes a status's attachment metadata (keys and values) may hold, the length
/// the real server names for a too long error message too.
const MAX_METADATA_BYTES: usize = 256 * 1024;
/// The longest error message of an attach or detach error.
const MAX_ERROR_MESSAGE: usize = 1024;
const EXACTLY_ONE: &str = "must specify exactly one of inlineVolumeSpec and persistentVolumeName";

/// The spec and status checks of a VolumeAttachment (without the metadata).
pub fn volume_attachment(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = Vec::new();
    if spec["attacher"].as_str().is_none_or(str::is_empty) {
        out.push(required("spec.attacher"));
    }
    out.extend(source(&spec["source"]));
    let node = spec["nodeName"].as_str().unwrap_or_default();
    for why in dns1123_subdomain(node) {
        out.push(invalid_str("spec.nodeName", node, &why));
    }
    out.extend(status(&object["status"]));
    out
}

fn source(source: &Value) -> Errors {
    let path = "spec.source";
    let (name, inline) = (&source["persistentVolumeName"], &source["inlineVolumeSpec"]);
    match (name.as_str(), inline.is_null()) {
        (None, true) => vec![required_because(path, EXACTLY_ONE)],
        (Some(_), false) => vec![forbidden(path, EXACTLY_ONE)],
        (Some(""), true) => vec![required_because(
            &child(path, "persistentVolumeName"),
            "must specify non empty persistentVolumeName",
        )],
        (Some(_), true) => Vec::new(),
        (None, false) => persistent_volume_spec(inline, "", &child(path, "inlineVolumeSpec"), true),
    }
}

fn status(status: &Value) -> Errors {
    let mut out = Vec::new();
    let size: usize = status["attachmentMetadata"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
        .sum();
    if size > MAX_METADATA_BYTES {
        out.push(too_long("status.attachmentMetadata", MAX_METADATA_BYTES));
    }
    for error in ["attachError", "detachError"] {
        let message = status[error]["message"].as_str().unwrap_or_default();
        if message.len() > MAX_ERROR_MESSAGE {
            out.push(too_long(
                &format!("status.{error}.message"),
                MAX_METADATA_BYTES,
            ));
        }
    }
    out
}

/// `ValidateVolumeAttachmentV1`, on create: the attacher is a CSI driver's name and the
/// volume's name a volume's.
pub fn volume_attachment_create(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = csi_driver(
        spec["attacher"].as_str().unwrap_or_default(),
        "spec.attacher",
    );
    if let Some(name) = spec["source"]["persistentVolumeName"].as_str() {
        for why in dns1123_subdomain(name) {
            out.push(invalid_str("spec.source.persistentVolumeName", name, &why));
        }
    }
    out
}

/// `ValidateVolumeAttachmentUpdate`, after the attachment's own checks: those checks once
/// more, then a spec that may not change.
pub fn volume_attachment_update(object: &Value, old: &Value) -> Errors {
    let mut out = volume_attachment(object);
    let spec = spec_as_go(&object["spec"]);
    if marshal(&spec) != marshal(&spec_as_go(&old["spec"])) {
        out.push(invalid_text("spec", &marshal(&spec), "field is immutable"));
    }
    out
}

/// A `storage.VolumeAttachmentSpec` as Go writes it.
fn spec_as_go(spec: &Value) -> GoValue {
    let source = &spec["source"];
    let inline = &source["inlineVolumeSpec"];
    GoValue::Struct(vec![
        ("Attacher", string(&spec["attacher"])),
        (
            "Source",
            GoValue::Struct(vec![
                (
                    "PersistentVolumeName",
                    GoValue::Json(
                        source["persistentVolumeName"]
                            .as_str()
                            .map_or(Value::Null, |s| Value::String(s.into())),
                    ),
                ),
                (
                    "InlineVolumeSpec",
                    pv_go::volume_spec(inline, resource_list(&inline["capacity"])),
                ),
            ]),
        ),
        ("NodeName", string(&spec["nodeName"])),
    ])
}

fn string(value: &Value) -> GoValue {
    GoValue::Json(value.as_str().unwrap_or_default().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(causes: Errors) -> Vec<String> {
        causes
            .into_iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    #[test]
    fn a_source_is_a_volume_name_or_an_inline_csi_spec() {
        let va = |source: Value| json!({"spec": {"attacher": "a.example.com", "nodeName": "n", "source": source}});
        assert_eq!(
            messages(volume_attachment(&va(json!({})))),
            [
                "spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName"
            ]
        );
        assert_eq!(
            messages(volume_attachment(&va(json!({"persistentVolumeName": ""})))),
            [
                "spec.source.persistentVolumeName: Required value: must specify non empty persistentVolumeName"
            ]
        );
        let inline = json!({"inlineVolumeSpec": {"accessModes": ["ReadWriteOnce"],
            "capacity": {"storage": "1Gi"}, "hostPath": {"path": "/x"}}});
        assert_eq!(
            messages(volume_attachment(&va(inline))),
            [
                "spec.source.inlineVolumeSpec.capacity: Forbidden: may not be specified in the context of inline volumes",
                "spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes",
            ]
        );
    }

    #[test]
    fn status_sizes_are_bounded() {
        let long = "x".repeat(MAX_ERROR_MESSAGE + 1);
        let va = json!({"spec": {"attacher": "a", "nodeName": "n",
            "source": {"persistentVolumeName": "pv"}},
            "status": {"attachmentMetadata": {"k": "x".repeat(MAX_METADATA_BYTES)},
                "attachError": {"message": long}, "detachError": {"message": "short"}}});
        assert_eq!(
            messages(volume_attachment(&va)),
            [
                "status.attachmentMetadata: Too long: may not be more than 262144 bytes",
                "status.attachError.message: Too long: may not be more than 262144 bytes",
            ]
        );
    }

    #[test]
    fn the_spec_never_changes() {
        let va = |node: &str| {
            json!({"spec": {"attacher": "a", "nodeName": node,
                "source": {"persistentVolumeName": "pv"}}})
        };
        assert!(volume_attachment_update(&va("n1"), &va("n1")).is_empty());
        assert_eq!(
            messages(volume_attachment_update(&va("n2"), &va("n1"))),
            [
                r#"spec: Invalid value: {"Attacher":"a","Source":{"PersistentVolumeName":"pv","InlineVolumeSpec":null},"NodeName":"n2"}: field is immutable"#
            ]
        );
    }
}
