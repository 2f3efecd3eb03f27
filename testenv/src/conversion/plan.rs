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
