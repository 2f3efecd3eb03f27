#![allow(unused_imports)]
use kubeforge_derive as kubeforge;

#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ui.example.com", version = "v1", kind = "Thing",
       printcolumn(name = "Size", type_ = "int", json_path = ".spec.size"))]
pub struct ThingSpec {
    pub size: i32,
}

fn main() {}
