#![allow(unused_imports)]
use kubeforge_derive as kubeforge;

#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
#[kubeforge(exactly_one_of(config_map, secret))]
pub struct ThingSpec {
    pub config_map: Option<String>,
    pub secret_name: Option<String>,
}

fn main() {}
