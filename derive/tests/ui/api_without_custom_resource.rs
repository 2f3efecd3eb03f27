#![allow(unused_imports)]
use kubeforge_derive as kubeforge;

#[kubeforge::api]
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct ThingSpec {
    pub size: i32,
}

fn main() {}
