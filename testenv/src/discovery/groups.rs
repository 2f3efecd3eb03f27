//! What discovery lists: the served groups with their versions (most preferred first), in the
//! real server's order, and the resources of one group version, in discovery order.

use std::sync::Arc;

use super::version::compare_versions;
use crate::registry::{GROUP_ORDER, Registry};
use crate::support::resource::ResourceDef;

/// Named groups (not the core group) with their versions, most preferred first: the built-in
/// groups by priority as kube-apiserver lists them, then custom groups by name.
pub fn groups(registry: &Registry) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for def in registry.all() {
        if def.group.is_empty() {
            continue;
        }
        match out.iter_mut().find(|(g, _)| *g == def.group) {
            Some((_, versions)) if !versions.contains(&def.version) => {
                versions.push(def.version.clone());
            }
            Some(_) => {}
            None => out.push((def.group.clone(), vec![def.version.clone()])),
        }
    }
    for (_, versions) in &mut out {
        versions.sort_by(|a, b| compare_versions(b, a));
    }
    let rank = |g: &str| {
        GROUP_ORDER
            .iter()
            .position(|x| *x == g)
            .unwrap_or(GROUP_ORDER.len())
    };
    out.sort_by(|(a, _), (b, _)| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
    out
}

/// The versions of one named group, most preferred first.
pub fn versions_of(registry: &Registry, group: &str) -> Option<Vec<String>> {
    groups(registry)
        .into_iter()
        .find(|(g, _)| g == group)
        .map(|(_, v)| v)
}

/// The resources of one group/version in discovery order (by plural).
pub fn resources_of<'a>(
    registry: &'a Registry,
    group: &'a str,
    version: &'a str,
) -> impl Iterator<Item = &'a Arc<ResourceDef>> {
    registry
        .all()
        .filter(move |d| d.group == group && d.version == version)
}
