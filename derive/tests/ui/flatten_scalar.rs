#![allow(unused_imports)]
use kubeforge_derive as kubeforge;

#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    pub name: String,
    #[serde(flatten)]
    pub count: i32,
}

fn main() {}
