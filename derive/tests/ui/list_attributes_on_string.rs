#![allow(unused_imports)]
use kubeforge_derive as kubeforge;

#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    #[kubeforge(min_items = 1)]
    pub name: String,
    #[kubeforge(items(minimum = 1))]
    pub names: Vec<String>,
    #[kubeforge(maximum = 3)]
    pub label: Option<String>,
}

fn main() {}
