//! The fix suggested by `tagged_field_named_like_tag`: rename the field.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kubeforge::schema]
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind")]
pub enum Backend {
    Service {
        #[serde(rename = "kindName")]
        kind: String,
        port: u16,
    },
    Bucket {
        name: String,
    },
}

#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    pub backend: Backend,
}

/// Runs what the fix promises.
pub fn check() {
    // The CRD is structural as generated (what `manifests` writes).
    kubeforge::manifests::check_crd(&<Thing as kube::CustomResourceExt>::crd()).unwrap();
    let json = serde_json::to_value(Backend::Service {
        kind: "ClusterIP".into(),
        port: 80,
    })
    .unwrap();
    assert_eq!(
        json,
        serde_json::json!({"kind": "Service", "kindName": "ClusterIP", "port": 80})
    );
}
