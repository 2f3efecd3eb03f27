//! Webhooks end to end through the embedded API server: the local installation (configurations
//! and CRD conversion pointing at `https://127.0.0.1:<port>` with the generated CA), the manager
//! with `--webhook-local`, and the API server calling the webhooks: defaults, denials with the
//! validator's message, warnings, and objects written in one version read back in the other.

use std::{sync::Arc, time::Duration};

use k8s_openapi::{
    api::admissionregistration::v1::{
        MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
    },
    apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
};
use kube::{
    Api, Client, CustomResource,
    api::{ObjectMeta, PostParams},
};
use kubeforge::{
    Manager, ManagerArgs, ManagerOptions,
    webhook::{
        self, Defaulter, Denied, LocalWebhooks, Validator, Warnings, WebhookServer,
        WebhookServerBuilder,
    },
};
use kubeforge_testenv::TestEnv;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

const CRD: &str = "memcacheds.e2e.kubeforge.dev";

/// The fixture kinds of `v1`.
pub mod v1 {
    use super::*;
    /// The hub (storage) version.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "e2e.kubeforge.dev",
        version = "v1",
        kind = "Memcached",
        namespaced
    )]
    pub struct MemcachedSpec {
        /// Number of replicas; defaulted to 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub size: Option<i32>,
        /// The container image.
        pub image: String,
    }
}

/// The fixture kinds of `v1beta1`.
pub mod v1beta1 {
    use super::*;
    /// The spoke version: `replicas` instead of `size`.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "e2e.kubeforge.dev",
        version = "v1beta1",
        kind = "Memcached",
        namespaced,
        storage = false
    )]
    pub struct MemcachedSpec {
        /// Number of replicas.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub replicas: Option<i32>,
        /// The container image.
        pub image: String,
    }
}

impl From<v1beta1::Memcached> for v1::Memcached {
    fn from(old: v1beta1::Memcached) -> Self {
        let mut new = v1::Memcached::new(
            "",
            v1::MemcachedSpec {
                size: old.spec.replicas,
                image: old.spec.image,
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
                image: new.spec.image,
            },
        );
        old.metadata = new.metadata;
        old
    }
}

kubeforge::conversion!(v1beta1::Memcached => v1::Memcached, v1::Memcached => v1beta1::Memcached);

struct MemcachedDefaulter;

impl Defaulter<v1::Memcached> for MemcachedDefaulter {
    async fn default(&self, m: &mut v1::Memcached) -> Result<(), Denied> {
        m.spec.size.get_or_insert(1);
        Ok(())
    }
}

struct MemcachedValidator;

impl MemcachedValidator {
    fn check(m: &v1::Memcached) -> Result<Warnings, Denied> {
        let size = m.spec.size.unwrap_or(1);
        if size > 10 {
            return Err(Denied::new(format!(
                "spec.size must be at most 10, got {size}"
            )));
        }
        let mut warnings = Vec::new();
        if m.spec.image.ends_with(":latest") {
            warnings.push(format!(
                "image {} uses the latest tag; pin a version",
                m.spec.image
            ));
        }
        Ok(warnings)
    }
}

impl Validator<v1::Memcached> for MemcachedValidator {
    async fn validate_create(&self, m: &v1::Memcached) -> Result<Warnings, Denied> {
        Self::check(m)
    }
    async fn validate_update(
        &self,
        _old: &v1::Memcached,
        new: &v1::Memcached,
    ) -> Result<Warnings, Denied> {
        Self::check(new)
    }
}

fn register(builder: WebhookServerBuilder) -> WebhookServerBuilder {
    builder
        .defaulter::<v1::Memcached>(MemcachedDefaulter)
        .validator::<v1::Memcached>(MemcachedValidator)
        .conversion::<v1::Memcached>()
}

async fn env() -> TestEnv {
    TestEnv::builder()
        .crd(kubeforge::manifests::crd("e2e.kubeforge.dev", "Memcached").unwrap())
        .start()
        .await
        .unwrap()
}

fn memcached(name: &str, size: Option<i32>, image: &str) -> v1::Memcached {
    v1::Memcached {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        spec: v1::MemcachedSpec {
            size,
            image: image.into(),
        },
    }
}

async fn crd_conversion(client: &Client) -> Value {
    let crd = Api::<CustomResourceDefinition>::all(client.clone())
        .get(CRD)
        .await
        .unwrap();
    serde_json::to_value(crd.spec.conversion).unwrap()
}

#[tokio::test]
async fn local_start_installs_configurations_pointing_at_the_local_server() {
    let env = env().await;
    let client = env.client();
    let webhooks = LocalWebhooks::start(client.clone(), register(WebhookServer::builder()))
        .await
        .unwrap();
    let base = format!("https://127.0.0.1:{}", webhooks.addr().port());

    let mutating = Api::<MutatingWebhookConfiguration>::all(client.clone())
        .get(webhook::MUTATING_CONFIGURATION)
        .await
        .unwrap();
    let hook = &mutating.webhooks.unwrap()[0];
    assert_eq!(hook.name, "mmemcached-v1.e2e.kubeforge.dev");
    assert_eq!(
        hook.client_config.url.as_deref(),
        Some(format!("{base}/mutate-e2e-kubeforge-dev-v1-memcached").as_str())
    );
    assert!(hook.client_config.service.is_none());
    assert_eq!(
        hook.client_config.ca_bundle.as_ref().unwrap().0,
        webhooks.ca_pem().as_bytes()
    );
    let validating = Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .get(webhook::VALIDATING_CONFIGURATION)
        .await
        .unwrap();
    assert_eq!(
        validating.webhooks.unwrap()[0].client_config.url.as_deref(),
        Some(format!("{base}/validate-e2e-kubeforge-dev-v1-memcached").as_str())
    );
    let conversion = crd_conversion(&client).await;
    assert_eq!(conversion["strategy"], "Webhook");
    assert_eq!(
        conversion["webhook"]["clientConfig"]["url"],
        format!("{base}/convert")
    );
    assert!(
        conversion["webhook"]["clientConfig"]
            .get("service")
            .is_none()
    );

    // The same declarations as the generated manifests: only the client config differs.
    let generated = register(WebhookServer::builder())
        .declarations()
        .configurations(&webhook::Endpoint::kubebuilder_service());
    let mut expected = generated.mutating.unwrap().webhooks.unwrap();
    let mut installed = Api::<MutatingWebhookConfiguration>::all(client.clone())
        .get(webhook::MUTATING_CONFIGURATION)
        .await
        .unwrap()
        .webhooks
        .unwrap();
    for hook in expected.iter_mut().chain(installed.iter_mut()) {
        hook.client_config = Default::default();
        // The API server defaults the rule's scope to "*".
        for rule in hook.rules.iter_mut().flatten() {
            rule.scope = None;
        }
    }
    assert_eq!(
        serde_json::to_value(&installed).unwrap()[0]["rules"],
        serde_json::to_value(&expected).unwrap()[0]["rules"]
    );
    assert_eq!(installed[0].name, expected[0].name);

    webhooks.stop().await.unwrap();
    let gone = Api::<MutatingWebhookConfiguration>::all(client.clone())
        .get_opt(webhook::MUTATING_CONFIGURATION)
        .await
        .unwrap();
    assert!(gone.is_none(), "the mutating configuration is removed");
    let gone = Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .get_opt(webhook::VALIDATING_CONFIGURATION)
        .await
        .unwrap();
    assert!(gone.is_none(), "the validating configuration is removed");
    assert_eq!(crd_conversion(&client).await["strategy"], "None");
}

#[tokio::test]
async fn a_converted_kind_without_its_crd_is_a_clear_error() {
    let env = TestEnv::start().await.unwrap();
    let err = LocalWebhooks::start(env.client(), register(WebhookServer::builder()))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains(CRD), "{err}");
    assert!(err.contains("install the CRDs first"), "{err}");
    let left = Api::<MutatingWebhookConfiguration>::all(env.client())
        .get_opt(webhook::MUTATING_CONFIGURATION)
        .await
        .unwrap();
    assert!(left.is_none(), "nothing is installed when a CRD is missing");
}

async fn handshake_ok(addr: std::net::SocketAddr, ca_pem: &[u8]) -> bool {
    use rustls_pki_types::{CertificateDer, ServerName, pem::PemObject};
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_pem) {
        roots.add(cert.unwrap()).unwrap();
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let Ok(tcp) = tokio::net::TcpStream::connect(addr).await else {
        return false;
    };
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("127.0.0.1").unwrap(), tcp)
        .await
        .is_ok()
}

#[tokio::test]
async fn the_manager_with_webhook_local_installs_serves_and_cleans_up() {
    let env = env().await;
    let client = env.client();
    let dir = tempfile::tempdir().unwrap();
    let args = ManagerArgs {
        webhook_local: true,
        webhook_port: 0,
        webhook_cert_dir: dir.path().join("certs"),
        ..ManagerArgs::default()
    };
    let mut manager = Manager::new(
        client.clone(),
        ManagerOptions {
            handle_signals: false,
            ..ManagerOptions::default()
        },
    );
    webhook::add_to_manager(&mut manager, register(WebhookServer::builder()), &args)
        .await
        .unwrap();

    // Installed before the manager runs, pointing at the bound port with the generated CA.
    let ca = std::fs::read(dir.path().join("certs").join(webhook::CA_FILE)).unwrap();
    let hook = &Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .get(webhook::VALIDATING_CONFIGURATION)
        .await
        .unwrap()
        .webhooks
        .unwrap()[0];
    assert_eq!(hook.client_config.ca_bundle.as_ref().unwrap().0, ca);
    let url = hook.client_config.url.clone().unwrap();
    let port: u16 = url
        .strip_prefix("https://127.0.0.1:")
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("unexpected url {url}"));
    assert_ne!(port, 0);
    assert!(url.ends_with("/validate-e2e-kubeforge-dev-v1-memcached"));

    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !handshake_ok(addr, &ca).await {
        assert!(tokio::time::Instant::now() < deadline, "never served");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    shutdown.shutdown();
    tokio::time::timeout(Duration::from_secs(15), running)
        .await
        .expect("the manager stops")
        .unwrap()
        .unwrap();
    let left = Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .get_opt(webhook::VALIDATING_CONFIGURATION)
        .await
        .unwrap();
    assert!(left.is_none(), "removed when the manager stops");
    assert_eq!(crd_conversion(&client).await["strategy"], "None");
}

#[tokio::test]
async fn a_builder_without_webhooks_adds_nothing() {
    let env = TestEnv::start().await.unwrap();
    let mut manager = Manager::new(env.client(), ManagerOptions::default());
    let args = ManagerArgs {
        webhook_local: true,
        webhook_cert_dir: "/nonexistent/never-written".into(),
        ..ManagerArgs::default()
    };
    webhook::add_to_manager(&mut manager, WebhookServer::builder(), &args)
        .await
        .unwrap();
    assert!(!std::path::Path::new("/nonexistent/never-written").exists());
    let left = Api::<MutatingWebhookConfiguration>::all(env.client())
        .get_opt(webhook::MUTATING_CONFIGURATION)
        .await
        .unwrap();
    assert!(left.is_none());
}

// ---- The API server calling the webhooks ----

async fn started() -> (TestEnv, LocalWebhooks) {
    let env = env().await;
    let webhooks = LocalWebhooks::start(env.client(), register(WebhookServer::builder()))
        .await
        .unwrap();
    (env, webhooks)
}

#[tokio::test]
async fn a_created_object_without_a_field_gets_the_default() {
    let (env, _webhooks) = started().await;
    let api: Api<v1::Memcached> = Api::namespaced(env.client(), env.namespace());
    let created = api
        .create(
            &PostParams::default(),
            &memcached("defaulted", None, "memcached:1.6"),
        )
        .await
        .unwrap();
    assert_eq!(created.spec.size, Some(1));
    assert_eq!(api.get("defaulted").await.unwrap().spec.size, Some(1));
    // A set field is left alone.
    let kept = api
        .create(
            &PostParams::default(),
            &memcached("kept", Some(3), "memcached:1.6"),
        )
        .await
        .unwrap();
    assert_eq!(kept.spec.size, Some(3));
}

#[tokio::test]
async fn an_invalid_object_is_rejected_with_the_validators_message() {
    let (env, _webhooks) = started().await;
    let api: Api<v1::Memcached> = Api::namespaced(env.client(), env.namespace());
    let err = api
        .create(
            &PostParams::default(),
            &memcached("too-big", Some(11), "memcached:1.6"),
        )
        .await
        .unwrap_err();
    let kube::Error::Api(status) = err else {
        panic!("expected an API error, got {err}")
    };
    assert_eq!(status.code, 403, "{status:?}");
    assert!(
        status
            .message
            .contains("spec.size must be at most 10, got 11"),
        "{status:?}"
    );
    assert!(
        status.message.contains("vmemcached-v1.e2e.kubeforge.dev"),
        "the real API server names the denying webhook: {status:?}"
    );
    assert!(api.get_opt("too-big").await.unwrap().is_none());

    // Updates are validated too.
    api.create(
        &PostParams::default(),
        &memcached("grows", Some(2), "memcached:1.6"),
    )
    .await
    .unwrap();
    let mut grown = api.get("grows").await.unwrap();
    grown.spec.size = Some(50);
    let err = api
        .replace("grows", &PostParams::default(), &grown)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("got 50"), "{err}");
}

#[tokio::test]
async fn warnings_reach_the_client() {
    let (env, _webhooks) = started().await;
    let ns = env.namespace();
    // kube::Client does not surface response headers, so send the request through its
    // underlying `send` and read the `Warning` header as kubectl does.
    let body = serde_json::to_vec(&memcached("latest", Some(1), "memcached:latest")).unwrap();
    let request = http::Request::post(format!(
        "/apis/e2e.kubeforge.dev/v1/namespaces/{ns}/memcacheds"
    ))
    .header("content-type", "application/json")
    .body(body)
    .unwrap();
    let response = env.client().send(request.map(Into::into)).await.unwrap();
    assert_eq!(response.status(), 201);
    let warnings: Vec<String> = response
        .headers()
        .get_all("warning")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    assert!(
        warnings.iter().any(|w| w.starts_with("299 ")
            && w.contains("image memcached:latest uses the latest tag; pin a version")),
        "{warnings:?}"
    );
}

#[tokio::test]
async fn an_object_written_as_v1beta1_reads_back_as_v1_and_the_other_way_round() {
    let (env, _webhooks) = started().await;
    let old: Api<v1beta1::Memcached> = Api::namespaced(env.client(), env.namespace());
    let new: Api<v1::Memcached> = Api::namespaced(env.client(), env.namespace());

    let mut spoke = v1beta1::Memcached::new(
        "from-beta",
        v1beta1::MemcachedSpec {
            replicas: Some(4),
            image: "memcached:1.6".into(),
        },
    );
    spoke.metadata.labels = Some([("app".to_string(), "cache".to_string())].into());
    let created = old.create(&PostParams::default(), &spoke).await.unwrap();
    assert_eq!(created.spec.replicas, Some(4));
    let hub = new.get("from-beta").await.unwrap();
    assert_eq!(hub.spec.size, Some(4));
    assert_eq!(hub.spec.image, "memcached:1.6");
    assert_eq!(hub.metadata.labels, spoke.metadata.labels);

    new.create(
        &PostParams::default(),
        &memcached("from-v1", Some(7), "memcached:1.6"),
    )
    .await
    .unwrap();
    let spoke = old.get("from-v1").await.unwrap();
    assert_eq!(spoke.spec.replicas, Some(7));
    assert_eq!(spoke.spec.image, "memcached:1.6");
    let listed = old.list(&Default::default()).await.unwrap();
    let mut sizes: Vec<_> = listed.items.iter().map(|m| m.spec.replicas).collect();
    sizes.sort();
    assert_eq!(sizes, [Some(4), Some(7)]);
}

/// Refuses to delete objects labelled `protected`.
struct DeleteGuard;

impl Validator<v1::Memcached> for DeleteGuard {
    async fn validate_create(&self, _: &v1::Memcached) -> Result<Warnings, Denied> {
        Ok(Vec::new())
    }
    async fn validate_update(
        &self,
        _: &v1::Memcached,
        _: &v1::Memcached,
    ) -> Result<Warnings, Denied> {
        Ok(Vec::new())
    }
    async fn validate_delete(&self, m: &v1::Memcached) -> Result<Warnings, Denied> {
        let protected = m
            .metadata
            .labels
            .as_ref()
            .is_some_and(|l| l.contains_key("protected"));
        if protected {
            return Err(Denied::new("protected objects cannot be deleted"));
        }
        Ok(Vec::new())
    }
}

#[tokio::test]
async fn validator_with_delete_is_asked_about_deletions_and_validator_is_not() {
    use kube::api::DeleteParams;
    let env = env().await;
    let mut protected = memcached("protected", Some(1), "memcached:1.6");
    protected.metadata.labels = Some([("protected".to_string(), "yes".to_string())].into());
    let api: Api<v1::Memcached> = Api::namespaced(env.client(), env.namespace());

    // Registered without DELETE: the validator's validate_delete is never called.
    let webhooks = LocalWebhooks::start(
        env.client(),
        WebhookServer::builder().validator::<v1::Memcached>(DeleteGuard),
    )
    .await
    .unwrap();
    api.create(&PostParams::default(), &protected)
        .await
        .unwrap();
    api.delete("protected", &DeleteParams::default())
        .await
        .unwrap();
    webhooks.stop().await.unwrap();

    let webhooks = LocalWebhooks::start(
        env.client(),
        WebhookServer::builder().validator_with_delete::<v1::Memcached>(DeleteGuard),
    )
    .await
    .unwrap();
    api.create(&PostParams::default(), &protected)
        .await
        .unwrap();
    let err = api
        .delete("protected", &DeleteParams::default())
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("protected objects cannot be deleted"),
        "{err}"
    );
    assert!(api.get_opt("protected").await.unwrap().is_some());
    api.create(
        &PostParams::default(),
        &memcached("free", Some(1), "memcached:1.6"),
    )
    .await
    .unwrap();
    api.delete("free", &DeleteParams::default()).await.unwrap();
    webhooks.stop().await.unwrap();
}

#[tokio::test]
async fn crds_from_the_generated_manifests_are_pointed_at_the_local_server() {
    // What a generated project's test does: install config/crd/bases (whose conversion names
    // the in-cluster Service), then start the webhooks locally.
    let dir = tempfile::tempdir().unwrap();
    kubeforge::manifests::run_with_webhooks(
        kubeforge::manifests::ManifestsArgs {
            output_dir: dir.path().to_path_buf(),
            ..Default::default()
        },
        &register(WebhookServer::builder()),
    )
    .unwrap();
    let env = TestEnv::builder()
        .crds_from_dir(dir.path().join("crd/bases"))
        .start()
        .await
        .unwrap();
    let before = crd_conversion(&env.client()).await;
    assert_eq!(
        before["webhook"]["clientConfig"]["service"]["name"],
        "webhook-service"
    );
    let _webhooks = LocalWebhooks::start(env.client(), register(WebhookServer::builder()))
        .await
        .unwrap();
    let after = crd_conversion(&env.client()).await;
    assert!(
        after["webhook"]["clientConfig"].get("service").is_none(),
        "{after}"
    );
    let old: Api<v1beta1::Memcached> = Api::namespaced(env.client(), env.namespace());
    old.create(
        &PostParams::default(),
        &v1beta1::Memcached::new(
            "beta",
            v1beta1::MemcachedSpec {
                replicas: None,
                image: "memcached:1.6".into(),
            },
        ),
    )
    .await
    .unwrap();
    // Converted to v1, defaulted there, stored, and read back in both versions.
    let new: Api<v1::Memcached> = Api::namespaced(env.client(), env.namespace());
    assert_eq!(new.get("beta").await.unwrap().spec.size, Some(1));
    assert_eq!(old.get("beta").await.unwrap().spec.replicas, Some(1));
}
