//! The private control plane's certificates and keys (ECDSA P-256, generated with rcgen in a
//! few milliseconds): a CA, kube-apiserver's serving certificate for 127.0.0.1/localhost, an
//! admin client certificate (`O=system:masters`, RBAC's superuser group) and the service
//! account signing key.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

use crate::Error;

/// The files written by [`write`], all in one directory.
pub struct Pki {
    /// The CA certificate (clients verify the server with it; the server verifies clients).
    pub ca_cert: PathBuf,
    /// The CA key (kube-controller-manager signs CertificateSigningRequests with it).
    pub ca_key: PathBuf,
    /// kube-apiserver's serving certificate.
    pub serving_cert: PathBuf,
    /// kube-apiserver's serving key.
    pub serving_key: PathBuf,
    /// The admin client certificate.
    pub admin_cert: PathBuf,
    /// The admin client key.
    pub admin_key: PathBuf,
    /// The service account signing key (private).
    pub sa_key: PathBuf,
    /// The service account verification key (public).
    pub sa_pub: PathBuf,
}

/// The user name of the admin certificate: the embedded admin's.
pub const ADMIN_USER: &str = crate::support::user::ADMIN;

fn failed(e: rcgen::Error) -> Error {
    Error::Certificate(e.into())
}

fn save(path: &Path, contents: &str) -> Result<(), Error> {
    use std::os::unix::fs::OpenOptionsExt;
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)?;
        std::io::Write::write_all(&mut file, contents.as_bytes())
    };
    write().map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Generates every certificate and key and writes them into `dir`.
pub fn write(dir: &Path) -> Result<Pki, Error> {
    let pki = Pki {
        ca_cert: dir.join("ca.crt"),
        ca_key: dir.join("ca.key"),
        serving_cert: dir.join("serving.crt"),
        serving_key: dir.join("serving.key"),
        admin_cert: dir.join("admin.crt"),
        admin_key: dir.join("admin.key"),
        sa_key: dir.join("sa.key"),
        sa_pub: dir.join("sa.pub"),
    };

    let ca_key = KeyPair::generate().map_err(failed)?;
    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(failed)?;
    ca.distinguished_name
        .push(DnType::CommonName, "kubeforge-testenv-control-plane-ca");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_cert = ca.self_signed(&ca_key).map_err(failed)?;
    save(&pki.ca_cert, &ca_cert.pem())?;
    save(&pki.ca_key, &ca_key.serialize_pem())?;
    let issuer = Issuer::new(ca, ca_key);

    let serving_key = KeyPair::generate().map_err(failed)?;
    let mut serving =
        CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
            .map_err(failed)?;
    serving
        .distinguished_name
        .push(DnType::CommonName, "kube-apiserver");
    serving.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    serving.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let serving_cert = serving.signed_by(&serving_key, &issuer).map_err(failed)?;
    save(&pki.serving_cert, &serving_cert.pem())?;
    save(&pki.serving_key, &serving_key.serialize_pem())?;

    let admin_key = KeyPair::generate().map_err(failed)?;
    let mut admin = CertificateParams::new(Vec::<String>::new()).map_err(failed)?;
    admin
        .distinguished_name
        .push(DnType::OrganizationName, "system:masters");
    admin
        .distinguished_name
        .push(DnType::CommonName, ADMIN_USER);
    admin.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    admin.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let admin_cert = admin.signed_by(&admin_key, &issuer).map_err(failed)?;
    save(&pki.admin_cert, &admin_cert.pem())?;
    save(&pki.admin_key, &admin_key.serialize_pem())?;

    let sa_key = KeyPair::generate().map_err(failed)?;
    save(&pki.sa_key, &sa_key.serialize_pem())?;
    save(&pki.sa_pub, &sa_key.public_key_pem())?;
    Ok(pki)
}
