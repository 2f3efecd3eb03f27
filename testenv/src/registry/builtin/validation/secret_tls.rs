//! The warning a `kubernetes.io/tls` Secret gets when its `tls.crt` and `tls.key` do not
//! make a key pair: kube-apiserver loads them with Go's `tls.X509KeyPair` and sends its
//! error as a warning. Its steps, each with Go's message: the first `CERTIFICATE` block
//! of the certificate input, the first `PRIVATE KEY` block of the key input (both as
//! `pem.Decode` reads them, see [`super::pem`]), the whole certificate as
//! `x509.ParseCertificate` reads it ([`super::x509_certificate`]), the private key
//! ([`super::private_key`]: PKCS#8, PKCS#1 with the RSA key's consistency, or SEC 1; a key
//! none of them reads gets the PKCS#8 error, as Go 1.27 reports it), and whether the key's
//! type and public part match the certificate's (for ML-DSA: the parameter set and the
//! public key the key's seed derives).

use base64::Engine;
use serde_json::Value;

use super::csr_signature::Key;
use super::pem;
use super::private_key::{self, Private};
use super::x509_certificate::{self, Public};

/// The warning of a `kubernetes.io/tls` Secret whose pair does not load (`data` as the
/// object holds it: base64).
pub fn warning(secret: &Value) -> Option<String> {
    if secret["type"] != "kubernetes.io/tls" {
        return None;
    }
    let bytes = |key: &str| {
        secret["data"][key]
            .as_str()
            .and_then(|s| base64::engine::general_purpose::STANDARD.decode(s).ok())
            .unwrap_or_default()
    };
    key_pair_error(&bytes("tls.crt"), &bytes("tls.key"))
}

/// Go's `%v` of a list of block types.
fn types(skipped: &[Vec<u8>]) -> String {
    let names: Vec<String> = skipped
        .iter()
        .map(|t| String::from_utf8_lossy(t).into_owned())
        .collect();
    format!("[{}]", names.join(" "))
}

/// Why `tls.X509KeyPair(cert, key)` fails, in its words; `None` when the pair loads.
pub fn key_pair_error(cert: &[u8], key: &[u8]) -> Option<String> {
    let mut certificates = Vec::new();
    let mut skipped = Vec::new();
    let mut rest = cert;
    while let Some((block, after)) = pem::decode(rest) {
        if block.kind == b"CERTIFICATE" {
            certificates.push(block.bytes);
        } else {
            skipped.push(block.kind);
        }
        rest = after;
    }
    let Some(first) = certificates.first() else {
        return Some(match skipped.as_slice() {
            [] => "tls: failed to find any PEM data in certificate input".into(),
            [one] if one.ends_with(b"PRIVATE KEY") => "tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched".into(),
            _ => format!(
                "tls: failed to find \"CERTIFICATE\" PEM block in certificate input after skipping PEM blocks of the following types: {}",
                types(&skipped)
            ),
        });
    };
    let mut skipped = Vec::new();
    let mut rest = key;
    let key_der = loop {
        let Some((block, after)) = pem::decode(rest) else {
            return Some(match skipped.as_slice() {
                [] => "tls: failed to find any PEM data in key input".into(),
                [one] if one == b"CERTIFICATE" => {
                    "tls: found a certificate rather than a key in the PEM for the private key"
                        .into()
                }
                _ => format!(
                    "tls: failed to find PEM block with type ending in \"PRIVATE KEY\" in key input after skipping PEM blocks of the following types: {}",
                    types(&skipped)
                ),
            });
        };
        if block.kind == b"PRIVATE KEY" || block.kind.ends_with(b" PRIVATE KEY") {
            break block.bytes;
        }
        skipped.push(block.kind);
        rest = after;
    };
    let public = match x509_certificate::parse(first) {
        Ok(public) => public,
        Err(why) => return Some(why),
    };
    let private = match private_key::parse(&key_der) {
        Ok(private) => private,
        Err(why) => return Some(why),
    };
    matches(&public, &private).err()
}

/// The last step of `tls.X509KeyPair`: the private key's type and public part against the
/// certificate's public key.
fn matches(public: &Public, private: &Private) -> Result<(), String> {
    const TYPE: &str = "tls: private key type does not match public key type";
    const MISMATCH: &str = "tls: private key does not match public key";
    let same = match (&public.key, private) {
        (Some(Key::Rsa(key)), Private::Rsa(n)) => key.n == *n,
        (Some(Key::Ecdsa(curve)), Private::Ecdsa(their, point)) => {
            curve == their && public.bits == *point
        }
        (Some(Key::Ed25519), Private::Ed25519(key)) => public.bits == *key,
        (Some(Key::MlDsa(set)), Private::MlDsa(their, key)) => set == their && public.bits == *key,
        (Some(Key::Rsa(_) | Key::Ecdsa(_) | Key::Ed25519 | Key::MlDsa(_)), _) => {
            return Err(TYPE.into());
        }
        _ => return Err("tls: unknown public key algorithm".into()),
    };
    if same { Ok(()) } else { Err(MISMATCH.into()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(alg: &'static rcgen::SignatureAlgorithm) -> (String, String) {
        let key = rcgen::KeyPair::generate_for(alg).unwrap();
        let cert = rcgen::CertificateParams::new(vec!["a.example.com".into()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        (cert.pem(), key.serialize_pem())
    }

    fn error(cert: &str, key: &str) -> Option<String> {
        key_pair_error(cert.as_bytes(), key.as_bytes())
    }

    #[test]
    fn pairs_load_and_mismatches_are_named() {
        let (ec_cert, ec_key) = pair(&rcgen::PKCS_ECDSA_P256_SHA256);
        let (ed_cert, ed_key) = pair(&rcgen::PKCS_ED25519);
        let (other_cert, other_key) = pair(&rcgen::PKCS_ECDSA_P256_SHA256);
        let (p384_cert, _) = pair(&rcgen::PKCS_ECDSA_P384_SHA384);
        assert_eq!(error(&ec_cert, &ec_key), None);
        assert_eq!(error(&ed_cert, &ed_key), None);
        assert_eq!(error(&other_cert, &other_key), None);
        assert_eq!(
            error(&ec_cert, &other_key).as_deref(),
            Some("tls: private key does not match public key")
        );
        assert_eq!(
            error(&p384_cert, &ec_key).as_deref(),
            Some("tls: private key does not match public key")
        );
        assert_eq!(
            error(&ed_cert, &ec_key).as_deref(),
            Some("tls: private key type does not match public key type")
        );
    }

    #[test]
    fn missing_blocks_get_go_messages() {
        let (cert, key) = pair(&rcgen::PKCS_ECDSA_P256_SHA256);
        assert_eq!(
            error("x", &key).as_deref(),
            Some("tls: failed to find any PEM data in certificate input")
        );
        assert_eq!(
            error(&cert, "").as_deref(),
            Some("tls: failed to find any PEM data in key input")
        );
        assert!(
            error(&key, &cert)
                .unwrap()
                .contains("PEM inputs may have been switched")
        );
        assert_eq!(
            error(&cert, &cert).as_deref(),
            Some("tls: found a certificate rather than a key in the PEM for the private key")
        );
        let foo = "-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n";
        assert_eq!(
            error(&format!("{foo}{foo}"), &key).as_deref(),
            Some(
                "tls: failed to find \"CERTIFICATE\" PEM block in certificate input after skipping PEM blocks of the following types: [FOO FOO]"
            )
        );
        assert_eq!(error(&format!("{foo}{cert}"), &format!("{foo}{key}")), None);
    }

    #[test]
    fn malformed_contents_get_go_messages() {
        let (cert, _) = pair(&rcgen::PKCS_ECDSA_P256_SHA256);
        let block = |kind: &str, body: &str| {
            format!("-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n")
        };
        assert_eq!(
            error(&block("CERTIFICATE", "AAAA"), &block("PRIVATE KEY", "AAAA")).as_deref(),
            Some("x509: malformed certificate")
        );
        assert_eq!(
            error(&cert, &block("RSA PRIVATE KEY", "MAMCAQA=")).as_deref(),
            Some("tls: failed to parse private key: asn1: syntax error: sequence truncated")
        );
        assert!(
            error(&cert, &block("PRIVATE KEY", "AAAA"))
                .unwrap()
                .ends_with("omitEmpty:false} pkcs8 @2")
        );
    }
}
