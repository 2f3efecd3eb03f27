#![allow(unused_imports)]
use kubeforge_derive as kubeforge;
use std::collections::BTreeMap;

#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    pub routes: Option<BTreeMap<(String, u16), String>>,
}

fn main() {}
