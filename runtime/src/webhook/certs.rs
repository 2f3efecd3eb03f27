//! Serving certificates: `tls.crt`/`tls.key` from a directory (as cert-manager and
//! controller-runtime lay them out), swapped in without a restart when the files change
//! ([`CertWatcher`] polls their modification times and serves the current pair through rustls'
//! [`ResolvesServerCert`]), and [`generate_self_signed`] for local runs.

use std::{
    fs,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, RwLock},
    time::{Duration, SystemTime},
};

use rustls::{
    server::{ClientHello, ResolvesServerCert},
    sign::CertifiedKey,
};
use tokio_util::sync::CancellationToken;

use super::WebhookError;

/// The certificate file name inside the certificate directory.
pub const CERT_FILE: &str = "tls.crt";
/// The private key file name inside the certificate directory.
pub const KEY_FILE: &str = "tls.key";
/// The CA file [`generate_self_signed`] writes (cert-manager's name for it).
pub const CA_FILE: &str = "ca.crt";

/// What identifies one version of the files: modification time and length of both.
type Stamp = [(Option<SystemTime>, u64); 2];

/// The serving certificate of a directory, reloaded when its files change.
#[derive(Debug)]
pub struct CertWatcher {
    dir: PathBuf,
    current: RwLock<Arc<CertifiedKey>>,
    stamp: Mutex<Stamp>,
}

fn stamp(dir: &Path) -> Stamp {
    [CERT_FILE, KEY_FILE].map(|name| {
        fs::metadata(dir.join(name)).map_or((None, 0), |m| (m.modified().ok(), m.len()))
    })
}

fn load(dir: &Path) -> Result<Arc<CertifiedKey>, WebhookError> {
    let (certs, key) = crate::server::tls::read_pair(dir)
        .map_err(|(path, source)| WebhookError::Certificate { path, source })?;
    let provider = rustls::crypto::ring::default_provider();
    let certified =
        CertifiedKey::from_der(certs, key, &provider).map_err(|source| WebhookError::Tls {
            dir: dir.to_path_buf(),
            source,
        })?;
    Ok(Arc::new(certified))
}

impl CertWatcher {
    /// Loads `tls.crt` and `tls.key` from `dir`; fails if they are missing, unreadable or do not
    /// belong together.
    pub fn load(dir: impl Into<PathBuf>) -> Result<Arc<Self>, WebhookError> {
        let dir = dir.into();
        let stamp_before = stamp(&dir);
        let current = load(&dir)?;
        Ok(Arc::new(CertWatcher {
            current: RwLock::new(current),
            stamp: Mutex::new(stamp_before),
            dir,
        }))
    }

    /// The certificate directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Reloads the pair if either file's modification time or size changed since the last load.
    /// `Ok(true)` when a new pair is now served. On error (e.g. the files are caught half
    /// written) the old pair stays and the next call tries again.
    pub fn reload_if_changed(&self) -> Result<bool, WebhookError> {
        let now = stamp(&self.dir);
        if *self.stamp.lock().expect("stamp lock") == now {
            return Ok(false);
        }
        let fresh = load(&self.dir)?;
        *self.current.write().expect("cert lock") = fresh;
        *self.stamp.lock().expect("stamp lock") = now;
        tracing::info!(dir = %self.dir.display(), "webhook serving certificate reloaded");
        Ok(true)
    }

    /// Polls the files every `interval` until `cancel` fires (spawned by the server).
    pub async fn watch(self: Arc<Self>, interval: Duration, cancel: CancellationToken) {
        let mut ticker = tokio::time::interval(interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = cancel.cancelled() => return,
                _ = ticker.tick() => {}
            }
            if let Err(e) = self.reload_if_changed() {
                tracing::warn!(error = %e, "webhook certificate changed but could not be loaded; keeping the previous one");
            }
        }
    }
}

impl ResolvesServerCert for CertWatcher {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current.read().expect("cert lock").clone())
    }
}

/// The CA of a generated certificate, for clients and for `caBundle` in webhook configurations.
#[derive(Debug, Clone)]
pub struct SelfSigned {
    /// The CA certificate, PEM (also written to `ca.crt`).
    pub ca_pem: String,
}

/// Generates a CA and a serving certificate for `hosts` (DNS names or IP addresses) signed by
/// it, and writes `tls.crt`, `tls.key` and `ca.crt` into `dir` (created if missing), replacing
/// existing files through a rename so a watching server never reads half a file. For local
/// runs and tests; in a cluster cert-manager provides the files.
pub fn generate_self_signed(dir: &Path, hosts: &[&str]) -> Result<SelfSigned, WebhookError> {
    let err = WebhookError::Generate;
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "kubeforge webhook CA");
    ca_params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    let ca =
        rcgen::CertifiedIssuer::self_signed(ca_params, rcgen::KeyPair::generate().map_err(err)?)
            .map_err(err)?;
    let mut params =
        rcgen::CertificateParams::new(hosts.iter().map(|h| (*h).to_string()).collect::<Vec<_>>())
            .map_err(err)?;
    params.distinguished_name.push(
        rcgen::DnType::CommonName,
        hosts.first().copied().unwrap_or("webhook"),
    );
    let key = rcgen::KeyPair::generate().map_err(err)?;
    let cert = params.signed_by(&key, &ca).map_err(err)?;
    fs::create_dir_all(dir).map_err(|source| WebhookError::Write {
        path: dir.to_path_buf(),
        source,
    })?;
    let ca_pem = ca.pem();
    for (name, contents) in [
        (CA_FILE, ca_pem.as_str()),
        (KEY_FILE, key.serialize_pem().as_str()),
        (CERT_FILE, cert.pem().as_str()),
    ] {
        write_atomically(&dir.join(name), contents)?;
    }
    Ok(SelfSigned { ca_pem })
}

fn write_atomically(path: &Path, contents: &str) -> Result<(), WebhookError> {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, contents)
        .and_then(|()| fs::rename(&tmp, path))
        .map_err(|source| WebhookError::Write {
            path: path.to_path_buf(),
            source,
        })
}
