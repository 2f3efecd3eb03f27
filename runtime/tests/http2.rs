//! `--enable-http2`: off by default; without the crate's `http2` feature asking for it fails
//! with the fix; with the feature the metrics and webhook servers answer over HTTP/2.
//!
//! The HTTP/2 half runs with `cargo test -p kubeforge --features http2 --test http2`
//! (`.ci/run` does).

mod common;

use common::options;
use kubeforge::{Manager, manager::MetricsServerOptions};
use std::time::Duration;

/// A manager with a plain-text metrics server on a random port and `enable_http2` as given.
fn manager_with_metrics(client: kube::Client, enable_http2: bool) -> Manager {
    let mut options = options();
    options.enable_http2 = enable_http2;
    options.metrics = Some(MetricsServerOptions {
        bind_address: "127.0.0.1:0".into(),
        secure: false,
        cert_dir: None,
    });
    Manager::new(client, options)
}

#[cfg(not(feature = "http2"))]
#[tokio::test]
async fn asking_for_http2_without_the_feature_fails_with_the_fix() {
    let env = kubeforge_testenv::TestEnv::start().await.unwrap();
    let manager = manager_with_metrics(env.client(), true);
    let result = tokio::time::timeout(Duration::from_secs(10), manager.run())
        .await
        .expect("run fails at once");
    let message = result.unwrap_err().to_string();
    assert!(
        message.contains("--enable-http2") && message.contains("features = [\"http2\"]"),
        "{message}"
    );
}

#[cfg(feature = "http2")]
mod with_http2 {
    use super::*;
    use bytes::Bytes;
    use http_body_util::{BodyExt, Empty};
    use hyper_util::rt::{TokioExecutor, TokioIo};
    use kubeforge::manager::ManagerStatus;
    use kubeforge::webhook::{self, WebhookOptions, WebhookServer};
    use rustls_pki_types::{CertificateDer, ServerName, pem::PemObject};
    use std::net::SocketAddr;
    use std::sync::Arc;
    use tokio::net::TcpStream;
    use tokio_rustls::TlsConnector;

    async fn bound_metrics_addr(status: &ManagerStatus) -> SocketAddr {
        for _ in 0..500 {
            if let Some(addr) = ManagerStatus::metrics_addr(status) {
                return addr;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("metrics server did not bind within 5 s");
    }

    /// One HTTP/2 GET over `io`; returns the response's version and status.
    async fn get_over_h2<I>(io: I, uri: &str) -> (http::Version, u16, String)
    where
        I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let (mut send, conn) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(io))
                .await
                .expect("HTTP/2 handshake");
        tokio::spawn(conn);
        let request = http::Request::get(uri).body(Empty::<Bytes>::new()).unwrap();
        let response = send.send_request(request).await.expect("HTTP/2 response");
        let version = response.version();
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (version, status, String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test]
    async fn metrics_are_served_over_http2_when_enabled() {
        let env = kubeforge_testenv::TestEnv::start().await.unwrap();
        let manager = manager_with_metrics(env.client(), true);
        let status = manager.status();
        let shutdown = manager.shutdown_handle();
        let running = tokio::spawn(manager.run());
        let addr = bound_metrics_addr(&status).await;

        let tcp = TcpStream::connect(addr).await.unwrap();
        let (version, code, body) = get_over_h2(tcp, &format!("http://{addr}/metrics")).await;
        assert_eq!(version, http::Version::HTTP_2);
        assert_eq!(code, 200, "{body}");
        assert!(body.contains("# EOF"), "{body}");

        shutdown.shutdown();
        running.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn webhook_server_negotiates_h2_when_enabled() {
        let dir = tempfile::tempdir().unwrap();
        let ca = webhook::generate_self_signed(dir.path(), &["localhost"]).unwrap();
        let server = WebhookServer::builder()
            .options(WebhookOptions {
                bind_address: "127.0.0.1:0".parse().unwrap(),
                cert_dir: dir.path().to_path_buf(),
                enable_http2: true,
                ..WebhookOptions::default()
            })
            .conversion::<k8s_openapi::api::core::v1::ConfigMap>()
            .build()
            .unwrap();
        let bound = server.bind().await.unwrap();
        let addr = bound.local_addr();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(bound.serve(async {
            let _ = stopped.await;
        }));

        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(ca.ca_pem.as_bytes()) {
            roots.add(cert.unwrap()).unwrap();
        }
        let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
        config.alpn_protocols = vec![b"h2".to_vec()];
        let tcp = TcpStream::connect(addr).await.unwrap();
        let tls = TlsConnector::from(Arc::new(config))
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
            .expect("a client offering only h2 is accepted");
        assert_eq!(tls.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));

        let (version, code, _) = get_over_h2(tls, "https://localhost/no-such-webhook").await;
        assert_eq!(version, http::Version::HTTP_2);
        assert_eq!(code, 404);

        stop.send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .expect("serve returns after shutdown")
            .unwrap();
    }
}
