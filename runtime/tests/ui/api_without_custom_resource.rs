#![allow(unused_imports)]
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kubeforge::api]
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct ThingSpec {
    pub size: i32,
}

fn main() {}
