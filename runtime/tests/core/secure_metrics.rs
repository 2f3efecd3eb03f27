//! Secure metrics (kubebuilder's default): HTTPS, bearer token authenticated by TokenReview and
//! authorized by SubjectAccessReview for `get /metrics`: against the embedded API server's review
//! policy, and against a real kube-apiserver's ServiceAccount tokens and RBAC.

use crate::common;

use common::options_in;
use kubeforge::{
    Manager,
    manager::{ManagerStatus, MetricsServerOptions},
};
use kubeforge_testenv::{Mode, Policy, TestEnv, UserInfo};
use rustls::{
    DigitallySignedStruct, SignatureScheme,
    client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier},
    pki_types::{CertificateDer, ServerName, UnixTime},
};
use std::{net::SocketAddr, sync::Arc, time::Duration};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Prometheus scrapes the self-signed endpoint with `insecureSkipVerify`; so does this test.
#[derive(Debug)]
struct SkipVerify(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for SkipVerify {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(m, c, d, &self.0.signature_verification_algorithms)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(m, c, d, &self.0.signature_verification_algorithms)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// GET /metrics over TLS with an optional bearer token; returns (status, ALPN, body).
async fn scrape(addr: SocketAddr, token: Option<&str>) -> (u16, Option<Vec<u8>>, String) {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(SkipVerify(provider)))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut tls = connector
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .expect("TLS handshake");
    let alpn = tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    tls.write_all(
        format!("GET /metrics HTTP/1.1\r\nHost: x\r\n{auth}Connection: close\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let mut response = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), tls.read_to_end(&mut response)).await;
    let response = String::from_utf8_lossy(&response).to_string();
    let code = response[9..12].parse().unwrap();
    (code, alpn, response)
}

#[tokio::test]
async fn metrics_need_an_authorized_token_over_https() {
    let policy = Policy::default()
        .with_authenticate(|token| {
            matches!(token, "scraper" | "someone").then(|| UserInfo {
                username: token.to_string(),
                groups: vec!["system:authenticated".into()],
            })
        })
        .with_authorize(|spec| {
            spec["user"] == "scraper"
                && spec["nonResourceAttributes"]["path"] == "/metrics"
                && spec["nonResourceAttributes"]["verb"] == "get"
        });
    // The token and access decisions come from the policy, which only the embedded server
    // takes: this test runs on it whatever `KUBEFORGE_TEST_CLUSTER` says.
    let env = TestEnv::builder()
        .mode(Mode::Embedded)
        .policy(policy)
        .start()
        .await
        .unwrap();
    let mut options = options_in(&env);
    options.metrics = Some(MetricsServerOptions {
        bind_address: "127.0.0.1:0".into(),
        secure: true,
        cert_dir: None,
    });
    let manager = Manager::new(env.client(), options);
    let status = manager.status();
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    let mut addr = None;
    for _ in 0..500 {
        addr = ManagerStatus::metrics_addr(&status);
        if addr.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let addr = addr.expect("metrics server bound");

    let (code, alpn, _) = scrape(addr, None).await;
    assert_eq!(code, 401);
    assert_eq!(
        alpn.as_deref(),
        Some(&b"http/1.1"[..]),
        "HTTP/2 must be off"
    );
    assert_eq!(scrape(addr, Some("stranger")).await.0, 401);
    assert_eq!(scrape(addr, Some("someone")).await.0, 403);
    let (code, _, body) = scrape(addr, Some("scraper")).await;
    assert_eq!(code, 200, "{body}");
    assert!(
        body.contains("leader_election_master_status") || body.contains("# EOF"),
        "{body}"
    );
    shutdown.shutdown();
    running.await.unwrap().unwrap();
}

/// Creates (cluster-scoped or namespaced) objects from JSON through a dynamic API.
async fn create(client: &kube::Client, namespace: Option<&str>, object: serde_json::Value) {
    use kube::api::{Api, ApiResource, DynamicObject, PostParams};
    let object: DynamicObject = serde_json::from_value(object).unwrap();
    let types = object.types.clone().unwrap();
    let (group, version) = types
        .api_version
        .split_once('/')
        .unwrap_or(("", &types.api_version));
    let gvk = kube::core::GroupVersionKind::gvk(group, version, &types.kind);
    let resource = ApiResource::from_gvk(&gvk);
    let api: Api<DynamicObject> = match namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &resource),
        None => Api::all_with(client.clone(), &resource),
    };
    api.create(&PostParams::default(), &object).await.unwrap();
}

/// A token of the ServiceAccount `name`, from the API server's TokenRequest.
async fn token(client: &kube::Client, namespace: &str, name: &str) -> String {
    use k8s_openapi::api::{authentication::v1::TokenRequest, core::v1::ServiceAccount};
    let accounts: kube::Api<ServiceAccount> = kube::Api::namespaced(client.clone(), namespace);
    accounts
        .create_token_request(name, &Default::default(), &TokenRequest::default())
        .await
        .unwrap()
        .status
        .unwrap()
        .token
}

/// The same endpoint against a real kube-apiserver (binaries or existing-cluster mode): real
/// ServiceAccount tokens, authenticated by the server's TokenReview, and RBAC deciding the
/// SubjectAccessReview for `get /metrics`.
#[tokio::test]
async fn metrics_need_a_token_rbac_allows_on_a_real_server() {
    let env = TestEnv::start().await.unwrap();
    if !env.is_real_cluster() {
        println!(
            "skipped: needs a real kube-apiserver's tokens and RBAC (KUBEFORGE_TEST_CLUSTER=binaries or existing); \
             metrics_need_an_authorized_token_over_https covers the embedded server"
        );
        return;
    }
    let client = env.client();
    let ns = env.namespace().to_string();
    for account in ["scraper", "someone"] {
        create(
            &client,
            Some(&ns),
            serde_json::json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": account}}),
        )
        .await;
    }
    // Cluster-scoped, so named after the environment's namespace (unique on a shared cluster).
    let role = format!("{ns}-metrics-reader");
    create(
        &client,
        None,
        serde_json::json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": role},
            "rules": [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}],
        }),
    )
    .await;
    create(
        &client,
        None,
        serde_json::json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": role},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"kind": "ServiceAccount", "name": "scraper", "namespace": ns}],
        }),
    )
    .await;
    let scraper = token(&client, &ns, "scraper").await;
    let someone = token(&client, &ns, "someone").await;

    let mut options = options_in(&env);
    options.metrics = Some(MetricsServerOptions {
        bind_address: "127.0.0.1:0".into(),
        secure: true,
        cert_dir: None,
    });
    let manager = Manager::new(env.client(), options);
    let status = manager.status();
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    let mut addr = None;
    for _ in 0..500 {
        addr = ManagerStatus::metrics_addr(&status);
        if addr.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let addr = addr.expect("metrics server bound");

    assert_eq!(scrape(addr, None).await.0, 401);
    assert_eq!(scrape(addr, Some("not-a-token")).await.0, 401);
    assert_eq!(scrape(addr, Some(&someone)).await.0, 403);
    // The server's RBAC authorizer learns of the new binding through its own watch: wait for it.
    let mut last = (0, String::new());
    for _ in 0..100 {
        let (code, _, body) = scrape(addr, Some(&scraper)).await;
        last = (code, body);
        if code == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(last.0, 200, "{}", last.1);
    assert!(
        last.1.contains("leader_election_master_status") || last.1.contains("# EOF"),
        "{}",
        last.1
    );
    shutdown.shutdown();
    running.await.unwrap().unwrap();
    for kind in ["ClusterRoleBinding", "ClusterRole"] {
        use kube::api::{Api, ApiResource, DeleteParams, DynamicObject};
        let gvk = kube::core::GroupVersionKind::gvk("rbac.authorization.k8s.io", "v1", kind);
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &ApiResource::from_gvk(&gvk));
        api.delete(&role, &DeleteParams::default()).await.unwrap();
    }
}
