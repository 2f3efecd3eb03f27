//! What discovery lists: the served groups with their versions (most preferred first), and the
//! resources of one group version, in discovery order.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::version::compare_versions;
use crate::registry::Registry;
use crate::support::resource::ResourceDef;

/// Named groups (not the core group) with their versions, most preferred first.
pub fn groups(registry: &Registry) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for def in registry.all() {
        if def.group.is_empty() {
            continue;
        }
        let versions = out.entry(def.group.clone()).or_default();
        if !versions.contains(&def.version) {
            versions.push(def.version.clone());
        }
    }
    for versions in out.values_mut() {
        versions.sort_by(|a, b| compare_versions(b, a));
    }
    out
}

/// The resources of one group/version in discovery order.
pub fn resources_of<'a>(
    registry: &'a Registry,
    group: &'a str,
    version: &'a str,
) -> impl Iterator<Item = &'a Arc<ResourceDef>> {
    registry
        .all()
        .filter(move |d| d.group == group && d.version == version)
}
