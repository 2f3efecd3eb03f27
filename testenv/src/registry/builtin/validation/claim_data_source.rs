//! The end of `ValidatePersistentVolumeClaimSpec`, for a claim and for a claim template (a
//! StatefulSet's, an ephemeral volume's): the data source (`validateDataSource`), the data
//! source reference (`validateDataSourceRef`), whether the two agree, and the volume
//! attributes class's name.

use serde_json::Value;

use super::errors::{
    Errors, child, dns1123_label, dns1123_subdomain, invalid_str, invalid_text, required,
};

const DEFAULT_GROUP_KIND: &str =
    "must be 'PersistentVolumeClaim' when referencing the default apiGroup";

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// A data source or reference at `path`: its name and kind, a kind of the default group that
/// is a claim, and a group that is a DNS subdomain.
fn reference(source: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for field in ["name", "kind"] {
        if text(source, field).is_empty() {
            out.push(required(&child(path, field)));
        }
    }
    let (group, kind) = (text(source, "apiGroup"), text(source, "kind"));
    if group.is_empty() && kind != "PersistentVolumeClaim" {
        out.push(invalid_str(path, kind, DEFAULT_GROUP_KIND));
    }
    if !group.is_empty() {
        let at = child(path, "apiGroup");
        out.extend(
            dns1123_subdomain(group)
                .iter()
                .map(|why| invalid_str(&at, group, why)),
        );
    }
    out
}

/// The data source checks of the claim spec at `path`.
pub(super) fn data_sources(spec: &Value, path: &str) -> Errors {
    let (source, source_ref) = (&spec["dataSource"], &spec["dataSourceRef"]);
    let mut out = Vec::new();
    if source.is_object() {
        out.extend(reference(source, &child(path, "dataSource")));
    }
    let namespace = text(source_ref, "namespace");
    if source_ref.is_object() {
        let at = child(path, "dataSourceRef");
        out.extend(reference(source_ref, &at));
        let ns_path = child(&at, "namespace");
        out.extend(
            dns1123_label(namespace)
                .iter()
                .filter(|_| !namespace.is_empty())
                .map(|why| invalid_str(&ns_path, namespace, why)),
        );
    }
    // The real server prints the path it passes as the value: `{}`.
    if source_ref.is_object() && !namespace.is_empty() {
        if source.is_object() {
            out.push(invalid_text(
                path,
                "{}",
                "may not be specified when dataSourceRef.namespace is specified",
            ));
        }
    } else if source.is_object() && source_ref.is_object() {
        let same = ["apiGroup", "kind", "name"]
            .iter()
            .all(|f| source[*f] == source_ref[*f]);
        if !same {
            out.push(invalid_text(path, "{}", "must match dataSourceRef"));
        }
    }
    let class = text(spec, "volumeAttributesClassName");
    let class_path = child(path, "volumeAttributesClassName");
    out.extend(
        dns1123_subdomain(class)
            .iter()
            .filter(|_| !class.is_empty())
            .map(|why| invalid_str(&class_path, class, why)),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sources_name_a_claim_or_a_grouped_kind_and_agree() {
        let lines = |spec: Value| -> Vec<String> {
            data_sources(&spec, "s")
                .iter()
                .map(|c| format!("{}: {}", c.field, c.message))
                .collect()
        };
        assert_eq!(
            lines(json!({"dataSource": {"kind": "Snap", "name": "n"}})),
            [
                "s.dataSource: Invalid value: \"Snap\": must be 'PersistentVolumeClaim' when referencing the default apiGroup"
            ]
        );
        assert_eq!(
            lines(
                json!({"dataSource": {"kind": "PersistentVolumeClaim", "name": "n"},
                "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "m"}})
            ),
            ["s: Invalid value: {}: must match dataSourceRef"]
        );
        assert_eq!(
            lines(
                json!({"dataSource": {"kind": "PersistentVolumeClaim", "name": "n"},
                "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "n", "namespace": "o"}})
            ),
            [
                "s: Invalid value: {}: may not be specified when dataSourceRef.namespace is specified"
            ]
        );
        assert!(lines(json!({"dataSourceRef": {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "n"}})).is_empty());
    }
}
