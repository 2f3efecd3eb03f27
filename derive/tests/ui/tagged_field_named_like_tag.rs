#![allow(unused_imports)]
use kubeforge_derive as kubeforge;

#[kubeforge::schema]
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind")]
pub enum Backend {
    Service { kind: String, port: u16 },
    Bucket { name: String },
}

fn main() {}
