//! The Rust shapes of the round trip, as API types a user would write: no kubeforge attribute
//! on any nested type, only `#[kubeforge::api]` on the specs.
#![allow(dead_code)]

pub mod enums;
pub mod refusals;
pub mod samples;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use enums::*;

/// The API group of every shape kind.
pub const GROUP: &str = "shapes.kubeforge.dev";

/// Numbers, strings, sets, tuples and other scalar-like shapes.
#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "shapes.kubeforge.dev",
    version = "v1",
    kind = "Scalars",
    namespaced
)]
#[serde(rename_all = "camelCase")]
pub struct ScalarsSpec {
    pub int8: i8,
    pub uint8: u8,
    pub uint16: u16,
    pub uint32: u32,
    pub uint64: u64,
    pub int64: i64,
    pub size: usize,
    pub float32: f32,
    pub float64: f64,
    pub flag: bool,
    pub letter: char,
    pub text: String,
    pub nonzero: NonZeroU32,
    pub maybe_int: Option<i32>,
    // A shape users write (a boxed field); the CRD must handle it even if clippy prefers `String`.
    #[allow(clippy::box_collection)]
    pub boxed: Box<String>,
    pub tags: BTreeSet<String>,
    pub ports: HashSet<u16>,
    pub pair: (i32, i32),
    pub triple: (String, i32, bool),
    pub array: [u8; 3],
    pub bytes: Vec<u8>,
    pub by_number: BTreeMap<u32, String>,
    pub timeout: Duration,
    pub address: IpAddr,
    pub port: Port,
    pub name: Name,
    pub int_or_string: IntOrString,
    pub memory: Option<Quantity>,
}

/// A newtype struct.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Port(pub u16);

/// A transparent struct.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Name {
    pub value: String,
}

/// Every enum representation.
#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "shapes.kubeforge.dev",
    version = "v1",
    kind = "Enums",
    namespaced,
    status = "EnumsStatus"
)]
#[serde(rename_all = "camelCase")]
pub struct EnumsSpec {
    pub mode: Mode,
    pub level: Level,
    pub maybe_mode: Option<Mode>,
    pub only: Only,
    pub maybe_only: Option<Only>,
    pub source: Source,
    pub bound: Bound,
    pub sizing: Sizing,
    pub internal: Internal,
    pub adjacent: Adjacent,
    pub int_or_name: IntOrName,
    pub selector: Selector,
    pub loose: Loose,
    pub renamed: Renamed,
    pub shared: Shared,
    pub maybe_internal: Option<Internal>,
}

/// A status with an `Option<enum>` written through the status subresource.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EnumsStatus {
    pub phase: Option<Phase>,
    pub last: Option<Internal>,
}

/// A status phase.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum Phase {
    Pending,
    Ready,
}

/// Free-form data: `serde_json::Value` in every position.
#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "shapes.kubeforge.dev",
    version = "v1",
    kind = "FreeForm",
    namespaced
)]
#[serde(rename_all = "camelCase")]
pub struct FreeFormSpec {
    pub value: serde_json::Value,
    pub maybe_value: Option<serde_json::Value>,
    pub values: BTreeMap<String, serde_json::Value>,
    pub list: Vec<serde_json::Value>,
    pub object: serde_json::Map<String, serde_json::Value>,
    pub maybe_values: Vec<Option<serde_json::Value>>,
    pub open: Open,
    pub labelled: Labelled,
    pub raw: k8s_openapi::apimachinery::pkg::runtime::RawExtension,
}

/// Named fields and a flattened map of anything.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Open {
    pub known: String,
    #[serde(flatten)]
    pub rest: BTreeMap<String, serde_json::Value>,
}

/// Named fields and a flattened map of strings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Labelled {
    pub id: i32,
    #[serde(flatten)]
    pub labels: BTreeMap<String, String>,
}

/// Enums and options nested in lists, maps and options.
#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "shapes.kubeforge.dev",
    version = "v1",
    kind = "Nested",
    namespaced
)]
#[serde(rename_all = "camelCase")]
pub struct NestedSpec {
    pub internals: Vec<Internal>,
    pub internal_by_name: BTreeMap<String, Internal>,
    pub maybe_modes: Option<Vec<Option<Mode>>>,
    pub maybe_counts: BTreeMap<String, Option<i32>>,
    pub adjacent_grid: Vec<Vec<Adjacent>>,
    pub sources_by_team: BTreeMap<String, Vec<Source>>,
    pub boxed_internal: Option<Box<Internal>>,
    pub int_or_names: Vec<IntOrName>,
    pub sizings: BTreeMap<String, Sizing>,
    pub items: Vec<Item>,
    pub selectors: Option<Vec<Selector>>,
    pub bounds: Vec<Bound>,
}

/// A list item with optional enum fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Item {
    pub name: String,
    pub mode: Option<Mode>,
    pub level: Option<Level>,
}

/// Recursive types.
#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "shapes.kubeforge.dev",
    version = "v1",
    kind = "Recursive",
    namespaced
)]
#[serde(rename_all = "camelCase")]
pub struct RecursiveSpec {
    pub tree: Tree,
    pub expr: Expr,
    pub folder: Folder,
}

/// A tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Tree {
    pub value: String,
    pub children: Vec<Tree>,
}

/// Mutually recursive types.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Folder {
    pub name: String,
    pub files: Vec<File>,
}

/// A file that may be a link to a folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct File {
    pub name: String,
    pub link: Option<Box<Folder>>,
}
