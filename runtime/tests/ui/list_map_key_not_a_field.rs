#![allow(unused_imports)]
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kubeforge::schema]
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Port {
    pub name: String,
    pub port: i32,
}

#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
pub struct ThingSpec {
    #[kubeforge(list_map_keys = ["protocol"])]
    pub ports: Vec<Port>,
}

fn main() {}
