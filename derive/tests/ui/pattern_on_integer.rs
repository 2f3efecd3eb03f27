#![allow(unused_imports)]
use kubeforge_derive as kubeforge;

#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    #[kubeforge(pattern = "^[0-9]+$")]
    pub size: i32,
}

fn main() {}
