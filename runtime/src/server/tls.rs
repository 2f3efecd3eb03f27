//! TLS for the metrics server: certificates from a directory (`tls.crt`/`tls.key`, as
//! cert-manager writes them) or a generated self-signed one; ALPN offers the HTTP versions the
//! server speaks ([`HttpVersions`]).

use rustls::{ConfigBuilder, ServerConfig, server::WantsServerCert};
use rustls_pki_types::{
    CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer,
    pem::{self, PemObject},
};
use std::{
    path::{Path, PathBuf},
    sync::Arc,
};
use tokio_rustls::TlsAcceptor;

use super::HttpVersions;
use crate::Error;

/// A certificate chain and its key, as read from a directory.
pub(crate) type Pair = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

/// Reads `tls.crt` and `tls.key` (PEM, as cert-manager writes them) from `dir`; an error
/// names the file and what is wrong with it (a file without a certificate or key is
/// [`pem::Error::NoItemsFound`]). The metrics and webhook servers both load their certificates
/// through it.
pub(crate) fn read_pair(dir: &Path) -> Result<Pair, (PathBuf, pem::Error)> {
    let cert_file = dir.join("tls.crt");
    let key_file = dir.join("tls.key");
    let certs = CertificateDer::pem_file_iter(&cert_file)
        .and_then(std::iter::Iterator::collect::<Result<Vec<_>, _>>)
        .and_then(|certs| {
            if certs.is_empty() {
                Err(pem::Error::NoItemsFound)
            } else {
                Ok(certs)
            }
        })
        .map_err(|e| (cert_file, e))?;
    let key = PrivateKeyDer::from_pem_file(&key_file).map_err(|e| (key_file, e))?;
    Ok((certs, key))
}

/// The server TLS configuration every kubeforge server starts from: the ring provider, the
/// safe default protocol versions, no client certificates.
pub(crate) fn config_builder() -> Result<ConfigBuilder<ServerConfig, WantsServerCert>, rustls::Error>
{
    Ok(
        ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()?
            .with_no_client_auth(),
    )
}

/// A TLS acceptor serving `tls.crt` and `tls.key` from `dir`.
pub fn from_dir(dir: &Path, versions: HttpVersions) -> Result<TlsAcceptor, Error> {
    let (certs, key) =
        read_pair(dir).map_err(|(path, source)| Error::Certificate { path, source })?;
    acceptor(certs, key, versions)
}

/// A TLS acceptor with a freshly generated self-signed certificate (kubebuilder's default when
/// no certificate directory is given; Prometheus then scrapes with `insecureSkipVerify`).
pub fn self_signed(versions: HttpVersions) -> Result<TlsAcceptor, Error> {
    let generated =
        rcgen::generate_simple_self_signed(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .map_err(Error::SelfSigned)?;
    let key = PrivatePkcs8KeyDer::from(generated.signing_key.serialize_der()).into();
    acceptor(vec![generated.cert.der().clone()], key, versions)
}

fn acceptor(
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    versions: HttpVersions,
) -> Result<TlsAcceptor, Error> {
    let mut config = config_builder()
        .and_then(|b| b.with_single_cert(certs, key))
        .map_err(Error::Tls)?;
    config.alpn_protocols = versions.alpn_protocols();
    Ok(TlsAcceptor::from(Arc::new(config)))
}
