//! The registry of API types: every root type `#[kubeforge::api]` registers through
//! `inventory`, with what the runtime needs to handle it generically.

use std::fmt::Debug;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::core::{CustomResourceExt, GroupVersionKind, Resource};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use schemars::transform::AddNullable;
use serde::{Serialize, de::DeserializeOwned};

/// What the runtime needs to handle an API type generically: the Rust counterpart of Go's
/// `runtime.Object` + DeepCopy (Clone), with its kube `Resource` identity, serde and schema.
/// Implemented automatically; `#[kubeforge::api]` asserts it for every root type.
pub trait ApiObject:
    Resource<DynamicType = ()>
    + CustomResourceExt
    + schemars::JsonSchema
    + Clone
    + Debug
    + Serialize
    + DeserializeOwned
    + Send
    + Sync
    + 'static
{
}

impl<K> ApiObject for K where
    K: Resource<DynamicType = ()>
        + CustomResourceExt
        + schemars::JsonSchema
        + Clone
        + Debug
        + Serialize
        + DeserializeOwned
        + Send
        + Sync
        + 'static
{
}

/// One registered API type (one version of one kind).
#[derive(Debug)]
pub struct ApiType {
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    rust_type: &'static str,
    crd: fn() -> CustomResourceDefinition,
    raw_schema: fn() -> serde_json::Value,
}

impl ApiType {
    /// Describes `K`; called by `#[kubeforge::api]` inside `inventory::submit!`.
    pub const fn new<K: ApiObject>(
        group: &'static str,
        version: &'static str,
        kind: &'static str,
        rust_type: &'static str,
    ) -> Self {
        ApiType {
            group,
            version,
            kind,
            rust_type,
            crd: K::crd,
            raw_schema: raw_schema::<K>,
        }
    }

    /// The API group.
    pub fn group(&self) -> &'static str {
        self.group
    }
    /// The version (`v1alpha1`).
    pub fn version(&self) -> &'static str {
        self.version
    }
    /// The kind (`Memcached`).
    pub fn kind(&self) -> &'static str {
        self.kind
    }
    /// The Rust path of the root type, for messages (`my_operator::api::v1::Memcached`).
    pub fn rust_type(&self) -> &'static str {
        self.rust_type
    }
    /// The group/version/kind.
    pub fn gvk(&self) -> GroupVersionKind {
        GroupVersionKind::gvk(self.group, self.version, self.kind)
    }
    /// The single-version CRD kube-derive generates for this type (may panic on shapes kube
    /// cannot render; [`crds`] catches that and explains).
    pub fn crd(&self) -> CustomResourceDefinition {
        (self.crd)()
    }
    /// The schema of the root type before the structural rewrite (see [`crate::shapes`]), for
    /// the notes `manifests` prints.
    pub fn raw_schema(&self) -> serde_json::Value {
        (self.raw_schema)()
    }
}

inventory::collect!(ApiType);

/// Every registered API type, sorted by group, kind and version (deterministic).
pub fn api_types() -> Vec<&'static ApiType> {
    let mut all: Vec<_> = inventory::iter::<ApiType>.into_iter().collect();
    all.sort_by_key(|t| (t.group, t.kind, t.version, t.rust_type));
    all
}

/// The registered type for a group/version/kind.
pub fn lookup(gvk: &GroupVersionKind) -> Option<&'static ApiType> {
    inventory::iter::<ApiType>
        .into_iter()
        .find(|t| t.group == gvk.group && t.version == gvk.version && t.kind == gvk.kind)
}

/// Every registered version of a kind, sorted by version name.
pub fn versions_of(group: &str, kind: &str) -> Vec<&'static ApiType> {
    api_types()
        .into_iter()
        .filter(|t| t.group == group && t.kind == kind)
        .collect()
}

/// The schema schemars produces for `K` with kube's settings, before the structural rewrite
/// (which `manifests` reruns on it to collect its notes).
fn raw_schema<K: JsonSchema>() -> serde_json::Value {
    let generator = SchemaSettings::openapi3()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .with_transform(AddNullable::default())
        .into_generator();
    serde_json::to_value(generator.into_root_schema_for::<K>()).unwrap_or_default()
}
