#![allow(unused_imports)]
use kubeforge_derive as kubeforge;

#[kubeforge::schema]
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum Setting {
    Text(String),
    Flag { on: bool },
}

fn main() {}
