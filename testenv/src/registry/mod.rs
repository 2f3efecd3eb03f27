//! The catalogue of served resources: the built-in kinds (with their real scope, names and
//! subresources) plus the kinds of every established CustomResourceDefinition.
//!
//! Discovery, routing and the endpoints all read from here, so a CRD becomes servable
//! in every place at once when it is installed.

pub mod admission_policy;
pub mod allocate;
pub mod apparmor;
mod builtin;
pub mod checks;
mod claim_sources;
pub mod conversion;
pub mod crd;
pub mod disabled_projections;
pub mod field_labels;
pub mod image_volume;
mod label_keys;
pub mod node_ports;
mod scheduling_gates;
pub mod schema;
pub mod service_ips;
pub mod stored;
pub mod strategy;
pub mod subresources;
pub mod webhook_configuration;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use builtin::{GROUP_ORDER, builtin_resources, scheme, validation};

use crate::support::resource::ResourceDef;

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

    /// Whether a built-in group (`""` for the core group) is served in some version: the
    /// real server's REST container answers every path under it.
    pub fn serves_built_in_group(&self, group: &str) -> bool {
        self.by_path
            .iter()
            .any(|((g, _, _), def)| g == group && def.custom.is_none())
    }
}
