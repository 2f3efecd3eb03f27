//! Further manifests other parts of kubeforge contribute (the webhook configurations in
//! `config/webhook/manifests.yaml`), registered through `inventory` so `manifests` writes them
//! without knowing their producers.

use serde_json::Value;

/// A producer of YAML documents for one file under the output directory.
#[derive(Debug)]
pub struct ExtraManifest {
    /// Path relative to the output directory (`webhook/manifests.yaml`).
    pub path: &'static str,
    /// The documents; an empty list writes no file.
    pub documents: fn() -> Vec<Value>,
}

inventory::collect!(ExtraManifest);

/// Every registered extra manifest, documents gathered per path (sorted by path).
pub fn extra_files() -> Vec<(&'static str, Vec<Value>)> {
    let mut by_path: std::collections::BTreeMap<&'static str, Vec<Value>> = Default::default();
    for extra in inventory::iter::<ExtraManifest> {
        by_path
            .entry(extra.path)
            .or_default()
            .extend((extra.documents)());
    }
    by_path
        .into_iter()
        .filter(|(_, docs)| !docs.is_empty())
        .collect()
}
