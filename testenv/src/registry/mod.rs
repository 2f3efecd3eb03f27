//! The catalogue of served resources: the built-in kinds (with their real scope, names and
//! subresources) plus the kinds of every established CustomResourceDefinition.
//!
//! Discovery, routing and the REST handlers all read from here, so a CRD becomes servable
//! in every place at once when it is installed.

mod builtin;
pub mod crd;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use builtin::builtin_resources;

/// Where the replica count of a kind lives, for the `scale` subresource.
#[derive(Debug, Clone, PartialEq)]
pub struct ScaleSpec {
    /// JSON path of the desired replicas, for example `.spec.replicas`.
    pub spec_replicas_path: String,
    /// JSON path of the observed replicas, for example `.status.replicas`.
    pub status_replicas_path: String,
    /// JSON path of the label selector string, if any.
    pub label_selector_path: Option<String>,
}

/// What the CRD of a custom kind says about one served version.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomVersion {
    /// The version's `openAPIV3Schema`, if it declares one.
    pub schema: Option<serde_json::Value>,
    /// `additionalPrinterColumns` of the version.
    pub printer_columns: Vec<serde_json::Value>,
    /// JSON paths of the version's `selectableFields`.
    pub selectable_fields: Vec<String>,
}

/// One servable resource: a group/version/plural with its kind and behaviour.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceDef {
    /// API group, empty for the core group.
    pub group: String,
    /// API version within the group.
    pub version: String,
    /// Object kind, for example `Deployment`.
    pub kind: String,
    /// Lower-case plural used in URLs, for example `deployments`.
    pub plural: String,
    /// Lower-case singular name.
    pub singular: String,
    /// Short names kubectl accepts (`deploy`).
    pub short_names: Vec<String>,
    /// Categories (`all`).
    pub categories: Vec<String>,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
    /// Whether the kind has a `/status` subresource.
    pub status_subresource: bool,
    /// The `/scale` subresource, if any.
    pub scale: Option<ScaleSpec>,
    /// Whether `metadata.generation` is maintained (bumped on spec changes).
    pub tracks_generation: bool,
    /// Whether PUT without `metadata.resourceVersion` is allowed.
    pub allow_unconditional_update: bool,
    /// Create-only "virtual" kinds such as TokenReview that are answered, never stored.
    pub create_only: bool,
    /// Where objects are stored: shared by every version of the same group and plural.
    pub storage_key: String,
    /// For custom kinds, what the CRD declares for this version.
    pub custom: Option<CustomVersion>,
}

impl ResourceDef {
    /// `apiVersion` string of this resource (`v1`, `apps/v1`).
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The "qualified resource" used in error messages: `deployments.apps`, `configmaps`.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// The kind qualified by group, as in `Deployment.apps "x" is invalid`.
    pub fn qualified_kind(&self) -> String {
        if self.group.is_empty() {
            self.kind.clone()
        } else {
            format!("{}.{}", self.kind, self.group)
        }
    }

    /// The verbs discovery advertises for this resource.
    pub fn verbs(&self) -> Vec<&'static str> {
        if self.create_only {
            vec!["create"]
        } else {
            vec![
                "create",
                "delete",
                "deletecollection",
                "get",
                "list",
                "patch",
                "update",
                "watch",
            ]
        }
    }
}

/// The set of resources currently served, indexed for routing.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// (group, version, plural) → definition.
    by_path: BTreeMap<(String, String, String), Arc<ResourceDef>>,
}

impl Registry {
    /// A registry holding every built-in kind.
    pub fn with_builtins() -> Self {
        let mut registry = Registry::default();
        for def in builtin_resources() {
            registry.insert(def);
        }
        registry
    }

    /// Adds or replaces one resource definition.
    pub fn insert(&mut self, def: ResourceDef) {
        self.by_path.insert(
            (def.group.clone(), def.version.clone(), def.plural.clone()),
            Arc::new(def),
        );
    }

    /// Removes every version of a group/plural (a CRD being deleted or changed).
    pub fn remove_resource(&mut self, group: &str, plural: &str) {
        self.by_path
            .retain(|(g, _, p), _| !(g == group && p == plural));
    }

    /// Looks a resource up by the parts of its URL.
    pub fn get(&self, group: &str, version: &str, plural: &str) -> Option<Arc<ResourceDef>> {
        self.by_path
            .get(&(group.to_string(), version.to_string(), plural.to_string()))
            .cloned()
    }

    /// Every served resource, ordered by group, version and plural.
    pub fn all(&self) -> impl Iterator<Item = &Arc<ResourceDef>> {
        self.by_path.values()
    }

    /// Every resource sharing a storage key (the versions of one kind).
    pub fn by_storage_key<'a>(
        &'a self,
        key: &'a str,
    ) -> impl Iterator<Item = &'a Arc<ResourceDef>> {
        self.by_path.values().filter(move |d| d.storage_key == key)
    }

    /// Whether a group/version is served at all.
    pub fn serves_group_version(&self, group: &str, version: &str) -> bool {
        self.by_path
            .keys()
            .any(|(g, v, _)| g == group && v == version)
    }
}
