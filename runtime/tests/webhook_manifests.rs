//! `manifests` with webhooks: `config/webhook/manifests.yaml` as controller-gen writes it,
//! `spec.conversion` in the hub kind's CRD, determinism, `--check`, and clear errors.

use k8s_openapi::api::core::v1::ConfigMap;
use kube::CustomResource;
use kubeforge::{
    manifests::{self, ManifestsArgs},
    webhook::{Defaulter, Denied, Validator, Warnings, WebhookServer, WebhookServerBuilder},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The fixture kinds of `v1`.
pub mod v1 {
    use super::*;
    /// The hub (storage) version.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "cache.example.com",
        version = "v1",
        kind = "Memcached",
        namespaced
    )]
    pub struct MemcachedSpec {
        /// Number of replicas.
        pub size: Option<i32>,
    }

    /// A cluster-scoped kind with a single version.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    #[kube(group = "cache.example.com", version = "v1", kind = "Backup")]
    pub struct BackupSpec {
        /// What to back up.
        pub target: String,
    }
}

/// The fixture kinds of `v1beta1`.
pub mod v1beta1 {
    use super::*;
    /// The spoke version.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "cache.example.com",
        version = "v1beta1",
        kind = "Memcached",
        namespaced,
        storage = false
    )]
    pub struct MemcachedSpec {
        /// Number of replicas.
        pub replicas: Option<i32>,
    }
}

impl From<v1beta1::Memcached> for v1::Memcached {
    fn from(old: v1beta1::Memcached) -> Self {
        let mut new = v1::Memcached::new(
            "",
            v1::MemcachedSpec {
                size: old.spec.replicas,
            },
        );
        new.metadata = old.metadata;
        new
    }
}

impl From<v1::Memcached> for v1beta1::Memcached {
    fn from(new: v1::Memcached) -> Self {
        let mut old = v1beta1::Memcached::new(
            "",
            v1beta1::MemcachedSpec {
                replicas: new.spec.size,
            },
        );
        old.metadata = new.metadata;
        old
    }
}

kubeforge::conversion!(v1beta1::Memcached => v1::Memcached, v1::Memcached => v1beta1::Memcached);

/// Allows everything (the manifests only need the registration).
struct Allow;

impl<K: Send + Sync + 'static> Defaulter<K> for Allow {
    async fn default(&self, _: &mut K) -> Result<(), Denied> {
        Ok(())
    }
}

impl<K: Send + Sync + 'static> Validator<K> for Allow {
    async fn validate_create(&self, _: &K) -> Result<Warnings, Denied> {
        Ok(Vec::new())
    }
    async fn validate_update(&self, _: &K, _: &K) -> Result<Warnings, Denied> {
        Ok(Vec::new())
    }
}

/// What a project with webhooks on three kinds registers.
fn webhooks() -> WebhookServerBuilder {
    WebhookServer::builder()
        .defaulter::<v1::Memcached>(Allow)
        .validator::<v1::Memcached>(Allow)
        .conversion::<v1::Memcached>()
        .validator_with_delete::<v1::Backup>(Allow)
        .defaulter::<ConfigMap>(Allow)
}

fn file(generated: &manifests::Generated, path: &str) -> String {
    generated
        .files
        .iter()
        .find(|(p, _)| p.to_str() == Some(path))
        .map_or_else(
            || panic!("{path} is not generated"),
            |(_, content)| content.clone(),
        )
}

fn documents(yaml: &str) -> Vec<Value> {
    yaml.split("---\n")
        .filter(|d| !d.trim().is_empty())
        .map(|d| serde_saphyr::from_str(d).unwrap())
        .collect()
}

#[test]
fn webhook_manifests_are_written_as_controller_gen_does() {
    let generated =
        manifests::generate_with_webhooks(&ManifestsArgs::default(), webhooks().declarations())
            .unwrap();
    let yaml = file(&generated, "webhook/manifests.yaml");
    insta::assert_snapshot!("webhook_manifests", yaml);

    let docs = documents(&yaml);
    assert_eq!(docs.len(), 2, "{yaml}");
    assert_eq!(docs[0]["kind"], "MutatingWebhookConfiguration");
    assert_eq!(
        docs[0]["metadata"]["name"],
        "mutating-webhook-configuration"
    );
    assert_eq!(docs[1]["kind"], "ValidatingWebhookConfiguration");
    let memcached = docs[0]["webhooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "mmemcached-v1.cache.example.com")
        .expect("the Memcached defaulter");
    assert_eq!(
        memcached["clientConfig"],
        json!({"service": {"name": "webhook-service", "namespace": "system",
                           "path": "/mutate-cache-example-com-v1-memcached"}})
    );
    assert_eq!(
        memcached["rules"],
        json!([{"apiGroups": ["cache.example.com"], "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"], "resources": ["memcacheds"]}])
    );
    assert_eq!(memcached["failurePolicy"], "Fail");
    assert_eq!(memcached["sideEffects"], "None");
    assert_eq!(memcached["admissionReviewVersions"], json!(["v1"]));
    let backup = docs[1]["webhooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "vbackup-v1.cache.example.com")
        .expect("the Backup validator");
    assert_eq!(
        backup["rules"][0]["operations"],
        json!(["CREATE", "UPDATE", "DELETE"])
    );
}

#[test]
fn the_hub_kinds_crd_converts_through_the_webhook_service() {
    let generated =
        manifests::generate_with_webhooks(&ManifestsArgs::default(), webhooks().declarations())
            .unwrap();
    let crd = &documents(&file(
        &generated,
        "crd/bases/cache.example.com_memcacheds.yaml",
    ))[0];
    assert_eq!(
        crd["spec"]["conversion"],
        json!({"strategy": "Webhook", "webhook": {
            "clientConfig": {"service": {"name": "webhook-service", "namespace": "system", "path": "/convert"}},
            "conversionReviewVersions": ["v1"]
        }})
    );
    let backup = &documents(&file(
        &generated,
        "crd/bases/cache.example.com_backups.yaml",
    ))[0];
    assert!(backup["spec"].get("conversion").is_none(), "{backup}");

    // Without webhooks, the plain `run` output has neither.
    let plain = manifests::generate(&ManifestsArgs::default()).unwrap();
    assert!(plain.files.iter().all(|(p, _)| !p.starts_with("webhook")));
    let crd = &documents(&file(&plain, "crd/bases/cache.example.com_memcacheds.yaml"))[0];
    assert!(crd["spec"].get("conversion").is_none(), "{crd}");
}

#[test]
fn output_does_not_depend_on_registration_order() {
    let reordered = WebhookServer::builder()
        .defaulter::<ConfigMap>(Allow)
        .validator_with_delete::<v1::Backup>(Allow)
        .conversion::<v1::Memcached>()
        .validator::<v1::Memcached>(Allow)
        .defaulter::<v1::Memcached>(Allow)
        .conversion::<v1::Memcached>();
    let args = ManifestsArgs::default();
    assert_eq!(
        manifests::generate_with_webhooks(&args, webhooks().declarations()).unwrap(),
        manifests::generate_with_webhooks(&args, reordered.declarations()).unwrap()
    );
}

#[test]
fn check_covers_the_webhook_manifests() {
    let dir = tempfile::tempdir().unwrap();
    let args = ManifestsArgs {
        output_dir: dir.path().to_path_buf(),
        ..ManifestsArgs::default()
    };
    manifests::run_with_webhooks(args.clone(), &webhooks()).unwrap();
    let path = dir.path().join("webhook/manifests.yaml");
    assert!(path.exists());
    let check = ManifestsArgs {
        check: true,
        ..args.clone()
    };
    manifests::run_with_webhooks(check.clone(), &webhooks()).unwrap();

    // A new webhook makes the file (and nothing else) stale.
    let more = webhooks().validator::<ConfigMap>(Allow);
    let err = manifests::run_with_webhooks(check.clone(), &more).unwrap_err();
    match &err {
        manifests::Error::Drift { files } => assert_eq!(files, std::slice::from_ref(&path)),
        other => panic!("expected drift, got {other}"),
    }
    // A hand edit is drift too.
    std::fs::write(&path, "---\n{}\n").unwrap();
    assert!(matches!(
        manifests::run_with_webhooks(check, &webhooks()),
        Err(manifests::Error::Drift { .. })
    ));
}

#[test]
fn a_conversion_hub_without_a_crd_is_an_error_naming_the_fix() {
    let builder = WebhookServer::builder().conversion::<ConfigMap>();
    let err = manifests::generate_with_webhooks(&ManifestsArgs::default(), builder.declarations())
        .unwrap_err()
        .to_string();
    assert!(err.contains("/v1, Kind=ConfigMap"), "{err}");
    assert!(err.contains("#[kubeforge::api]"), "{err}");
}

#[test]
fn a_single_version_hub_is_warned_about() {
    let builder = WebhookServer::builder().conversion::<v1::Backup>();
    let generated =
        manifests::generate_with_webhooks(&ManifestsArgs::default(), builder.declarations())
            .unwrap();
    assert!(
        generated
            .warnings
            .iter()
            .any(|w| w.contains("backups.cache.example.com") && w.contains("single version")),
        "{:?}",
        generated.warnings
    );
}
