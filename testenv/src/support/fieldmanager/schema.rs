//! How a value merges, per position in an object: list types (`atomic`, `set`, `map` with
//! keys) and map types (`atomic`, `granular`).
//!
//! Custom resources read `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and
//! `x-kubernetes-map-type` from the CRD's openAPIV3Schema; built-in kinds (and the
//! `metadata` of every object) use the merge keys the strategic merge patch knows, and treat
//! selectors as atomic maps. Lists without a type are atomic and maps granular, as on the
//! real server.

use serde_json::Value;

use crate::support::patch::strategic;
use crate::support::resource::ResourceDef;

/// Fields of built-in kinds whose values are maps (string keys chosen by the user), not
/// structs.
const BUILTIN_MAPS: &[&str] = &[
    "labels",
    "annotations",
    "data",
    "binaryData",
    "stringData",
    "matchLabels",
    "nodeSelector",
    "selector",
    "limits",
    "requests",
    "capacity",
    "allocatable",
    "hard",
    "used",
    "parameters",
    "volumeAttributes",
    "overhead",
];

/// Struct fields of built-in kinds that are optional (pointers in Go), so absent from the
/// kind's zero value: when they appear they are owned themselves, as maps are.
const BUILTIN_OPTIONAL_STRUCTS: &[&str] = &[
    "rollingUpdate",
    "conversion",
    "webhook",
    "clientConfig",
    "persistentVolumeClaimRetentionPolicy",
    "securityContext",
];

/// How a list merges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListType {
    /// Replaced as a whole and owned as one field.
    Atomic,
    /// A set of scalars, each owned on its own (`v:`).
    Set,
    /// Objects identified by these key fields, each owned on its own (`k:`).
    Map(Vec<MapKey>),
}

/// One key field of a map list, with the default that stands in when an item omits it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapKey {
    /// The field name.
    pub name: String,
    /// The schema default of the field, if any.
    pub default: Option<Value>,
}

/// The types of one resource: its group and kind, and its schema for custom resources.
#[derive(Debug, Clone, Copy)]
pub struct Types<'a> {
    group: &'a str,
    kind: &'a str,
    crd: Option<&'a Value>,
    custom: bool,
}

impl<'a> Types<'a> {
    /// The types of the served version `def`.
    pub fn of(def: &'a ResourceDef) -> Self {
        Types {
            group: &def.group,
            kind: &def.kind,
            custom: def.custom.is_some(),
            crd: def.custom.as_ref().and_then(|c| c.schema.as_ref()),
        }
    }

    /// What a status update of the kind keeps of the metadata it was sent.
    pub fn status_metadata(self) -> crate::support::status_metadata::StatusMetadata {
        crate::support::status_metadata::status_metadata(self.group, self.kind, self.custom)
    }

    /// The position of the whole object.
    pub fn root(self) -> Node<'a> {
        Node {
            types: self,
            crd: if self.custom {
                Crd::At(self.crd)
            } else {
                Crd::Builtin
            },
            names: Vec::new(),
        }
    }
}

/// Where in the schema a position is.
#[derive(Debug, Clone, Copy)]
enum Crd<'a> {
    /// A node of a CRD schema (`None`: no schema there; lists atomic, maps granular).
    At(Option<&'a Value>),
    /// Built-in rules (built-in kinds, and `metadata` of custom resources).
    Builtin,
}

/// One position in an object, with what is needed to know how it merges.
#[derive(Debug, Clone)]
pub struct Node<'a> {
    types: Types<'a>,
    crd: Crd<'a>,
    /// Field names from the root (list items add none), for the built-in rules.
    names: Vec<String>,
}

impl<'a> Node<'a> {
    /// The position of field `name` of a map here.
    pub fn field(&self, name: &str) -> Node<'a> {
        let crd = match self.crd {
            Crd::At(_) if self.names.is_empty() && name == "metadata" => Crd::Builtin,
            Crd::At(Some(s)) => Crd::At(
                s.get("properties")
                    .and_then(|p| p.get(name))
                    .or_else(|| s.get("additionalProperties").filter(|a| a.is_object())),
            ),
            other => other,
        };
        let mut names = self.names.clone();
        names.push(name.to_string());
        Node {
            types: self.types,
            crd,
            names,
        }
    }

    /// The position of the items of a list here.
    pub fn items(&self) -> Node<'a> {
        let crd = match self.crd {
            Crd::At(Some(s)) => Crd::At(s.get("items")),
            other => other,
        };
        Node {
            types: self.types,
            crd,
            names: self.names.clone(),
        }
    }

    /// How the list here merges.
    pub fn list_type(&self) -> ListType {
        match self.crd {
            Crd::At(None) => ListType::Atomic,
            Crd::At(Some(s)) => match s.get("x-kubernetes-list-type").and_then(Value::as_str) {
                Some("set") => ListType::Set,
                Some("map") => {
                    let keys: Vec<MapKey> = s
                        .get("x-kubernetes-list-map-keys")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(|k| MapKey {
                            name: k.to_string(),
                            default: s
                                .pointer(&format!("/items/properties/{k}/default"))
                                .cloned(),
                        })
                        .collect();
                    if keys.is_empty() {
                        ListType::Atomic
                    } else {
                        ListType::Map(keys)
                    }
                }
                _ => ListType::Atomic,
            },
            Crd::Builtin => {
                let Some((field, parent)) = self.names.split_last() else {
                    return ListType::Atomic;
                };
                // Custom resources follow the built-in rules only inside `metadata`.
                let group = if self.types.custom {
                    ""
                } else {
                    self.types.group
                };
                match strategic::apply_list_type(group, self.types.kind, parent, field) {
                    None => ListType::Atomic,
                    Some(None) => ListType::Set,
                    Some(Some(key)) => {
                        let mut keys = vec![MapKey {
                            name: key.to_string(),
                            default: None,
                        }];
                        // Container and Service ports are keyed by port and protocol in the
                        // built-in OpenAPI, protocol defaulting to TCP.
                        if matches!(key, "containerPort" | "port") {
                            keys.push(MapKey {
                                name: "protocol".into(),
                                default: Some(Value::String("TCP".into())),
                            });
                        }
                        ListType::Map(keys)
                    }
                }
            }
        }
    }

    /// Whether the map here is atomic (replaced and owned as a whole).
    pub fn map_atomic(&self) -> bool {
        match self.crd {
            Crd::At(Some(s)) => {
                s.get("x-kubernetes-map-type").and_then(Value::as_str) == Some("atomic")
            }
            // Owner references are atomic structs (`+structType=atomic`), in every kind's
            // metadata: an item is owned through its key alone.
            Crd::Builtin if self.names.last().is_some_and(|n| n == "ownerReferences") => true,
            // Label selectors, selector maps, role references and object references
            // (`ObjectReference`: an Event's `involvedObject`, `regarding` and `related`, an
            // endpoint's `targetRef`) of built-in kinds are atomic in their OpenAPI
            // (`+structType=atomic` / `+mapType=atomic`).
            Crd::Builtin if !self.types.custom => self.names.last().is_some_and(|n| {
                matches!(
                    n.as_str(),
                    "roleRef"
                        | "involvedObject"
                        | "regarding"
                        | "related"
                        | "targetRef"
                        | "selector"
                        | "nodeSelector"
                        | "labelSelector"
                        | "namespaceSelector"
                        | "objectSelector"
                        | "podSelector"
                )
            }),
            _ => false,
        }
    }

    /// Whether the object here is a struct of a built-in kind (named fields in the built-in
    /// OpenAPI: `spec`, `template`, `strategy`, `metadata`, ...). The real field manager does not
    /// own such a struct itself when it appears, only its fields; maps (labels, annotations,
    /// data, resource lists, ...) and the objects of a custom resource's schema are owned
    /// themselves (`".": {}` in `fieldsV1`).
    pub fn builtin_struct(&self) -> bool {
        matches!(self.crd, Crd::Builtin)
            && !self.names.last().is_some_and(|n| {
                BUILTIN_MAPS.contains(&n.as_str()) || BUILTIN_OPTIONAL_STRUCTS.contains(&n.as_str())
            })
    }

    /// Whether the list here is one a built-in kind's zero value has (`containers`, a field
    /// Go always serializes, as null): like a struct of the zero value, it is owned through
    /// its items only.
    pub fn builtin_zero_list(&self) -> bool {
        matches!(self.crd, Crd::Builtin)
            && !self.types.custom
            && self.names.last().is_some_and(|n| n == "containers")
    }

    /// Whether this position is a top-level field or a `metadata` field the field manager
    /// never tracks (apiVersion, kind, name, uid, resourceVersion, managedFields, ...).
    pub fn untracked(&self, name: &str) -> bool {
        match self.names.as_slice() {
            [] => matches!(name, "apiVersion" | "kind"),
            [m] if m == "metadata" => matches!(
                name,
                "name"
                    | "namespace"
                    | "creationTimestamp"
                    | "selfLink"
                    | "uid"
                    | "clusterName"
                    | "generation"
                    | "managedFields"
                    | "resourceVersion"
            ),
            _ => false,
        }
    }
}
