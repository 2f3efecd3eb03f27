//! A pod spec's volumes (`ValidateVolumes`) and each volume's source (`validateVolumeSource`):
//! exactly one source, checked with its own rules in the real server's order of sources. The
//! sources a PersistentVolume shares are checked by [`super::pv_source`]'s rules; iSCSI, Cinder,
//! StorageOS and CSI are checked as a pod's (their own messages and fewer fields), the files of
//! secret, configMap, downward API and projected volumes by [`super::pod_volume_files`], and an
//! ephemeral volume's claim template as a claim ([`super::storage::claim_spec_errors`]).
//!
//! A volume with an error is not remembered: a later volume of its name is no duplicate, and a
//! mount of it is not found, as the real server reports them.

use std::collections::HashSet;

use serde_json::Value;

use super::errors::{
    Errors, check_dns1123_label, check_labels, child, dns1123_label, dns1123_subdomain, duplicate,
    forbidden, index, invalid_str, required,
};
use super::pod_volume_files::{descending_path, downward_api, file_mode, key_to_path, projected};
use super::pv_source;
use super::storage::claim_spec_errors;
use crate::support::meta::annotation_errors;
use crate::support::quantity::Quantity;

/// The checks of one source: its value, its path and the volume's name.
type Check = fn(&Value, &str, &str) -> Errors;

/// The sources in the order the real server checks them: the JSON name, the name a second
/// source is reported at (`downwarAPI` as the real server spells it), the path its own
/// errors are reported at, and its checks.
const SOURCES: &[(&str, &str, &str, Check)] = &[
    ("emptyDir", "emptyDir", "emptyDir", empty_dir),
    ("hostPath", "hostPath", "hostPath", pv_source::host_path),
    ("gitRepo", "gitRepo", "gitRepo", git_repo),
    (
        "gcePersistentDisk",
        "gcePersistentDisk",
        "persistentDisk",
        pv_source::gce_disk,
    ),
    (
        "awsElasticBlockStore",
        "awsElasticBlockStore",
        "awsElasticBlockStore",
        pv_source::aws_disk,
    ),
    ("secret", "secret", "secret", secret),
    ("nfs", "nfs", "nfs", pv_source::nfs),
    ("iscsi", "iscsi", "iscsi", iscsi),
    ("glusterfs", "glusterfs", "glusterfs", pv_source::glusterfs),
    ("flocker", "flocker", "flocker", pv_source::flocker),
    (
        "persistentVolumeClaim",
        "persistentVolumeClaim",
        "persistentVolumeClaim",
        claim,
    ),
    ("rbd", "rbd", "rbd", pv_source::rbd),
    ("cinder", "cinder", "cinder", cinder),
    ("cephfs", "cephFS", "cephfs", pv_source::cephfs),
    ("quobyte", "quobyte", "quobyte", pv_source::quobyte),
    ("downwardAPI", "downwarAPI", "downwardAPI", downward),
    ("fc", "fc", "fc", pv_source::fc),
    ("flexVolume", "flexVolume", "flexVolume", pv_source::flex),
    ("configMap", "configMap", "configMap", config_map),
    ("azureFile", "azureFile", "azureFile", pv_source::azure_file),
    (
        "vsphereVolume",
        "vsphereVolume",
        "vsphereVolume",
        pv_source::vsphere,
    ),
    (
        "photonPersistentDisk",
        "photonPersistentDisk",
        "photonPersistentDisk",
        pv_source::photon,
    ),
    (
        "portworxVolume",
        "portworxVolume",
        "portworxVolume",
        pv_source::portworx,
    ),
    ("azureDisk", "azureDisk", "azureDisk", pv_source::azure_disk),
    ("storageos", "storageos", "storageos", storageos),
    ("projected", "projected", "projected", projection),
    ("scaleIO", "scaleIO", "scaleIO", pv_source::scale_io),
    ("csi", "csi", "csi", csi),
    ("ephemeral", "ephemeral", "ephemeral", ephemeral),
];

const MORE_THAN_ONE: &str = "may not specify more than 1 volume type";
const ISCSI_PREFIXES: &str = "must be valid format starting with iqn, eui, or naa";
/// The longest `<volume name>:<target portal>` of an iSCSI volume with an initiator name.
const ISCSI_NAME_MAX: usize = 64;
/// The object meta fields a claim template may not set, in Go's struct order, as the real
/// server names them (the Go field name with its first letter lowered: `uID`).
const TEMPLATE_META_FORBIDDEN: &[(&str, &str)] = &[
    ("name", "name"),
    ("generateName", "generateName"),
    ("namespace", "namespace"),
    ("selfLink", "selfLink"),
    ("uid", "uID"),
    ("resourceVersion", "resourceVersion"),
    ("generation", "generation"),
    ("creationTimestamp", "creationTimestamp"),
    ("deletionTimestamp", "deletionTimestamp"),
    ("deletionGracePeriodSeconds", "deletionGracePeriodSeconds"),
    ("ownerReferences", "ownerReferences"),
    ("finalizers", "finalizers"),
    ("managedFields", "managedFields"),
];

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

/// `ValidateVolumes` of the spec's volumes at `path`, in a pod named `pod_name` (none for a
/// template): each volume's source and name, and the names of the volumes without errors,
/// which the containers' mounts may name.
pub(super) fn volumes(
    spec: &Value,
    path: &str,
    pod_name: Option<&str>,
) -> (Errors, HashSet<String>) {
    let volumes = items(&spec["volumes"]);
    let pod_name = pod_name.filter(|n| !n.is_empty());
    let created_claims: HashSet<String> = pod_name
        .map(|pod| {
            volumes
                .iter()
                .filter(|v| !v["ephemeral"].is_null())
                .map(|v| format!("{pod}-{}", text(v, "name")))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    let mut names = HashSet::new();
    let mut dropped = Vec::new();
    for (i, volume) in volumes.iter().enumerate() {
        let at = index(path, i);
        let name = text(volume, "name");
        // An image volume (the `ImageVolume` feature, off in v1.34) is dropped with its mounts
        // before the real server validates: it has no errors, and its mounts none either.
        if !volume["image"].is_null() {
            dropped.push(name.to_string());
            continue;
        }
        let mut errors = source(volume, &at, name, pod_name);
        let name_path = child(&at, "name");
        if name.is_empty() {
            errors.push(required(&name_path));
        } else {
            errors.extend(check_dns1123_label(&name_path, name));
        }
        if names.contains(name) {
            errors.push(duplicate(&name_path, &Value::String(name.into())));
        }
        if errors.is_empty() {
            names.insert(name.to_string());
        }
        out.extend(errors);
        let claim_name = text(&volume["persistentVolumeClaim"], "claimName");
        if volume["persistentVolumeClaim"].is_object() && created_claims.contains(claim_name) {
            out.push(invalid_str(
                &child(&child(&at, "persistentVolumeClaim"), "claimName"),
                claim_name,
                "must not reference a PVC that gets created for an ephemeral volume",
            ));
        }
    }
    names.extend(dropped);
    (out, names)
}

/// `validateVolumeSource` of the volume at `path` named `name`.
fn source(volume: &Value, path: &str, name: &str, pod_name: Option<&str>) -> Errors {
    let mut out = Vec::new();
    let mut found = 0;
    for (field, second, own, check) in SOURCES {
        if volume.get(*field).is_none_or(Value::is_null) {
            continue;
        }
        if found > 0 {
            out.push(forbidden(&child(path, second), MORE_THAN_ONE));
        } else {
            found += 1;
            out.extend(check(&volume[*field], &child(path, own), name));
            if *field == "ephemeral" {
                out.extend(claim_name(pod_name, name, path));
            }
        }
        if *field == "iscsi" {
            out.extend(iscsi_name_length(&volume[*field], path, name));
        }
    }
    if found == 0 {
        out.push(super::errors::required_because(
            path,
            "must specify a volume type",
        ));
    }
    out
}

/// The claim an ephemeral volume creates is named `<pod>-<volume>`, which must be an object
/// name (checked when both names are known).
fn claim_name(pod_name: Option<&str>, name: &str, path: &str) -> Errors {
    let Some(pod) = pod_name.filter(|_| !name.is_empty()) else {
        return Vec::new();
    };
    let claim = format!("{pod}-{name}");
    dns1123_subdomain(&claim)
        .iter()
        .map(|why| {
            invalid_str(
                &child(path, "name"),
                name,
                &format!("PVC name {claim:?}: {why}"),
            )
        })
        .collect()
}

fn empty_dir(source: &Value, path: &str, _: &str) -> Errors {
    match Quantity::from_json(&source["sizeLimit"]) {
        Some(q) if q.nanos < 0 => vec![forbidden(
            &child(path, "sizeLimit"),
            "SizeLimit field must be a valid resource quantity",
        )],
        _ => Vec::new(),
    }
}

fn git_repo(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = Vec::new();
    if text(source, "repository").is_empty() {
        out.push(required(&child(path, "repository")));
    }
    out.extend(descending_path(
        text(source, "directory"),
        &child(path, "directory"),
    ));
    out
}

/// A secret or configMap volume: the object's name at `name_field`, the default mode and
/// each item.
fn object_volume(source: &Value, path: &str, name_field: &str) -> Errors {
    let mut out = Vec::new();
    if text(source, name_field).is_empty() {
        out.push(required(&child(path, name_field)));
    }
    out.extend(file_mode(source, "defaultMode", path));
    let items_path = child(path, "items");
    for (i, item) in items(&source["items"]).iter().enumerate() {
        out.extend(key_to_path(item, &index(&items_path, i)));
    }
    out
}

fn secret(source: &Value, path: &str, _: &str) -> Errors {
    object_volume(source, path, "secretName")
}

fn config_map(source: &Value, path: &str, _: &str) -> Errors {
    object_volume(source, path, "name")
}

fn downward(source: &Value, path: &str, _: &str) -> Errors {
    downward_api(source, path)
}

fn projection(source: &Value, path: &str, _: &str) -> Errors {
    projected(source, path)
}

fn claim(source: &Value, path: &str, _: &str) -> Errors {
    if text(source, "claimName").is_empty() {
        vec![required(&child(path, "claimName"))]
    } else {
        Vec::new()
    }
}

/// A pod's iSCSI volume (`validateISCSIVolumeSource`): names without a known prefix are
/// worded differently from a PersistentVolume's, and the secret's name is not checked.
fn iscsi(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = Vec::new();
    if text(source, "targetPortal").is_empty() {
        out.push(required(&child(path, "targetPortal")));
    }
    let iqn = text(source, "iqn");
    let iqn_path = child(path, "iqn");
    match pv_source::iscsi_name(iqn) {
        _ if iqn.is_empty() => out.push(required(&iqn_path)),
        (false, _) => out.push(invalid_str(&iqn_path, iqn, ISCSI_PREFIXES)),
        (true, false) => out.push(invalid_str(&iqn_path, iqn, "must be valid format")),
        (true, true) => {}
    }
    let lun = source["lun"].as_i64().unwrap_or(0);
    if !(0..=255).contains(&lun) {
        out.push(super::errors::invalid(
            &child(path, "lun"),
            &lun.into(),
            "must be between 0 and 255, inclusive",
        ));
    }
    let chap = source["chapAuthDiscovery"] == true || source["chapAuthSession"] == true;
    if chap && source["secretRef"].is_null() {
        out.push(required(&child(path, "secretRef")));
    }
    if let Some(initiator) = source["initiatorName"].as_str() {
        let at = child(path, "initiatorname");
        match pv_source::iscsi_name(initiator) {
            (false, _) => out.push(invalid_str(&at, initiator, ISCSI_PREFIXES)),
            (true, false) => out.push(invalid_str(&at, initiator, "must be valid format")),
            (true, true) => {}
        }
    }
    out
}

/// An iSCSI volume with an initiator name: `<volume name>:<target portal>` is too long past
/// 64 characters, reported at the volume's name (whether or not it is the first source).
fn iscsi_name_length(source: &Value, path: &str, name: &str) -> Errors {
    let portal = text(source, "targetPortal");
    if source["initiatorName"].is_string() && name.len() + 1 + portal.len() > ISCSI_NAME_MAX {
        vec![invalid_str(
            &child(path, "name"),
            name,
            "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.",
        )]
    } else {
        Vec::new()
    }
}

/// A secret reference of which only the name is checked (Cinder's and StorageOS's in a pod).
fn secret_name(source: &Value, path: &str) -> Errors {
    let secret = &source["secretRef"];
    if secret.is_object() && text(secret, "name").is_empty() {
        vec![required(&child(&child(path, "secretRef"), "name"))]
    } else {
        Vec::new()
    }
}

fn cinder(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = Vec::new();
    if text(source, "volumeID").is_empty() {
        out.push(required(&child(path, "volumeID")));
    }
    out.extend(secret_name(source, path));
    out
}

fn storageos(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = Vec::new();
    let name = text(source, "volumeName");
    let name_path = child(path, "volumeName");
    if name.is_empty() {
        out.push(required(&name_path));
    } else {
        out.extend(
            dns1123_label(name)
                .iter()
                .map(|why| invalid_str(&name_path, name, why)),
        );
    }
    let ns = text(source, "volumeNamespace");
    let ns_path = child(path, "volumeNamespace");
    if !ns.is_empty() {
        out.extend(
            dns1123_label(ns)
                .iter()
                .map(|why| invalid_str(&ns_path, ns, why)),
        );
    }
    out.extend(secret_name(source, path));
    out
}

/// A pod's CSI volume: the driver, and the node publish secret's name (whose invalid forms
/// the real server reports at `csi.name`).
fn csi(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = pv_source::csi_driver(text(source, "driver"), &child(path, "driver"));
    let secret = &source["nodePublishSecretRef"];
    if secret.is_object() {
        let name = text(secret, "name");
        if name.is_empty() {
            out.push(required(&child(
                &child(path, "nodePublishSecretRef"),
                "name",
            )));
        } else {
            let at = child(path, "name");
            out.extend(
                dns1123_subdomain(name)
                    .iter()
                    .map(|why| invalid_str(&at, name, why)),
            );
        }
    }
    out
}

/// `validateEphemeralVolumeSource`: a claim template, checked as a claim template.
fn ephemeral(source: &Value, path: &str, _: &str) -> Errors {
    let template = &source["volumeClaimTemplate"];
    let at = child(path, "volumeClaimTemplate");
    if template.is_null() {
        return vec![required(&at)];
    }
    let mut out = template_meta(&template["metadata"], &child(&at, "metadata"));
    out.extend(claim_spec_errors(&template["spec"], &child(&at, "spec")));
    out
}

/// `ValidateTemplateObjectMeta`: annotations, labels, and no other field set.
fn template_meta(meta: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    if let Some(annotations) = meta["annotations"].as_object() {
        out.extend(annotation_errors(annotations, &child(path, "annotations")));
    }
    out.extend(check_labels(
        &child(path, "labels"),
        meta["labels"].as_object(),
    ));
    for (field, go_name) in TEMPLATE_META_FORBIDDEN {
        let set = match &meta[*field] {
            Value::Null => false,
            Value::String(s) => !s.is_empty(),
            Value::Number(n) => n.as_f64() != Some(0.0),
            _ => true,
        };
        if set {
            out.push(forbidden(&child(path, go_name), "cannot be set"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(spec: Value, pod: Option<&str>) -> (Vec<String>, Vec<String>) {
        let (errors, names) = volumes(&spec, "v", pod);
        let mut names: Vec<String> = names.into_iter().collect();
        names.sort();
        let lines = errors
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        (lines, names)
    }

    #[test]
    fn a_volume_with_errors_is_not_remembered() {
        let spec = json!({"volumes": [
            {"name": "a", "secret": {}},
            {"name": "a", "emptyDir": {}},
            {"name": "a", "emptyDir": {}},
            {"name": "d", "downwardAPI": {}, "configMap": {"name": "x"}, "cephfs": {"monitors": ["m"]}},
        ]});
        assert_eq!(
            lines(spec, None),
            (
                vec![
                    "v[0].secret.secretName: Required value".to_string(),
                    "v[2].name: Duplicate value: \"a\"".into(),
                    "v[3].downwarAPI: Forbidden: may not specify more than 1 volume type".into(),
                    "v[3].configMap: Forbidden: may not specify more than 1 volume type".into(),
                ],
                vec!["a".to_string()]
            )
        );
    }

    #[test]
    fn ephemeral_claims_are_named_after_the_pod() {
        let template = json!({"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}});
        let spec = json!({"volumes": [
            {"name": "a", "persistentVolumeClaim": {"claimName": "P_-b"}},
            {"name": "b", "ephemeral": {"volumeClaimTemplate": template}},
        ]});
        let (errors, _) = lines(spec.clone(), Some("P_"));
        assert_eq!(errors.len(), 2);
        assert!(
            errors[0]
                .ends_with("must not reference a PVC that gets created for an ephemeral volume")
        );
        assert!(errors[1].starts_with(
            "v[1].name: Invalid value: \"b\": PVC name \"P_-b\": a lowercase RFC 1123 subdomain"
        ));
        assert!(lines(spec, None).0.is_empty());
    }

    #[test]
    fn claim_templates_set_only_labels_and_annotations() {
        let spec = json!({"volumes": [{"name": "e", "ephemeral": {"volumeClaimTemplate": {
            "metadata": {"name": "x", "uid": "u", "labels": {"a": "b"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}}]});
        assert_eq!(
            lines(spec, None).0,
            [
                "v[0].ephemeral.volumeClaimTemplate.metadata.name: Forbidden: cannot be set",
                "v[0].ephemeral.volumeClaimTemplate.metadata.uID: Forbidden: cannot be set",
            ]
        );
    }

    #[test]
    fn pod_iscsi_and_csi_are_checked_as_a_pods() {
        let long = "x".repeat(61);
        let spec = json!({"volumes": [
            {"name": long, "iscsi": {"targetPortal": "1.2.3.4:3260", "iqn": "bad", "initiatorName": "iqn.x"}},
            {"name": "c", "csi": {"driver": "d", "nodePublishSecretRef": {"name": "A"}}},
        ]});
        let (errors, _) = lines(spec, None);
        assert_eq!(
            errors[0],
            "v[0].iscsi.iqn: Invalid value: \"bad\": must be valid format starting with iqn, eui, or naa"
        );
        assert_eq!(
            errors[1],
            "v[0].iscsi.initiatorname: Invalid value: \"iqn.x\": must be valid format"
        );
        assert!(errors[2].starts_with("v[0].name: Invalid value: \"xxx"));
        assert!(errors[3].starts_with("v[1].csi.name: Invalid value: \"A\""));
    }
}
