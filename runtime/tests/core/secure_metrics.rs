//! Secure metrics (kubebuilder's default): HTTPS, bearer token authenticated by TokenReview and
//! authorized by SubjectAccessReview for `get /metrics`, against the embedded API server.

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
