//! A PersistentVolume's spec as the real server's internal Go types (`core.PersistentVolumeSpec`,
//! its `PersistentVolumeSource`, `VolumeNodeAffinity`), for the values its update errors print:
//! Go field names in declaration order, unset pointers `null`, unset strings, numbers and
//! booleans as their zero values.

use serde_json::Value;

use super::go_diff::GoValue;
use super::go_struct::Kind::{Bool, Int, Json, Ptr, Slice, Str};
use super::go_struct::{Field, field, fields};
use super::pod_go::{
    AWS_EBS, AZURE_DISK, FC, FLOCKER, GCE_PD, PHOTON, PORTWORX, QUOBYTE, REQUIREMENT,
    SELECTOR_TERM, VSPHERE,
};

/// `core.SecretReference`.
const SECRET_REFERENCE: &[Field] = &[("Name", "name", Str), ("Namespace", "namespace", Str)];

/// The fields of `core.PersistentVolumeSource`, in declaration order.
const SOURCES: &[Field] = &[
    ("GCEPersistentDisk", "gcePersistentDisk", Ptr(GCE_PD)),
    ("AWSElasticBlockStore", "awsElasticBlockStore", Ptr(AWS_EBS)),
    (
        "HostPath",
        "hostPath",
        Ptr(&[("Path", "path", Str), ("Type", "type", Json)]),
    ),
    (
        "Glusterfs",
        "glusterfs",
        Ptr(&[
            ("EndpointsName", "endpoints", Str),
            ("Path", "path", Str),
            ("ReadOnly", "readOnly", Bool),
            ("EndpointsNamespace", "endpointsNamespace", Json),
        ]),
    ),
    (
        "NFS",
        "nfs",
        Ptr(&[
            ("Server", "server", Str),
            ("Path", "path", Str),
            ("ReadOnly", "readOnly", Bool),
        ]),
    ),
    (
        "RBD",
        "rbd",
        Ptr(&[
            ("CephMonitors", "monitors", Json),
            ("RBDImage", "image", Str),
            ("FSType", "fsType", Str),
            ("RBDPool", "pool", Str),
            ("RadosUser", "user", Str),
            ("Keyring", "keyring", Str),
            ("SecretRef", "secretRef", Ptr(SECRET_REFERENCE)),
            ("ReadOnly", "readOnly", Bool),
        ]),
    ),
    ("Quobyte", "quobyte", Ptr(QUOBYTE)),
    (
        "ISCSI",
        "iscsi",
        Ptr(&[
            ("TargetPortal", "targetPortal", Str),
            ("IQN", "iqn", Str),
            ("Lun", "lun", Int),
            ("ISCSIInterface", "iscsiInterface", Str),
            ("FSType", "fsType", Str),
            ("ReadOnly", "readOnly", Bool),
            ("Portals", "portals", Json),
            ("DiscoveryCHAPAuth", "chapAuthDiscovery", Bool),
            ("SessionCHAPAuth", "chapAuthSession", Bool),
            ("SecretRef", "secretRef", Ptr(SECRET_REFERENCE)),
            ("InitiatorName", "initiatorName", Json),
        ]),
    ),
    (
        "FlexVolume",
        "flexVolume",
        Ptr(&[
            ("Driver", "driver", Str),
            ("FSType", "fsType", Str),
            ("SecretRef", "secretRef", Ptr(SECRET_REFERENCE)),
            ("ReadOnly", "readOnly", Bool),
            ("Options", "options", Json),
        ]),
    ),
    (
        "Cinder",
        "cinder",
        Ptr(&[
            ("VolumeID", "volumeID", Str),
            ("FSType", "fsType", Str),
            ("ReadOnly", "readOnly", Bool),
            ("SecretRef", "secretRef", Ptr(SECRET_REFERENCE)),
        ]),
    ),
    (
        "CephFS",
        "cephfs",
        Ptr(&[
            ("Monitors", "monitors", Json),
            ("Path", "path", Str),
            ("User", "user", Str),
            ("SecretFile", "secretFile", Str),
            ("SecretRef", "secretRef", Ptr(SECRET_REFERENCE)),
            ("ReadOnly", "readOnly", Bool),
        ]),
    ),
    ("FC", "fc", Ptr(FC)),
    ("Flocker", "flocker", Ptr(FLOCKER)),
    (
        "AzureFile",
        "azureFile",
        Ptr(&[
            ("SecretName", "secretName", Str),
            ("ShareName", "shareName", Str),
            ("ReadOnly", "readOnly", Bool),
            ("SecretNamespace", "secretNamespace", Json),
        ]),
    ),
    ("VsphereVolume", "vsphereVolume", Ptr(VSPHERE)),
    ("AzureDisk", "azureDisk", Ptr(AZURE_DISK)),
    ("PhotonPersistentDisk", "photonPersistentDisk", Ptr(PHOTON)),
    ("PortworxVolume", "portworxVolume", Ptr(PORTWORX)),
    (
        "ScaleIO",
        "scaleIO",
        Ptr(&[
            ("Gateway", "gateway", Str),
            ("System", "system", Str),
            ("SecretRef", "secretRef", Ptr(SECRET_REFERENCE)),
            ("SSLEnabled", "sslEnabled", Bool),
            ("ProtectionDomain", "protectionDomain", Str),
            ("StoragePool", "storagePool", Str),
            ("StorageMode", "storageMode", Str),
            ("VolumeName", "volumeName", Str),
            ("FSType", "fsType", Str),
            ("ReadOnly", "readOnly", Bool),
        ]),
    ),
    (
        "Local",
        "local",
        Ptr(&[("Path", "path", Str), ("FSType", "fsType", Json)]),
    ),
    (
        "StorageOS",
        "storageos",
        Ptr(&[
            ("VolumeName", "volumeName", Str),
            ("VolumeNamespace", "volumeNamespace", Str),
            ("FSType", "fsType", Str),
            ("ReadOnly", "readOnly", Bool),
            ("SecretRef", "secretRef", Ptr(OBJECT_REFERENCE)),
        ]),
    ),
    (
        "CSI",
        "csi",
        Ptr(&[
            ("Driver", "driver", Str),
            ("VolumeHandle", "volumeHandle", Str),
            ("ReadOnly", "readOnly", Bool),
            ("FSType", "fsType", Str),
            ("VolumeAttributes", "volumeAttributes", Json),
            (
                "ControllerPublishSecretRef",
                "controllerPublishSecretRef",
                Ptr(SECRET_REFERENCE),
            ),
            (
                "NodeStageSecretRef",
                "nodeStageSecretRef",
                Ptr(SECRET_REFERENCE),
            ),
            (
                "NodePublishSecretRef",
                "nodePublishSecretRef",
                Ptr(SECRET_REFERENCE),
            ),
            (
                "ControllerExpandSecretRef",
                "controllerExpandSecretRef",
                Ptr(SECRET_REFERENCE),
            ),
            (
                "NodeExpandSecretRef",
                "nodeExpandSecretRef",
                Ptr(SECRET_REFERENCE),
            ),
        ]),
    ),
];

/// `core.ObjectReference`.
const OBJECT_REFERENCE: &[Field] = &[
    ("Kind", "kind", Str),
    ("Namespace", "namespace", Str),
    ("Name", "name", Str),
    ("UID", "uid", Str),
    ("APIVersion", "apiVersion", Str),
    ("ResourceVersion", "resourceVersion", Str),
    ("FieldPath", "fieldPath", Str),
];

/// `core.VolumeNodeAffinity`.
const NODE_AFFINITY: &[Field] = &[(
    "Required",
    "required",
    Ptr(&[(
        "NodeSelectorTerms",
        "nodeSelectorTerms",
        Slice(SELECTOR_TERM),
    )]),
)];

/// The fields of `core.PersistentVolumeSpec` after its embedded source, in declaration order.
const SPEC_AFTER_SOURCE: &[Field] = &[
    ("AccessModes", "accessModes", Json),
    ("ClaimRef", "claimRef", Ptr(OBJECT_REFERENCE)),
    (
        "PersistentVolumeReclaimPolicy",
        "persistentVolumeReclaimPolicy",
        Str,
    ),
    ("StorageClassName", "storageClassName", Str),
    ("MountOptions", "mountOptions", Json),
    ("VolumeMode", "volumeMode", Json),
    ("NodeAffinity", "nodeAffinity", Ptr(NODE_AFFINITY)),
    (
        "VolumeAttributesClassName",
        "volumeAttributesClassName",
        Json,
    ),
];

/// A `*core.ObjectReference`, `null` when absent.
pub fn object_reference(value: &Value) -> GoValue {
    field(Ptr(OBJECT_REFERENCE), Some(value))
}

/// A spec's `core.PersistentVolumeSource`.
pub fn volume_source(spec: &Value) -> GoValue {
    GoValue::Struct(fields(SOURCES, spec.as_object()))
}

/// A list of `core.NodeSelectorRequirement` (`null` when absent).
pub fn requirements(value: &Value) -> GoValue {
    field(Slice(REQUIREMENT), Some(value))
}

/// A `*core.VolumeNodeAffinity`, `null` when absent.
pub fn node_affinity(value: &Value) -> GoValue {
    field(Ptr(NODE_AFFINITY), Some(value))
}

/// A `*core.PersistentVolumeSpec` (the source's fields inline, as Go writes an embedded
/// struct), `null` when absent; `capacity` is its `ResourceList` as Go writes it.
pub fn volume_spec(spec: &Value, capacity: GoValue) -> GoValue {
    let Some(object) = spec.as_object() else {
        return GoValue::Json(Value::Null);
    };
    let mut out = vec![("Capacity", capacity)];
    out.extend(fields(SOURCES, Some(object)));
    out.extend(fields(SPEC_AFTER_SOURCE, Some(object)));
    GoValue::Struct(out)
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
