//! The fix suggested by `flatten_scalar`: remove #[serde(flatten)].
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    pub name: String,
    pub count: i32,
}

/// Runs what the fix promises.
pub fn check() {
    // The CRD is structural as generated (what `manifests` writes).
    kubeforge::manifests::check_crd(&<Thing as kube::CustomResourceExt>::crd()).unwrap();
    let thing = Thing::new(
        "t",
        ThingSpec {
            name: "n".into(),
            count: 1,
        },
    );
    assert_eq!(serde_json::to_value(&thing.spec).unwrap()["count"], 1);
}
