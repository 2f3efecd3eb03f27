//! The generated certificate authority and the server certificate for 127.0.0.1/localhost.
//!
//! One CA and server certificate are generated per process and shared by every test
//! environment, which keeps start-up in the milliseconds; clients verify the server against
//! the CA (no "insecure-skip-tls-verify").

use std::sync::{Arc, OnceLock};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::ServerConfig;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::Error;

/// The CA (for clients) and the TLS configuration (for the server).
pub struct Certs {
    /// PEM of the CA certificate that signed the server certificate.
    pub ca_pem: String,
    /// rustls server configuration presenting the server certificate, offering HTTP/2 and
    /// HTTP/1.1 by ALPN.
    pub server_config: Arc<ServerConfig>,
}

/// The ALPN name of HTTP/2 over TLS.
pub const H2: &[u8] = b"h2";

static CERTS: OnceLock<Result<Arc<Certs>, String>> = OnceLock::new();

/// The process-wide certificates, generated on first use.
pub fn certs() -> Result<Arc<Certs>, Error> {
    CERTS
        .get_or_init(|| generate().map(Arc::new))
        .clone()
        .map_err(|e| Error::Certificate(e.into()))
}

fn generate() -> Result<Certs, String> {
    let err = |e: rcgen::Error| e.to_string();
    let ca_key = KeyPair::generate().map_err(err)?;
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "kubeforge-testenv-ca");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_cert = ca_params.self_signed(&ca_key).map_err(err)?;
    let issuer = Issuer::new(ca_params, ca_key);

    let server_key = KeyPair::generate().map_err(err)?;
    let mut server_params =
        CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .map_err(err)?;
    server_params
        .distinguished_name
        .push(DnType::CommonName, "kubeforge-testenv");
    let server_cert = server_params.signed_by(&server_key, &issuer).map_err(err)?;

    let chain = vec![CertificateDer::from(server_cert.der().to_vec())];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der()));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| e.to_string())?;
    // kube-apiserver's order, and its choice: the first of its own the client also offers (a
    // client offering neither gets the `no_application_protocol` alert, one offering none
    // speaks HTTP/1.1).
    config.alpn_protocols = vec![H2.to_vec(), b"http/1.1".to_vec()];
    Ok(Certs {
        ca_pem: ca_cert.pem(),
        server_config: Arc::new(config),
    })
}
