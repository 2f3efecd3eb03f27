//! A PersistentVolume's volume source (`ValidatePersistentVolumeSpec`): exactly one source,
//! each checked with its own rules and the real server's field paths (some differ from the
//! JSON names: `gcePersistentDisk` is checked at `persistentDisk`, the second source of a
//! spec with `cephfs` is reported at `cephFS`, the iSCSI initiator at `initiatorname`). The
//! checks of the sources a pod volume shares with a PersistentVolume are
//! [`super::pod_volume_sources`]'s too.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use super::errors::{
    Errors, child, dns1123_label, dns1123_subdomain, forbidden, invalid, invalid_str, key,
    not_supported, required, required_because,
};
use crate::support::status::Cause;

/// The checks of one source: its value, its path and the volume's name.
type Check = fn(&Value, &str, &str) -> Errors;
/// The sources in the order the real server checks them: the JSON name, the name a second
/// source is reported at, and the checks of the source at its own path.
const SOURCES: &[(&str, &str, Check)] = &[
    ("hostPath", "hostPath", host_path),
    ("gcePersistentDisk", "gcePersistentDisk", gce_disk),
    ("awsElasticBlockStore", "awsElasticBlockStore", aws_disk),
    ("glusterfs", "glusterfs", glusterfs),
    ("flocker", "flocker", flocker),
    ("nfs", "nfs", nfs),
    ("rbd", "rbd", rbd),
    ("quobyte", "quobyte", quobyte),
    ("cephfs", "cephFS", cephfs),
    ("iscsi", "iscsi", iscsi),
    ("cinder", "cinder", cinder),
    ("fc", "fc", fc),
    ("flexVolume", "flexVolume", flex),
    ("azureFile", "azureFile", azure_file),
    ("vsphereVolume", "vsphereVolume", vsphere),
    ("photonPersistentDisk", "photonPersistentDisk", photon),
    ("portworxVolume", "portworxVolume", portworx),
    ("azureDisk", "azureDisk", azure_disk),
    ("scaleIO", "scaleIO", scale_io),
    ("local", "local", local),
    ("storageos", "storageos", storageos),
    ("csi", "csi", csi),
];

const MORE_THAN_ONE: &str = "may not specify more than 1 volume type";
const LUN_RANGE: &str = "must be between 0 and 255, inclusive";
const PARTITION_RANGE: &str = "must be between 1 and 255, inclusive";
const VALID_FORMAT: &str = "must be valid format";
const HOST_PATH_TYPES: &[&str] = &[
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
];
const CACHING_MODES: &[&str] = &["None", "ReadOnly", "ReadWrite"];
const DISK_KINDS: &[&str] = &["Dedicated", "Managed", "Shared"];
const MANAGED_DISK_URI: &str = "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}";
const BLOB_DISK_URI: &str =
    "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd";
const QUOBYTE_REGISTRY: &str = "must be a host:port pair or multiple pairs separated by commas";
/// The longest CSI driver name.
const CSI_DRIVER_MAX: usize = 63;

/// The volume source checks of a PersistentVolume spec at `at` (a volume's `spec`, or a
/// VolumeAttachment's inline volume spec) of the volume named `name`: every source
/// present, a second one refused, `local` needing node affinity (`has_affinity`), and a
/// spec without a source refused.
pub fn volume_sources_at(spec: &Value, at: &str, name: &str, has_affinity: bool) -> Errors {
    let mut out = Vec::new();
    let mut found = 0;
    for (field, second, check) in SOURCES {
        if spec.get(*field).is_none_or(Value::is_null) {
            continue;
        }
        // The real server counts a flexVolume without checking for an earlier source.
        if found > 0 && *field != "flexVolume" {
            out.push(forbidden(&child(at, second), MORE_THAN_ONE));
            continue;
        }
        found += 1;
        let path = match *field {
            "gcePersistentDisk" => child(at, "persistentDisk"),
            other => child(at, other),
        };
        out.extend(check(&spec[*field], &path, name));
        if *field == "local" && !has_affinity {
            out.push(required_because(
                &child(at, "nodeAffinity"),
                "Local volume requires node affinity",
            ));
        }
    }
    if found == 0 {
        out.push(required_because(at, "must specify a volume type"));
    }
    out
}

fn text<'a>(source: &'a Value, field: &str) -> &'a str {
    source[field].as_str().unwrap_or_default()
}

fn require(source: &Value, path: &str, field: &str) -> Option<Cause> {
    text(source, field)
        .is_empty()
        .then(|| required(&child(path, field)))
}

fn require_all(source: &Value, path: &str, fields: &[&str]) -> Errors {
    fields
        .iter()
        .filter_map(|f| require(source, path, f))
        .collect()
}

fn is_empty_list(value: &Value) -> bool {
    value.as_array().is_none_or(Vec::is_empty)
}

/// `validatePathNoBacksteps`.
fn no_backsteps(value: &str, field: &str) -> Errors {
    if value.split('/').any(|part| part == "..") {
        vec![invalid_str(field, value, "must not contain '..'")]
    } else {
        Vec::new()
    }
}

pub(super) fn host_path(source: &Value, path: &str, _: &str) -> Errors {
    let p = text(source, "path");
    if p.is_empty() {
        return vec![required(&child(path, "path"))];
    }
    let mut out = no_backsteps(p, &child(path, "path"));
    if let Some(t) = source["type"].as_str()
        && !HOST_PATH_TYPES.contains(&t)
    {
        out.push(not_supported(&child(path, "type"), t, HOST_PATH_TYPES));
    }
    out
}

fn partition(source: &Value, path: &str) -> Option<Cause> {
    let n = source["partition"].as_i64().unwrap_or(0);
    (!(0..=255).contains(&n))
        .then(|| invalid(&child(path, "partition"), &n.into(), PARTITION_RANGE))
}

pub(super) fn gce_disk(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = require_all(source, path, &["pdName"]);
    out.extend(partition(source, path));
    out
}

pub(super) fn aws_disk(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = require_all(source, path, &["volumeID"]);
    out.extend(partition(source, path));
    out
}

pub(super) fn glusterfs(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = require_all(source, path, &["endpoints", "path"]);
    if let Some(ns) = source["endpointsNamespace"].as_str() {
        let field = child(path, "endpointsNamespace");
        if ns.is_empty() {
            out.push(invalid_str(
                &field,
                ns,
                "if the endpointnamespace is set, it must be a valid namespace name",
            ));
        }
        for why in dns1123_label(ns).iter().filter(|_| !ns.is_empty()) {
            out.push(invalid_str(&field, ns, why));
        }
    }
    out
}

pub(super) fn flocker(source: &Value, path: &str, _: &str) -> Errors {
    let (name, uuid) = (text(source, "datasetName"), text(source, "datasetUUID"));
    let mut out = Vec::new();
    if name.is_empty() && uuid.is_empty() {
        out.push(required_because(
            path,
            "one of datasetName and datasetUUID is required",
        ));
    }
    if !name.is_empty() && !uuid.is_empty() {
        out.push(invalid_str(
            path,
            "resource",
            "datasetName and datasetUUID can not be specified simultaneously",
        ));
    }
    if name.contains('/') {
        out.push(invalid_str(
            &child(path, "datasetName"),
            name,
            "must not contain '/'",
        ));
    }
    out
}

pub(super) fn nfs(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = require_all(source, path, &["server", "path"]);
    let p = text(source, "path");
    if !p.starts_with('/') {
        out.push(invalid_str(
            &child(path, "path"),
            p,
            "must be an absolute path",
        ));
    }
    out
}

pub(super) fn rbd(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = Vec::new();
    if is_empty_list(&source["monitors"]) {
        out.push(required(&child(path, "monitors")));
    }
    out.extend(require(source, path, "image"));
    out
}

/// Whether `pair` splits as Go's `net.SplitHostPort` splits it.
fn host_port(pair: &str) -> bool {
    let Some(colon) = pair.rfind(':') else {
        return false;
    };
    let (host, port) = (&pair[..colon], &pair[colon + 1..]);
    let host_ok = match host.strip_prefix('[') {
        Some(inner) => inner.ends_with(']') && !inner[..inner.len() - 1].contains(['[', ']']),
        None => !host.contains([':', '[', ']']),
    };
    host_ok && !port.contains(['[', ']'])
}

pub(super) fn quobyte(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = Vec::new();
    let registry = text(source, "registry");
    if registry.is_empty() {
        out.push(required_because(&child(path, "registry"), QUOBYTE_REGISTRY));
    } else if text(source, "tenant").len() >= 65 {
        out.push(required_because(
            &child(path, "tenant"),
            "must be a UUID and may not exceed a length of 64 characters",
        ));
    } else {
        for pair in registry.split(',') {
            if !host_port(pair) {
                out.push(invalid_str(
                    &child(path, "registry"),
                    registry,
                    QUOBYTE_REGISTRY,
                ));
            }
        }
    }
    out.extend(require(source, path, "volume"));
    out
}

pub(super) fn cephfs(source: &Value, path: &str, _: &str) -> Errors {
    if is_empty_list(&source["monitors"]) {
        vec![required(&child(path, "monitors"))]
    } else {
        Vec::new()
    }
}

fn iqn_patterns() -> &'static [Regex; 3] {
    static RE: OnceLock<[Regex; 3]> = OnceLock::new();
    RE.get_or_init(|| {
        [
            Regex::new(r"iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$").expect("valid"),
            Regex::new(r"^eui.[[:alnum:]]{16}$").expect("valid"),
            Regex::new(r"^naa.[[:alnum:]]{32}$").expect("valid"),
        ]
    })
}

/// Whether an iSCSI name has a known prefix (`iqn`, `eui`, `naa`) and that prefix's form.
pub(super) fn iscsi_name(name: &str) -> (bool, bool) {
    let [iqn, eui, naa] = iqn_patterns();
    let prefixed = ["iqn", "eui", "naa"].iter().any(|p| name.starts_with(p));
    let formed = if name.starts_with("iqn") {
        iqn.is_match(name)
    } else if name.starts_with("eui") {
        eui.is_match(name)
    } else if name.starts_with("naa") {
        naa.is_match(name)
    } else {
        true
    };
    (prefixed, formed)
}

fn iscsi(source: &Value, path: &str, name: &str) -> Errors {
    let mut out = require_all(source, path, &["targetPortal"]);
    let portal = text(source, "targetPortal");
    let initiator = source["initiatorName"].as_str();
    if initiator.is_some() && name.len() + 1 + portal.len() > 64 {
        out.push(invalid_str(
            &child(path, "targetportal"),
            portal,
            "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.",
        ));
    }
    let iqn = text(source, "iqn");
    if iqn.is_empty() {
        out.push(required(&child(path, "iqn")));
    } else if iscsi_name(iqn) != (true, true) {
        out.push(invalid_str(&child(path, "iqn"), iqn, VALID_FORMAT));
    }
    let lun = source["lun"].as_i64().unwrap_or(0);
    if !(0..=255).contains(&lun) {
        out.push(invalid(&child(path, "lun"), &lun.into(), LUN_RANGE));
    }
    let chap = source["chapAuthDiscovery"] == true || source["chapAuthSession"] == true;
    let secret = &source["secretRef"];
    if chap && secret.is_null() {
        out.push(required(&child(path, "secretRef")));
    }
    if secret.is_object() && text(secret, "name").is_empty() {
        out.push(required(&child(path, "secretRef.name")));
    }
    if let Some(initiator) = initiator {
        let (prefixed, formed) = iscsi_name(initiator);
        if !prefixed || !formed {
            out.push(invalid_str(
                &child(path, "initiatorname"),
                initiator,
                VALID_FORMAT,
            ));
        }
    }
    out
}

fn cinder(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = require_all(source, path, &["volumeID"]);
    let secret = &source["secretRef"];
    if secret.is_object() {
        out.extend(require_all(
            secret,
            &child(path, "secretRef"),
            &["name", "namespace"],
        ));
    }
    out
}

pub(super) fn fc(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = Vec::new();
    let (wwns, wwids) = (&source["targetWWNs"], &source["wwids"]);
    let field = child(path, "targetWWNs");
    if is_empty_list(wwns) && is_empty_list(wwids) {
        out.push(required_because(
            &field,
            "must specify either targetWWNs or wwids, but not both",
        ));
    }
    if !is_empty_list(wwns) && !is_empty_list(wwids) {
        out.push(invalid(
            &field,
            wwns,
            "targetWWNs and wwids can not be specified simultaneously",
        ));
    }
    if !is_empty_list(wwns) {
        match source["lun"].as_i64() {
            None => out.push(required_because(
                &child(path, "lun"),
                "lun is required if targetWWNs is specified",
            )),
            Some(lun) if !(0..=255).contains(&lun) => {
                out.push(invalid(&child(path, "lun"), &lun.into(), LUN_RANGE));
            }
            Some(_) => {}
        }
    }
    out
}

pub(super) fn flex(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = require_all(source, path, &["driver"]);
    let mut options: Vec<&String> = source["options"]
        .as_object()
        .into_iter()
        .flat_map(|m| m.keys())
        .collect();
    options.sort();
    for k in options {
        let namespace = k.split_once('/').map_or(k.as_str(), |(ns, _)| ns);
        let normalized = format!(".{}", namespace.to_lowercase());
        if normalized.ends_with(".kubernetes.io") || normalized.ends_with(".k8s.io") {
            out.push(invalid_str(
                &key(&child(path, "options"), k),
                k,
                "kubernetes.io and k8s.io namespaces are reserved",
            ));
        }
    }
    out
}

pub(super) fn azure_file(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = require_all(source, path, &["secretName", "shareName"]);
    if source["secretNamespace"].as_str() == Some("") {
        out.push(required(&child(path, "secretNamespace")));
    }
    out
}

pub(super) fn vsphere(source: &Value, path: &str, _: &str) -> Errors {
    require_all(source, path, &["volumePath"])
}

pub(super) fn photon(source: &Value, path: &str, _: &str) -> Errors {
    require_all(source, path, &["pdID"])
}

pub(super) fn portworx(source: &Value, path: &str, _: &str) -> Errors {
    require_all(source, path, &["volumeID"])
}

pub(super) fn azure_disk(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = require_all(source, path, &["diskName", "diskURI"]);
    if let Some(mode) = source["cachingMode"].as_str()
        && !CACHING_MODES.contains(&mode)
    {
        out.push(not_supported(
            &child(path, "cachingMode"),
            mode,
            CACHING_MODES,
        ));
    }
    let kind = source["kind"].as_str();
    if let Some(k) = kind
        && !DISK_KINDS.contains(&k)
    {
        out.push(not_supported(&child(path, "kind"), k, DISK_KINDS));
    }
    let uri = text(source, "diskURI");
    let uri_field = child(path, "diskURI");
    match kind {
        Some("Managed") if !uri.starts_with("/subscriptions/") => {
            out.push(not_supported(&uri_field, uri, &[MANAGED_DISK_URI]));
        }
        Some(k) if k != "Managed" && !uri.starts_with("https://") => {
            out.push(not_supported(&uri_field, uri, &[BLOB_DISK_URI]));
        }
        _ => {}
    }
    out
}

pub(super) fn scale_io(source: &Value, path: &str, _: &str) -> Errors {
    require_all(source, path, &["gateway", "system", "volumeName"])
}

fn local(source: &Value, path: &str, _: &str) -> Errors {
    let p = text(source, "path");
    if p.is_empty() {
        return vec![required(&child(path, "path"))];
    }
    no_backsteps(p, &child(path, "path"))
}

fn storageos(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = Vec::new();
    let name = text(source, "volumeName");
    let name_field = child(path, "volumeName");
    if name.is_empty() {
        out.push(required(&name_field));
    }
    for why in dns1123_label(name).iter().filter(|_| !name.is_empty()) {
        out.push(invalid_str(&name_field, name, why));
    }
    let ns = text(source, "volumeNamespace");
    for why in dns1123_label(ns).iter().filter(|_| !ns.is_empty()) {
        out.push(invalid_str(&child(path, "volumeNamespace"), ns, why));
    }
    let secret = &source["secretRef"];
    if secret.is_object() {
        out.extend(require_all(
            secret,
            &child(path, "secretRef"),
            &["name", "namespace"],
        ));
    }
    out
}

/// `ValidateCSIDriverName`.
pub(super) fn csi_driver(driver: &str, field: &str) -> Errors {
    let mut out = Vec::new();
    if driver.is_empty() {
        out.push(required(field));
    }
    if driver.len() > CSI_DRIVER_MAX {
        out.push(Cause {
            reason: "FieldValueTooLong".into(),
            message: format!("Too long: may not be more than {CSI_DRIVER_MAX} bytes"),
            field: field.into(),
        });
    }
    for why in dns1123_subdomain(&driver.to_lowercase()) {
        out.push(invalid_str(field, driver, &why));
    }
    out
}

/// `validatePVSecretReference`.
fn secret_reference(secret: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for (field, rules) in [
        ("name", dns1123_subdomain as fn(&str) -> Vec<String>),
        ("namespace", dns1123_label),
    ] {
        let value = text(secret, field);
        let at = child(path, field);
        if value.is_empty() {
            out.push(required(&at));
        } else {
            out.extend(rules(value).iter().map(|why| invalid_str(&at, value, why)));
        }
    }
    out
}

fn csi(source: &Value, path: &str, _: &str) -> Errors {
    let mut out = csi_driver(text(source, "driver"), &child(path, "driver"));
    out.extend(require(source, path, "volumeHandle"));
    for secret in [
        "controllerPublishSecretRef",
        "controllerExpandSecretRef",
        "nodePublishSecretRef",
        "nodeExpandSecretRef",
    ] {
        if source[secret].is_object() {
            out.extend(secret_reference(&source[secret], &child(path, secret)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(spec: Value, name: &str) -> Vec<String> {
        volume_sources_at(&spec, "spec", name, spec.get("nodeAffinity").is_some())
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    #[test]
    fn one_source_exactly() {
        assert_eq!(
            messages(json!({}), "v"),
            vec!["spec: Required value: must specify a volume type"]
        );
        assert_eq!(
            messages(
                json!({"hostPath": {"path": "/x"}, "cephfs": {"monitors": ["m"]}, "csi": {"driver": "d", "volumeHandle": "h"}}),
                "v"
            ),
            vec![
                "spec.cephFS: Forbidden: may not specify more than 1 volume type",
                "spec.csi: Forbidden: may not specify more than 1 volume type",
            ]
        );
    }

    #[test]
    fn sources_are_checked_with_their_own_paths() {
        assert_eq!(
            messages(
                json!({"gcePersistentDisk": {"pdName": "", "partition": 300}}),
                "v"
            ),
            vec![
                "spec.persistentDisk.pdName: Required value",
                "spec.persistentDisk.partition: Invalid value: 300: must be between 1 and 255, inclusive",
            ]
        );
        assert_eq!(
            messages(json!({"local": {"path": "/a/../b"}}), "v"),
            vec![
                "spec.local.path: Invalid value: \"/a/../b\": must not contain '..'",
                "spec.nodeAffinity: Required value: Local volume requires node affinity",
            ]
        );
        assert_eq!(
            messages(
                json!({"fc": {"targetWWNs": ["a"], "wwids": ["b"], "lun": 256}}),
                "v"
            ),
            vec![
                "spec.fc.targetWWNs: Invalid value: [\"a\"]: targetWWNs and wwids can not be specified simultaneously",
                "spec.fc.lun: Invalid value: 256: must be between 0 and 255, inclusive",
            ]
        );
        assert_eq!(
            messages(
                json!({"quobyte": {"registry": "a:1,b", "volume": "v"}}),
                "v"
            ),
            vec![format!(
                "spec.quobyte.registry: Invalid value: \"a:1,b\": {QUOBYTE_REGISTRY}"
            )]
        );
    }

    #[test]
    fn iscsi_names_follow_their_prefix() {
        assert_eq!(iscsi_name("iqn.2001-04.com.example:node"), (true, true));
        assert_eq!(iscsi_name("iqn.2001-04.com.example"), (true, false));
        assert_eq!(iscsi_name("eui.0123456789ABCDEF"), (true, true));
        assert_eq!(iscsi_name("naa.1"), (true, false));
        assert_eq!(iscsi_name("other"), (false, true));
        let long = "x".repeat(40);
        assert_eq!(
            messages(
                json!({"iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:t", "initiatorName": "iqn.2001-04.com.example:i"}}),
                &long
            ),
            Vec::<String>::new()
        );
        let longer = "x".repeat(60);
        assert_eq!(messages(
            json!({"iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:t", "initiatorName": "iqn.2001-04.com.example:i"}}),
            &longer
        ).len(), 1);
    }

    #[test]
    fn split_host_port_as_go() {
        assert!(host_port("a:1"));
        assert!(host_port("a:"));
        assert!(host_port("[::1]:80"));
        assert!(!host_port("a"));
        assert!(!host_port("a:b:c"));
    }
}
