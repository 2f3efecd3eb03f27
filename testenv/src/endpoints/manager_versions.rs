//! Which versions the field manager can reach for a kind, as kube-apiserver's converter
//! reaches them: a built-in kind's versions in its own group (an Event's `v1` and
//! `events.k8s.io/v1` managers cannot be converted to each other; a removed beta is no
//! version at all), and every version a CRD lists, served or not (converted by its webhook;
//! a version it no longer lists is refused).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, LazyLock};

use serde_json::Value;

use crate::registry::{Registry, builtin_resources, crd};
use crate::storage::Store;
use crate::storage::conversion::builtin::BuiltinVersions;
use crate::support::fieldmanager::{KindVersions, Versions};
use crate::support::resource::ResourceDef;

/// Where CRDs are stored.
const CRD_KEY: &str = "apiextensions.k8s.io/customresourcedefinitions";

/// The `group/version`s each built-in resource (by group and plural) is served in.
static BUILTIN: LazyLock<BTreeMap<(String, String), BTreeSet<String>>> = LazyLock::new(|| {
    let mut out: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for def in builtin_resources() {
        out.entry((def.group.clone(), def.plural.clone()))
            .or_default()
            .insert(def.api_version());
    }
    out
});

/// The versions of a built-in kind (those of `def`'s group), converting where their fields
/// differ (HorizontalPodAutoscalers).
pub fn builtin(def: &ResourceDef) -> Box<dyn Versions> {
    if let Some(v) = BuiltinVersions::of(def) {
        return Box::new(v);
    }
    let served = BUILTIN
        .get(&(def.group.clone(), def.plural.clone()))
        .cloned()
        .unwrap_or_else(|| BTreeSet::from([def.api_version()]));
    Box::new(KindVersions::builtin(served))
}

/// The versions of `def`'s kind: a built-in kind's ([`builtin`]), or those its CRD lists
/// (all compared in the request's version: the kind converts with the `None` strategy, or
/// the caller converts by webhook).
pub fn of(store: &Store, def: &ResourceDef) -> Box<dyn Versions> {
    if def.custom.is_none() {
        return builtin(def);
    }
    let listed = crd_object(store, def).map_or_else(
        || vec![def.api_version()],
        |crd| {
            crd["spec"]["versions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v["name"].as_str())
                .map(|v| format!("{}/{v}", def.group))
                .collect()
        },
    );
    Box::new(KindVersions::custom(listed))
}

/// Every version of a custom kind its CRD lists, served or not (the field manager converts
/// to an unserved version like to any other); the served ones as the registry has them.
pub fn crd_defs(store: &Store, registry: &Registry, def: &ResourceDef) -> Vec<Arc<ResourceDef>> {
    let served: Vec<Arc<ResourceDef>> =
        registry.by_storage_key(&def.storage_key).cloned().collect();
    let Some(crd) = crd_object(store, def) else {
        return served;
    };
    let mut all = (*crd).clone();
    for v in all["spec"]["versions"].as_array_mut().into_iter().flatten() {
        v["served"] = Value::Bool(true);
    }
    let mut out = served;
    for unserved in crd::resources_of(&all) {
        if !out.iter().any(|d| d.version == unserved.version) {
            out.push(Arc::new(unserved));
        }
    }
    out
}

fn crd_object(store: &Store, def: &ResourceDef) -> Option<Arc<Value>> {
    store.get(CRD_KEY, "", &format!("{}.{}", def.plural, def.group))
}
