#![allow(unused_imports)]
use kubeforge_derive as kubeforge;

#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    #[kubeforge(default = "three")]
    pub replicas: Option<i32>,
    #[kubeforge(list_type = "map")]
    pub ports: Vec<String>,
}

fn main() {}
