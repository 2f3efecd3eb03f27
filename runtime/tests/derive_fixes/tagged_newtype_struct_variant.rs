//! The first fix suggested by `tagged_newtype_scalar`: a struct variant.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kubeforge::schema]
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum Setting {
    Text { value: String },
    Flag { on: bool },
}

#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    pub setting: Setting,
}

/// Runs what the fix promises.
pub fn check() {
    // The CRD is structural as generated (what `manifests` writes).
    kubeforge::manifests::check_crd(&<Thing as kube::CustomResourceExt>::crd()).unwrap();
    let json = serde_json::to_value(Setting::Text { value: "v".into() }).unwrap();
    assert_eq!(json, serde_json::json!({"type": "Text", "value": "v"}));
}
