//! The webhook server as a manager runnable: `manager.add(server)` serves with the manager and
//! stops with it; a server that cannot start fails the manager with a named error.

use std::{sync::Arc, time::Duration};

use kubeforge::{
    Manager, ManagerOptions,
    webhook::{self, WebhookServer},
};
use rustls_pki_types::{CertificateDer, ServerName, pem::PemObject};
use tokio::net::TcpStream;

fn options() -> ManagerOptions {
    ManagerOptions {
        handle_signals: false,
        ..Default::default()
    }
}

async fn handshake_ok(addr: std::net::SocketAddr, ca_pem: &str) -> bool {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        roots.add(cert.unwrap()).unwrap();
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let Ok(tcp) = TcpStream::connect(addr).await else {
        return false;
    };
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .is_ok()
}

#[tokio::test]
async fn the_manager_runs_and_stops_the_webhook_server() {
    let env = kubeforge_testenv::TestEnv::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ca = webhook::generate_self_signed(dir.path(), &["localhost"]).unwrap();
    // A free loopback port (the runnable binds it itself).
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let server = WebhookServer::builder()
        .bind_address(addr)
        .cert_dir(dir.path())
        .conversion::<k8s_openapi::api::core::v1::ConfigMap>()
        .build()
        .unwrap();
    let mut manager = Manager::new(env.client(), options());
    manager.add(server);
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !handshake_ok(addr, &ca.ca_pem).await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the webhook server never came up"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    shutdown.shutdown();
    tokio::time::timeout(Duration::from_secs(10), running)
        .await
        .expect("the manager stops")
        .unwrap()
        .unwrap();
    assert!(
        !handshake_ok(addr, &ca.ca_pem).await,
        "the webhook server stopped with the manager"
    );
}

#[tokio::test]
async fn a_webhook_server_without_certificates_fails_the_manager() {
    let env = kubeforge_testenv::TestEnv::start().await.unwrap();
    let empty = tempfile::tempdir().unwrap();
    let server = WebhookServer::builder()
        .bind_address("127.0.0.1:0".parse().unwrap())
        .cert_dir(empty.path())
        .build()
        .unwrap();
    let mut manager = Manager::new(env.client(), options());
    manager.add(server);
    let result = tokio::time::timeout(Duration::from_secs(10), manager.run())
        .await
        .expect("does not hang");
    match result {
        Err(kubeforge::Error::Runnable { name, source }) => {
            assert_eq!(name, "webhook-server");
            // The cause is kept as the error's source, typed.
            match source.downcast_ref::<kubeforge::webhook::WebhookError>() {
                Some(kubeforge::webhook::WebhookError::Certificate { path, .. }) => {
                    assert!(path.ends_with("tls.crt"), "{path:?}");
                }
                other => panic!("expected the certificate error as the source, got {other:?}"),
            }
        }
        other => panic!("expected the runnable to fail, got {other:?}"),
    }
}
