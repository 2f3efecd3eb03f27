//! What a request to a custom kind needs for conversion: whether its CRD uses the `Webhook`
//! strategy, the storage version's resource, and how to reach the webhook.

use std::sync::Arc;

use serde_json::Value;

use super::Registry;
use super::crd;
use crate::storage::Store;
use crate::storage::conversion::Plan;
use crate::storage::conversion::review::ReviewVersion;
use crate::support::resource::ResourceDef;

/// Where CRDs themselves are stored.
const CRD_KEY: &str = "apiextensions.k8s.io/customresourcedefinitions";

/// The conversion plan of `def`'s kind when its CRD converts by webhook (None for built-in
/// kinds and the `None` strategy). A request to another version than the storage version
/// goes through it; so does a write to the storage version whose field manager converts to
/// the versions managers were recorded in (`served` and `storage` are then the same).
pub fn lookup_any_version(
    store: &Store,
    registry: &Registry,
    def: &Arc<ResourceDef>,
) -> Option<Plan> {
    def.custom.as_ref()?;
    let crd_obj = store.get(CRD_KEY, "", &format!("{}.{}", def.plural, def.group))?;
    let conversion = &crd_obj["spec"]["conversion"];
    if conversion["strategy"].as_str() != Some("Webhook") {
        return None;
    }
    let storage_version = crd::storage_version(&crd_obj)?;
    let storage = storage_def(registry, &crd_obj, def, &storage_version)?;
    let webhook = &conversion["webhook"];
    let listed: Vec<String> = webhook["conversionReviewVersions"]
        .as_array()
        .or_else(|| conversion["conversionReviewVersions"].as_array())
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let client_config = match &webhook["clientConfig"] {
        Value::Null => conversion["webhookClientConfig"].clone(),
        c => c.clone(),
    };
    Some(Plan {
        served: def.clone(),
        storage,
        review_version: ReviewVersion::choose(&listed),
        client_config,
    })
}

/// Whether objects of `def`'s kind may be stored in another version than `def`'s: the
/// CRD's `status.storedVersions` lists one (an earlier storage version whose objects have
/// not all been rewritten since).
pub fn stored_in_other_versions(store: &Store, def: &ResourceDef) -> bool {
    def.custom.is_some()
        && store
            .get(CRD_KEY, "", &format!("{}.{}", def.plural, def.group))
            .is_some_and(|crd_obj| {
                crd_obj["status"]["storedVersions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|v| v.as_str().is_some_and(|v| v != def.version))
            })
}

/// The storage version's resource, also when that version is not served.
fn storage_def(
    registry: &Registry,
    crd_obj: &Value,
    def: &ResourceDef,
    version: &str,
) -> Option<Arc<ResourceDef>> {
    if let Some(d) = registry.get(&def.group, version, &def.plural) {
        return Some(d);
    }
    let mut all_served = crd_obj.clone();
    for v in all_served["spec"]["versions"].as_array_mut()? {
        if v["name"].as_str() == Some(version) {
            v["served"] = Value::Bool(true);
        }
    }
    crd::resources_of(&all_served)
        .into_iter()
        .find(|d| d.version == version)
        .map(Arc::new)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A store holding one CRD, and the registry serving its served versions.
    fn cluster_with(conversion: Value, storage_served: bool) -> (Store, Registry) {
        let crd_obj = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "gadgets.example.dev"},
            "spec": {"group": "example.dev", "scope": "Namespaced",
                "names": {"plural": "gadgets", "kind": "Gadget"},
                "versions": [
                    {"name": "v1beta1", "served": true, "storage": false,
                     "schema": {"openAPIV3Schema": {"type": "object"}}},
                    {"name": "v1", "served": storage_served, "storage": true,
                     "schema": {"openAPIV3Schema": {"type": "object"}}}],
                "conversion": conversion},
        });
        let mut store = Store::new(100);
        let mut registry = Registry::with_builtins();
        store.put(CRD_KEY, "", "gadgets.example.dev", crd_obj.clone());
        crd::register(&mut registry, &crd_obj);
        (store, registry)
    }

    /// The plan of a request to `version` that converts objects (not the storage version).
    fn plan_for((store, registry): &(Store, Registry), version: &str) -> Option<Plan> {
        let def = registry.get("example.dev", version, "gadgets")?;
        lookup_any_version(store, registry, &def).filter(|p| p.storage.version != version)
    }

    fn webhook(versions: Value) -> Value {
        json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": versions,
            "clientConfig": {"url": "https://127.0.0.1:1/convert"}}})
    }

    #[test]
    fn only_non_storage_versions_of_webhook_crds_are_converted() {
        let none = cluster_with(json!({"strategy": "None"}), true);
        assert!(plan_for(&none, "v1beta1").is_none());
        let api = cluster_with(webhook(json!(["v1beta1", "v1"])), true);
        assert!(
            plan_for(&api, "v1").is_none(),
            "the storage version is served as stored"
        );
        let plan = plan_for(&api, "v1beta1").unwrap();
        assert_eq!(plan.served.version, "v1beta1");
        assert_eq!(plan.storage.version, "v1");
        assert_eq!(plan.review_version, Some(ReviewVersion::V1beta1));
        assert_eq!(plan.client_config["url"], "https://127.0.0.1:1/convert");
        // The storage version's own plan, for its field manager.
        let def = api.1.get("example.dev", "v1", "gadgets").unwrap();
        let own = lookup_any_version(&api.0, &api.1, &def).unwrap();
        assert_eq!(
            (own.served.version.as_str(), own.storage.version.as_str()),
            ("v1", "v1")
        );
    }

    #[test]
    fn an_unserved_storage_version_still_stores() {
        let api = cluster_with(webhook(json!(["v1"])), false);
        assert!(plan_for(&api, "v1").is_none(), "not served at all");
        let plan = plan_for(&api, "v1beta1").unwrap();
        assert_eq!(plan.storage.api_version(), "example.dev/v1");
        assert_eq!(plan.storage.storage_key, plan.served.storage_key);
        assert_eq!(plan.review_version, Some(ReviewVersion::V1));
    }
}
