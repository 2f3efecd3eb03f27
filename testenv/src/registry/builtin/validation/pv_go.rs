//! A PersistentVolume's spec as the real server's internal Go types (`core.PersistentVolumeSpec`,
//! its `PersistentVolumeSource`, `VolumeNodeAffinity`), for the values its update errors print:
//! Go field names in declaration order, unset pointers `null`, unset strings, numbers and
//! booleans as their zero values.

use serde_json::Value;

use super::go_diff::GoValue;

/// How one field of a Go struct is written when absent, and what it holds.
#[derive(Clone, Copy)]
enum Kind {
    /// `string`: `""` when absent.
    Str,
    /// `*string`: `null` when absent.
    OptStr,
    /// `bool`: `false` when absent.
    Bool,
    /// `*bool`: `null` when absent.
    OptBool,
    /// `int32`/`int64`: `0` when absent.
    Int,
    /// `*int32`: `null` when absent.
    OptInt,
    /// A slice or map of plain values: `null` when absent.
    Raw,
    /// `*SecretReference`.
    Secret,
    /// `*ObjectReference`.
    Object,
}

/// One source: its JSON name, its Go name, and its fields (Go name, JSON name, kind).
type Source = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str, Kind)],
);

use Kind::{Bool, Int, Object, OptBool, OptInt, OptStr, Raw, Secret, Str};

/// The fields of `core.PersistentVolumeSource`, in declaration order.
const SOURCES: &[Source] = &[
    (
        "gcePersistentDisk",
        "GCEPersistentDisk",
        &[
            ("PDName", "pdName", Str),
            ("FSType", "fsType", Str),
            ("Partition", "partition", Int),
            ("ReadOnly", "readOnly", Bool),
        ],
    ),
    (
        "awsElasticBlockStore",
        "AWSElasticBlockStore",
        &[
            ("VolumeID", "volumeID", Str),
            ("FSType", "fsType", Str),
            ("Partition", "partition", Int),
            ("ReadOnly", "readOnly", Bool),
        ],
    ),
    (
        "hostPath",
        "HostPath",
        &[("Path", "path", Str), ("Type", "type", OptStr)],
    ),
    (
        "glusterfs",
        "Glusterfs",
        &[
            ("EndpointsName", "endpoints", Str),
            ("Path", "path", Str),
            ("ReadOnly", "readOnly", Bool),
            ("EndpointsNamespace", "endpointsNamespace", OptStr),
        ],
    ),
    (
        "nfs",
        "NFS",
        &[
            ("Server", "server", Str),
            ("Path", "path", Str),
            ("ReadOnly", "readOnly", Bool),
        ],
    ),
    (
        "rbd",
        "RBD",
        &[
            ("CephMonitors", "monitors", Raw),
            ("RBDImage", "image", Str),
            ("FSType", "fsType", Str),
            ("RBDPool", "pool", Str),
            ("RadosUser", "user", Str),
            ("Keyring", "keyring", Str),
            ("SecretRef", "secretRef", Secret),
            ("ReadOnly", "readOnly", Bool),
        ],
    ),
    (
        "quobyte",
        "Quobyte",
        &[
            ("Registry", "registry", Str),
            ("Volume", "volume", Str),
            ("ReadOnly", "readOnly", Bool),
            ("User", "user", Str),
            ("Group", "group", Str),
            ("Tenant", "tenant", Str),
        ],
    ),
    (
        "iscsi",
        "ISCSI",
        &[
            ("TargetPortal", "targetPortal", Str),
            ("IQN", "iqn", Str),
            ("Lun", "lun", Int),
            ("ISCSIInterface", "iscsiInterface", Str),
            ("FSType", "fsType", Str),
            ("ReadOnly", "readOnly", Bool),
            ("Portals", "portals", Raw),
            ("DiscoveryCHAPAuth", "chapAuthDiscovery", Bool),
            ("SessionCHAPAuth", "chapAuthSession", Bool),
            ("SecretRef", "secretRef", Secret),
            ("InitiatorName", "initiatorName", OptStr),
        ],
    ),
    (
        "flexVolume",
        "FlexVolume",
        &[
            ("Driver", "driver", Str),
            ("FSType", "fsType", Str),
            ("SecretRef", "secretRef", Secret),
            ("ReadOnly", "readOnly", Bool),
            ("Options", "options", Raw),
        ],
    ),
    (
        "cinder",
        "Cinder",
        &[
            ("VolumeID", "volumeID", Str),
            ("FSType", "fsType", Str),
            ("ReadOnly", "readOnly", Bool),
            ("SecretRef", "secretRef", Secret),
        ],
    ),
    (
        "cephfs",
        "CephFS",
        &[
            ("Monitors", "monitors", Raw),
            ("Path", "path", Str),
            ("User", "user", Str),
            ("SecretFile", "secretFile", Str),
            ("SecretRef", "secretRef", Secret),
            ("ReadOnly", "readOnly", Bool),
        ],
    ),
    (
        "fc",
        "FC",
        &[
            ("TargetWWNs", "targetWWNs", Raw),
            ("Lun", "lun", OptInt),
            ("FSType", "fsType", Str),
            ("ReadOnly", "readOnly", Bool),
            ("WWIDs", "wwids", Raw),
        ],
    ),
    (
        "flocker",
        "Flocker",
        &[
            ("DatasetName", "datasetName", Str),
            ("DatasetUUID", "datasetUUID", Str),
        ],
    ),
    (
        "azureFile",
        "AzureFile",
        &[
            ("SecretName", "secretName", Str),
            ("ShareName", "shareName", Str),
            ("ReadOnly", "readOnly", Bool),
            ("SecretNamespace", "secretNamespace", OptStr),
        ],
    ),
    (
        "vsphereVolume",
        "VsphereVolume",
        &[
            ("VolumePath", "volumePath", Str),
            ("FSType", "fsType", Str),
            ("StoragePolicyName", "storagePolicyName", Str),
            ("StoragePolicyID", "storagePolicyID", Str),
        ],
    ),
    (
        "azureDisk",
        "AzureDisk",
        &[
            ("DiskName", "diskName", Str),
            ("DataDiskURI", "diskURI", Str),
            ("CachingMode", "cachingMode", OptStr),
            ("FSType", "fsType", OptStr),
            ("ReadOnly", "readOnly", OptBool),
            ("Kind", "kind", OptStr),
        ],
    ),
    (
        "photonPersistentDisk",
        "PhotonPersistentDisk",
        &[("PdID", "pdID", Str), ("FSType", "fsType", Str)],
    ),
    (
        "portworxVolume",
        "PortworxVolume",
        &[
            ("VolumeID", "volumeID", Str),
            ("FSType", "fsType", Str),
            ("ReadOnly", "readOnly", Bool),
        ],
    ),
    (
        "scaleIO",
        "ScaleIO",
        &[
            ("Gateway", "gateway", Str),
            ("System", "system", Str),
            ("SecretRef", "secretRef", Secret),
            ("SSLEnabled", "sslEnabled", Bool),
            ("ProtectionDomain", "protectionDomain", Str),
            ("StoragePool", "storagePool", Str),
            ("StorageMode", "storageMode", Str),
            ("VolumeName", "volumeName", Str),
            ("FSType", "fsType", Str),
            ("ReadOnly", "readOnly", Bool),
        ],
    ),
    (
        "local",
        "Local",
        &[("Path", "path", Str), ("FSType", "fsType", OptStr)],
    ),
    (
        "storageos",
        "StorageOS",
        &[
            ("VolumeName", "volumeName", Str),
            ("VolumeNamespace", "volumeNamespace", Str),
            ("FSType", "fsType", Str),
            ("ReadOnly", "readOnly", Bool),
            ("SecretRef", "secretRef", Object),
        ],
    ),
    (
        "csi",
        "CSI",
        &[
            ("Driver", "driver", Str),
            ("VolumeHandle", "volumeHandle", Str),
            ("ReadOnly", "readOnly", Bool),
            ("FSType", "fsType", Str),
            ("VolumeAttributes", "volumeAttributes", Raw),
            (
                "ControllerPublishSecretRef",
                "controllerPublishSecretRef",
                Secret,
            ),
            ("NodeStageSecretRef", "nodeStageSecretRef", Secret),
            ("NodePublishSecretRef", "nodePublishSecretRef", Secret),
            (
                "ControllerExpandSecretRef",
                "controllerExpandSecretRef",
                Secret,
            ),
            ("NodeExpandSecretRef", "nodeExpandSecretRef", Secret),
        ],
    ),
];

/// The fields of `core.ObjectReference`: Go name, JSON name.
const OBJECT_REFERENCE: &[(&str, &str)] = &[
    ("Kind", "kind"),
    ("Namespace", "namespace"),
    ("Name", "name"),
    ("UID", "uid"),
    ("APIVersion", "apiVersion"),
    ("ResourceVersion", "resourceVersion"),
    ("FieldPath", "fieldPath"),
];

fn null() -> GoValue {
    GoValue::Json(Value::Null)
}

fn string(value: &Value) -> GoValue {
    GoValue::Json(value.as_str().unwrap_or_default().into())
}

/// A `*string` (or a named string type behind a pointer): the string, or `null`.
fn optional_string(value: &Value) -> GoValue {
    GoValue::Json(
        value
            .as_str()
            .map_or(Value::Null, |s| Value::String(s.into())),
    )
}

/// A slice or map of plain values: as given, `null` when absent.
fn raw(value: &Value) -> GoValue {
    GoValue::Json(value.clone())
}

fn field(value: &Value, kind: Kind) -> GoValue {
    match kind {
        Str => string(value),
        OptStr => optional_string(value),
        Bool => GoValue::Json(value.as_bool().unwrap_or_default().into()),
        OptBool => GoValue::Json(value.as_bool().map_or(Value::Null, Value::Bool)),
        Int => GoValue::Json(value.as_i64().unwrap_or_default().into()),
        OptInt => GoValue::Json(value.as_i64().map_or(Value::Null, Value::from)),
        Raw => raw(value),
        Secret if value.is_object() => GoValue::Struct(vec![
            ("Name", string(&value["name"])),
            ("Namespace", string(&value["namespace"])),
        ]),
        Object => object_reference(value),
        Secret => null(),
    }
}

/// A `*core.ObjectReference`, `null` when absent.
pub fn object_reference(value: &Value) -> GoValue {
    if !value.is_object() {
        return null();
    }
    GoValue::Struct(
        OBJECT_REFERENCE
            .iter()
            .map(|(go, json)| (*go, string(&value[*json])))
            .collect(),
    )
}

/// The fields of `core.PersistentVolumeSource` of a spec (each source, `null` when absent).
fn source_fields(spec: &Value) -> Vec<(&'static str, GoValue)> {
    SOURCES
        .iter()
        .map(|(json, go, fields)| {
            let source = &spec[*json];
            let value = if source.is_object() {
                GoValue::Struct(
                    fields
                        .iter()
                        .map(|(name, key, kind)| (*name, field(&source[*key], *kind)))
                        .collect(),
                )
            } else {
                null()
            };
            (*go, value)
        })
        .collect()
}

/// A spec's `core.PersistentVolumeSource`.
pub fn volume_source(spec: &Value) -> GoValue {
    GoValue::Struct(source_fields(spec))
}

/// A list of `core.NodeSelectorRequirement` (`null` when absent).
pub fn requirements(value: &Value) -> GoValue {
    match value.as_array() {
        None => null(),
        Some(items) => GoValue::List(
            items
                .iter()
                .map(|r| {
                    vec![
                        ("Key", string(&r["key"])),
                        ("Operator", string(&r["operator"])),
                        ("Values", raw(&r["values"])),
                    ]
                })
                .collect(),
        ),
    }
}

/// A `*core.VolumeNodeAffinity`, `null` when absent.
pub fn node_affinity(value: &Value) -> GoValue {
    if !value.is_object() {
        return null();
    }
    let required = &value["required"];
    let required = if required.is_object() {
        let terms = match required["nodeSelectorTerms"].as_array() {
            None => null(),
            Some(terms) => GoValue::List(
                terms
                    .iter()
                    .map(|t| {
                        vec![
                            ("MatchExpressions", requirements(&t["matchExpressions"])),
                            ("MatchFields", requirements(&t["matchFields"])),
                        ]
                    })
                    .collect(),
            ),
        };
        GoValue::Struct(vec![("NodeSelectorTerms", terms)])
    } else {
        null()
    };
    GoValue::Struct(vec![("Required", required)])
}

/// A `*core.PersistentVolumeSpec` (the source's fields inline, as Go writes an embedded
/// struct), `null` when absent; `capacity` is its `ResourceList` as Go writes it.
pub fn volume_spec(spec: &Value, capacity: GoValue) -> GoValue {
    if !spec.is_object() {
        return null();
    }
    let mut fields = vec![("Capacity", capacity)];
    fields.extend(source_fields(spec));
    fields.extend([
        ("AccessModes", raw(&spec["accessModes"])),
        ("ClaimRef", object_reference(&spec["claimRef"])),
        (
            "PersistentVolumeReclaimPolicy",
            string(&spec["persistentVolumeReclaimPolicy"]),
        ),
        ("StorageClassName", string(&spec["storageClassName"])),
        ("MountOptions", raw(&spec["mountOptions"])),
        ("VolumeMode", optional_string(&spec["volumeMode"])),
        ("NodeAffinity", node_affinity(&spec["nodeAffinity"])),
        (
            "VolumeAttributesClassName",
            optional_string(&spec["volumeAttributesClassName"]),
        ),
    ]);
    GoValue::Struct(fields)
}

#[cfg(test)]
mod tests {
    use super::super::go_diff::{marshal, marshal_indent};
    use super::*;
    use serde_json::json;

    #[test]
    fn sources_are_written_with_their_go_names_and_zero_values() {
        let text = marshal_indent(&volume_source(
            &json!({"fc": {"targetWWNs": ["a"]}, "storageos": {"secretRef": {"name": "s"}}}),
        ));
        assert!(
            text.contains(
                "\"FC\": {\n  \"TargetWWNs\": [\n   \"a\"\n  ],\n  \"Lun\": null,\n  \"FSType\": \"\",\n  \"ReadOnly\": false,\n  \"WWIDs\": null\n }"
            ),
            "{text}"
        );
        assert!(text.contains("\"Kind\": \"\",\n   \"Namespace\": \"\",\n   \"Name\": \"s\""));
        assert!(text.starts_with("{\n \"GCEPersistentDisk\": null,\n"));
        assert!(text.ends_with(" \"CSI\": null\n}"));
    }

    #[test]
    fn node_affinity_as_json_marshal_writes_it() {
        let affinity = json!({"required": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "k", "operator": "Exists"}]}]}});
        assert_eq!(
            marshal(&node_affinity(&affinity)),
            r#"{"Required":{"NodeSelectorTerms":[{"MatchExpressions":[{"Key":"k","Operator":"Exists","Values":null}],"MatchFields":null}]}}"#
        );
        assert_eq!(marshal(&node_affinity(&Value::Null)), "null");
        assert_eq!(marshal(&node_affinity(&json!({}))), r#"{"Required":null}"#);
    }
}
