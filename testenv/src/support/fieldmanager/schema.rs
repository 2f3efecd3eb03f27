//! How a value merges, per position in an object: list types (`atomic`, `set`, `map` with
//! keys), map types (`atomic`, `granular`), and whether the kind's zero value already has
//! the position (a struct Go always writes).
//!
//! Custom resources read `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and
//! `x-kubernetes-map-type` from the CRD's openAPIV3Schema; built-in kinds (and the
//! `metadata` of every object, typed as `ObjectMeta`) read them from the real server's
//! recorded OpenAPI ([`crate::support::openapi_schemas`]), following `$ref`s, as
//! kube-apiserver's field manager types them. Lists without a type are atomic and maps
//! granular, as on the real server; so is every position the schema does not describe.

use serde_json::Value;

use crate::support::go_types::{self, Shape};
use crate::support::openapi_schemas::{self, OBJECT_META, resolve};
use crate::support::resource::ResourceDef;

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

/// The types of one resource: its group and kind, and its schema (the CRD's for custom
/// resources, the recorded OpenAPI's for built-in kinds).
#[derive(Debug, Clone, Copy)]
pub struct Types<'a> {
    group: &'a str,
    kind: &'a str,
    schema: Option<&'a Value>,
    custom: bool,
}

impl<'a> Types<'a> {
    /// The types of the served version `def`.
    pub fn of(def: &'a ResourceDef) -> Self {
        let schema = match &def.custom {
            Some(c) => c.schema.as_ref(),
            None => openapi_schemas::of_kind(&def.group, &def.version, &def.kind),
        };
        Types {
            group: &def.group,
            kind: &def.kind,
            custom: def.custom.is_some(),
            schema,
        }
    }

    /// What a status update of the kind keeps of the metadata it was sent.
    pub fn status_metadata(self) -> crate::support::status_metadata::StatusMetadata {
        crate::support::status_metadata::status_metadata(self.group, self.kind, self.custom)
    }

    /// What the field manager credits to a status update's writer of the metadata it sent.
    pub fn credited_status_metadata(self) -> crate::support::status_metadata::StatusMetadata {
        crate::support::status_metadata::credited_status_metadata(
            self.group,
            self.kind,
            self.custom,
        )
    }

    /// Whether the field manager credits a status update's writer with the spec it sent.
    pub fn credits_status_spec(self) -> bool {
        !self.custom && crate::support::status_metadata::credits_status_spec(self.group, self.kind)
    }

    /// Whether these are a custom resource's types.
    pub fn is_custom(self) -> bool {
        self.custom
    }

    /// The position of the whole object.
    pub fn root(self) -> Node<'a> {
        Node {
            types: self,
            raw: self.schema,
            schema: self.schema.map(resolve),
            builtin: !self.custom,
            zero: Zero::Struct,
            required: false,
            names: Vec::new(),
        }
    }
}

/// What the zero value of a built-in kind (the Go struct the real field manager compares a
/// new object with) has at a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Zero {
    /// Nothing: an optional (pointer or `omitempty`) field, or anything inside a list item
    /// or a custom resource's own fields.
    Absent,
    /// An empty struct: a struct field that is not a pointer (its OpenAPI gives it
    /// `"default": {}`), under such structs up to the object.
    Struct,
    /// `null`: a pointer, slice or map field without `omitempty` (listed as `required`),
    /// under such structs up to the object.
    Null,
}

/// One position in an object, with what is needed to know how it merges.
#[derive(Debug, Clone)]
pub struct Node<'a> {
    types: Types<'a>,
    /// The schema of the position as its parent states it (list and map types may sit
    /// there, beside a `$ref`).
    raw: Option<&'a Value>,
    /// The schema with its `$ref`s followed.
    schema: Option<&'a Value>,
    /// Whether the schema is the built-in OpenAPI (a built-in kind, or `metadata`).
    builtin: bool,
    zero: Zero,
    /// Whether Go writes this field without `omitempty`: the parent lists it as `required`,
    /// or its Go struct tags it so.
    required: bool,
    /// Field names from the root (list items add none), for the untracked fields.
    names: Vec<String>,
}

impl<'a> Node<'a> {
    /// An extension of the position: from its own schema first, then from the type it
    /// refers to (`x-kubernetes-map-type: granular` on a field overrides an atomic type).
    fn attr(&self, name: &str) -> Option<&'a Value> {
        self.raw
            .and_then(|r| r.get(name))
            .or_else(|| self.schema.and_then(|s| s.get(name)))
    }

    /// The position of field `name` of a map here.
    pub fn field(&self, name: &str) -> Node<'a> {
        let mut names = self.names.clone();
        names.push(name.to_string());
        // Every object's metadata is an `ObjectMeta`, a struct its zero value has.
        if self.names.is_empty() && name == "metadata" && !self.builtin {
            let meta = openapi_schemas::named(OBJECT_META);
            return Node {
                types: self.types,
                raw: meta,
                schema: meta,
                builtin: true,
                zero: Zero::Struct,
                required: false,
                names,
            };
        }
        let declared = self
            .schema
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(name));
        let raw = declared.or_else(|| {
            self.schema
                .and_then(|s| s.get("additionalProperties"))
                .filter(|a| a.is_object())
        });
        let required = declared.is_some()
            && self
                .schema
                .and_then(|s| s.get("required"))
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|n| n == name));
        // Go writes a nil slice, map or pointer without `omitempty` as `null` (a CSINode
        // driver's `topologyKeys`), which the typed object then has.
        let go_writes_null = self.builtin
            && self
                .schema
                .and_then(go_types::of_schema)
                .and_then(|go| go.field(name))
                .is_some_and(|f| {
                    !f.omit_empty
                        && !f.omit_zero
                        && matches!(
                            f.shape,
                            Shape::Slice | Shape::Map | Shape::Pointer | Shape::Bytes
                        )
                });
        let zero = match declared {
            Some(field) if self.builtin && self.zero == Zero::Struct => {
                // A struct without a default is a pointer Go leaves out when nil, required
                // or not (an IPAddress's `parentRef`).
                let pointer_struct = field.get("allOf").is_some() || field.get("$ref").is_some();
                if field.get("default").is_some_and(Value::is_object) {
                    Zero::Struct
                } else if required && !pointer_struct {
                    Zero::Null
                } else {
                    Zero::Absent
                }
            }
            _ => Zero::Absent,
        };
        Node {
            types: self.types,
            raw,
            schema: raw.map(resolve),
            builtin: self.builtin,
            zero,
            required: required || go_writes_null,
            names,
        }
    }

    /// The position of the items of a list here.
    pub fn items(&self) -> Node<'a> {
        let raw = self.schema.and_then(|s| s.get("items"));
        Node {
            types: self.types,
            raw,
            schema: raw.map(resolve),
            builtin: self.builtin,
            zero: Zero::Absent,
            required: false,
            names: self.names.clone(),
        }
    }

    /// How the list here merges.
    pub fn list_type(&self) -> ListType {
        match self.attr("x-kubernetes-list-type").and_then(Value::as_str) {
            Some("set") => ListType::Set,
            Some("map") => {
                let item = self.items().schema;
                let keys: Vec<MapKey> = self
                    .attr("x-kubernetes-list-map-keys")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(|k| MapKey {
                        name: k.to_string(),
                        default: item
                            .and_then(|i| i.get("properties"))
                            .and_then(|p| p.get(k))
                            .and_then(|p| p.get("default"))
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
        }
    }

    /// Whether the map here is atomic (replaced and owned as a whole):
    /// `x-kubernetes-map-type: atomic`, which is also how a built-in `+structType=atomic`
    /// struct (an owner reference, a label selector, an object reference) shows.
    pub fn map_atomic(&self) -> bool {
        self.attr("x-kubernetes-map-type").and_then(Value::as_str) == Some("atomic")
            || self.builtin && self.schema.is_some_and(free_form)
    }

    /// Whether the object here is a struct the kind's zero value already has (`metadata`,
    /// `spec`, a pod template's `spec`: struct fields that are not pointers, from the object
    /// down through such structs; not a `hostPath` or an Event's `series`, which are
    /// pointers). The real field manager compares a new object with the zero value, so it
    /// does not own such a struct itself when it appears, only its fields; an empty one is
    /// the zero value, nothing to own.
    pub fn zero_struct(&self) -> bool {
        self.zero == Zero::Struct
    }

    /// Whether the kind's zero value has the field here, as a struct or as `null` (a list
    /// Go always writes, as a pod's `containers`): when it appears it is owned through its
    /// items or fields only.
    pub fn in_zero(&self) -> bool {
        self.zero != Zero::Absent
    }

    /// Whether a `null` here is no value at all for the real field manager: a built-in
    /// kind's optional list, map or struct, which Go leaves out of the object when nil
    /// (`omitempty`), so that the typed object it compares never has it. (A `null` Go does
    /// write, for a time that is not a pointer or a list without `omitempty`, is a value.)
    pub fn go_omits_null(&self) -> bool {
        let container = |s: &Value| {
            matches!(
                s.get("type").and_then(Value::as_str),
                Some("array" | "object")
            ) || ["items", "properties", "additionalProperties"]
                .iter()
                .any(|k| s.get(*k).is_some())
        };
        self.builtin
            && !self.required
            && self.zero == Zero::Absent
            && self.schema.is_some_and(container)
    }

    /// What a `null` here becomes when the object is converted to its Go type (the real
    /// server decodes the merged object into the kind's struct): the Go zero value of a
    /// field Go always writes (an empty struct, an empty string in a map of strings), or
    /// nothing (`None`: the field is left out). Custom resources keep their `null`s, which
    /// their schema's defaulting and pruning then handle.
    pub fn null_becomes(&self) -> Option<Value> {
        if !self.builtin {
            return Some(Value::Null);
        }
        self.raw.and_then(|r| r.get("default")).cloned()
    }

    /// Whether this position is a top-level field or a `metadata` field the field manager
    /// never tracks (apiVersion, kind, name, uid, resourceVersion, managedFields, ...).
    /// The schema cannot tell: the real field manager strips them from both objects before
    /// comparing (its "strip meta" step), whatever their types.
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

/// Whether a built-in schema is an object of any shape (a `RawExtension`, as a
/// ControllerRevision's `data`), which the real field manager owns as a whole.
fn free_form(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        && schema.get("properties").is_none()
        && schema.get("additionalProperties").is_none()
}
