//! Manifests contributed by other parts of an operator (webhook configurations) through the
//! `ExtraManifest` registry are written next to the CRDs and the role, deterministically.

use kubeforge::manifests::{self, ExtraManifest, ManifestsArgs};
use serde_json::json;

fn webhooks() -> Vec<serde_json::Value> {
    vec![json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "validating-webhook-configuration"},
        "webhooks": [{"name": "vmemcached.kb.io", "admissionReviewVersions": ["v1"], "sideEffects": "None"}]
    })]
}

fn nothing() -> Vec<serde_json::Value> {
    Vec::new()
}

inventory::submit! { ExtraManifest { path: "webhook/manifests.yaml", documents: webhooks } }
inventory::submit! { ExtraManifest { path: "unused/empty.yaml", documents: nothing } }

#[test]
fn extra_manifests_are_written_and_empty_ones_skipped() {
    let g = manifests::generate(&ManifestsArgs::default()).unwrap();
    let paths: Vec<String> = g
        .files
        .iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert_eq!(paths, ["rbac/role.yaml", "webhook/manifests.yaml"]);
    let webhook = &g.files[1].1;
    assert!(
        webhook.starts_with("---\napiVersion: admissionregistration.k8s.io/v1\n"),
        "{webhook}"
    );
    assert!(webhook.contains("name: vmemcached.kb.io"), "{webhook}");
    // Without any declaration the role is an empty ClusterRole, so kustomize's reference holds.
    let role = &g.files[0].1;
    assert!(
        role.contains("kind: ClusterRole") && role.contains("name: manager-role"),
        "{role}"
    );
}
