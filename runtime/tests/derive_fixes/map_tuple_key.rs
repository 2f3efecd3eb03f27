//! The fix suggested by `map_tuple_key`: key the map by a string.
use std::collections::BTreeMap;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    pub routes: Option<BTreeMap<String, String>>,
}

/// Runs what the fix promises.
pub fn check() {
    // The CRD is structural as generated (what `manifests` writes).
    kubeforge::manifests::check_crd(&<Thing as kube::CustomResourceExt>::crd()).unwrap();
    let spec = ThingSpec {
        routes: Some(BTreeMap::from([("web:80".into(), "svc".into())])),
    };
    assert!(serde_json::to_value(&spec).is_ok());
}
