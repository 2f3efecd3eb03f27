//! What a request to a custom kind needs for conversion: whether its CRD uses the `Webhook`
//! strategy, the storage version's resource, and how to reach the webhook.

use std::sync::Arc;

use serde_json::Value;

use super::review::ReviewVersion;
use crate::registry::{ResourceDef, crd};
use crate::rest::Cluster;

/// Where CRDs themselves are stored.
const CRD_KEY: &str = "apiextensions.k8s.io/customresourcedefinitions";

/// A request to a non-storage version of a kind converted by a webhook.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The version the client addressed.
    pub served: Arc<ResourceDef>,
    /// The CRD's storage version (what the store keeps).
    pub storage: Arc<ResourceDef>,
    /// The `ConversionReview` version to send; None when the CRD lists none this server speaks.
    pub review_version: Option<ReviewVersion>,
    /// `spec.conversion.webhook.clientConfig` (or the v1beta1-era `webhookClientConfig`).
    pub client_config: Value,
}

/// The conversion plan for a request to `def`, or None when objects are served as stored:
/// built-in kinds, `None` strategy, and requests to the storage version.
pub fn lookup(cluster: &Cluster, def: &Arc<ResourceDef>) -> Option<Plan> {
    def.custom.as_ref()?;
    let crd_obj = cluster
        .store
        .get(CRD_KEY, "", &format!("{}.{}", def.plural, def.group))?;
    let conversion = &crd_obj["spec"]["conversion"];
    if conversion["strategy"].as_str() != Some("Webhook") {
        return None;
    }
    let storage_version = crd::storage_version(&crd_obj)?;
    if storage_version == def.version {
        return None;
    }
    let storage = storage_def(cluster, &crd_obj, def, &storage_version)?;
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

/// The storage version's resource, also when that version is not served.
fn storage_def(
    cluster: &Cluster,
    crd_obj: &Value,
    def: &ResourceDef,
    version: &str,
) -> Option<Arc<ResourceDef>> {
    if let Some(d) = cluster.registry.get(&def.group, version, &def.plural) {
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
    use crate::rest::{Api, ApiOptions, Query, write};

    fn cluster_with(conversion: Value, storage_served: bool) -> Arc<Api> {
        let api = Api::new(ApiOptions::default());
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
        {
            let mut cluster = api.lock();
            let def = cluster
                .registry
                .get("apiextensions.k8s.io", "v1", "customresourcedefinitions")
                .unwrap();
            write::create_object(&mut cluster, &def, None, crd_obj, &Query::default()).unwrap();
        }
        api
    }

    fn plan_for(api: &Api, version: &str) -> Option<Plan> {
        let cluster = api.lock();
        let def = cluster.registry.get("example.dev", version, "gadgets")?;
        lookup(&cluster, &def)
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
