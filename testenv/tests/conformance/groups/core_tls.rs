//! A `kubernetes.io/tls` Secret's key pair read in full, as kube-apiserver reads it with
//! Go's `tls.X509KeyPair`: a certificate malformed in a field after its public key, or an
//! RSA key that is not consistent, is stored with Go's error as a warning.

use rcgen::PublicKeyData;
use serde_json::json;

use crate::common::env;

/// A DER element.
fn tlv(tag: u8, contents: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = contents.len();
    if len < 0x80 {
        out.push(len as u8);
    } else if len < 0x100 {
        out.extend([0x81, len as u8]);
    } else {
        out.extend([0x82, (len >> 8) as u8, len as u8]);
    }
    out.extend_from_slice(contents);
    out
}

fn seq(parts: &[&[u8]]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

fn pem(kind: &str, der: &[u8]) -> String {
    use base64::Engine;
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    format!("-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n")
}

/// The parts of a certificate that a case changes.
struct Parts {
    version: Vec<u8>,
    validity: Vec<u8>,
    spki: Vec<u8>,
    extensions: Vec<Vec<u8>>,
    outer_algorithm: Option<Vec<u8>>,
}

impl Parts {
    fn new(spki: Vec<u8>) -> Parts {
        Parts {
            version: tlv(0xa0, &[0x02, 0x01, 0x02]),
            validity: seq(&[&tlv(0x17, b"250101000000Z"), &tlv(0x18, b"20990101000000Z")]),
            spki,
            extensions: Vec::new(),
            outer_algorithm: None,
        }
    }

    /// The certificate, PEM-encoded (its signature is not checked by the server).
    fn pem(&self) -> String {
        // ecdsa-with-SHA256, CN=a.
        let algorithm = seq(&[&tlv(
            0x06,
            &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02],
        )]);
        let name = seq(&[&tlv(
            0x31,
            &seq(&[&tlv(0x06, &[0x55, 0x04, 0x03]), &tlv(0x0c, b"a")]),
        )]);
        let extensions = if self.extensions.is_empty() {
            Vec::new()
        } else {
            tlv(0xa3, &tlv(0x30, &self.extensions.concat()))
        };
        let tbs = seq(&[
            &self.version,
            &[0x02, 0x01, 0x01],
            &algorithm,
            &name,
            &self.validity,
            &name,
            &self.spki,
            &extensions,
        ]);
        let outer = self.outer_algorithm.as_ref().unwrap_or(&algorithm);
        pem(
            "CERTIFICATE",
            &seq(&[&tbs, outer, &tlv(0x03, &[0x00, 0x30, 0x00])]),
        )
    }
}

/// An extension `2.5.29.<number>`.
fn extension(number: u8, value: &[u8]) -> Vec<u8> {
    seq(&[&tlv(0x06, &[0x55, 0x1d, number]), &tlv(0x04, value)])
}

/// An RSA key's INTEGERs (small numbers).
fn integers(values: &[u16]) -> Vec<u8> {
    values
        .iter()
        .flat_map(|v| {
            let bytes = v.to_be_bytes();
            let start = if bytes[0] == 0 && bytes[1] & 0x80 == 0 {
                1
            } else {
                0
            };
            let mut contents = bytes[start..].to_vec();
            if contents[0] & 0x80 != 0 {
                contents.insert(0, 0);
            }
            tlv(0x02, &contents)
        })
        .collect()
}

/// A certificate and a key that do not load make a warning with Go's error; the real
/// server's answers (v1.34.9, Go 1.27).
#[tokio::test]
async fn tls_secrets_warn_of_a_malformed_certificate_or_an_inconsistent_rsa_key() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{}/secrets?dryRun=All", env.namespace());
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let spki = key.subject_public_key_info();
    let ec_key = key.serialize_pem();
    let with = |change: &dyn Fn(&mut Parts)| {
        let mut parts = Parts::new(spki.clone());
        change(&mut parts);
        parts.pem()
    };
    let key_usage = extension(15, &tlv(0x03, &[0x07, 0x80]));
    // A textbook RSA key (n = 61 * 53, e = 17): Go parses keys of any size.
    let rsa_spki = seq(&[
        &seq(&[
            &tlv(
                0x06,
                &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01],
            ),
            &[0x05, 0x00],
        ]),
        &tlv(
            0x03,
            &[&[0u8][..], &seq(&[&integers(&[3233, 17])])].concat(),
        ),
    ]);
    let rsa_cert = Parts::new(rsa_spki).pem();
    let pkcs8 = |numbers: &[u16]| {
        let algorithm = seq(&[
            &tlv(
                0x06,
                &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01],
            ),
            &[0x05, 0x00],
        ]);
        let pkcs1 = seq(&[&integers(numbers)]);
        pem(
            "PRIVATE KEY",
            &seq(&[&[0x02, 0x01, 0x00], &algorithm, &tlv(0x04, &pkcs1)]),
        )
    };
    let cases: Vec<(String, String, Option<&str>)> = vec![
        (with(&|_| {}), ec_key.clone(), None),
        (
            with(&|p| p.version = tlv(0xa0, &[0x02, 0x01, 0x03])),
            ec_key.clone(),
            Some("x509: invalid version"),
        ),
        (
            with(&|p| p.outer_algorithm = Some(seq(&[&tlv(0x06, &[0x2a, 0x03])]))),
            ec_key.clone(),
            Some("x509: inner and outer signature algorithm identifiers don't match"),
        ),
        (
            with(&|p| {
                p.validity = seq(&[
                    &tlv(0x17, b"250101000000Z"),
                    &tlv(0x18, b"20990101000000.5Z"),
                ]);
            }),
            ec_key.clone(),
            Some("x509: malformed GeneralizedTime"),
        ),
        (
            with(&|p| p.extensions = vec![key_usage.clone(), key_usage.clone()]),
            ec_key.clone(),
            Some("x509: certificate contains duplicate extension with OID \"2.5.29.15\""),
        ),
        (
            with(&|p| {
                let constraint = tlv(0x87, &[10, 0, 0, 0, 0xff, 0, 0xff, 0]);
                let subtrees = tlv(0xa0, &seq(&[&constraint]));
                p.extensions = vec![extension(30, &seq(&[&subtrees]))];
            }),
            ec_key.clone(),
            Some("x509: IP constraint contained invalid mask ff00ff00"),
        ),
        (
            rsa_cert.clone(),
            pkcs8(&[0, 3233, 17, 2753, 61, 53, 53, 49, 38]),
            None,
        ),
        (
            rsa_cert.clone(),
            pkcs8(&[0, 3233, 17, 2754, 61, 53, 53, 49, 38]),
            Some(
                "tls: failed to parse private key: x509: failed to parse RSA private key embedded in PKCS#8: crypto/rsa: d does not match dP",
            ),
        ),
        (
            rsa_cert.clone(),
            pkcs8(&[0, 3233, 17, 2753, 61, 53, 53, 49, 39]),
            Some(
                "tls: failed to parse private key: x509: failed to parse RSA private key embedded in PKCS#8: crypto/rsa: invalid CRT coefficient",
            ),
        ),
        (
            rsa_cert,
            pem(
                "RSA PRIVATE KEY",
                &seq(&[&integers(&[0, 3233, 17, 2754, 61, 53])]),
            ),
            Some(
                "tls: failed to parse private key: x509: failed to parse private key (use ParsePKCS1PrivateKey instead for this key format)",
            ),
        ),
    ];
    for (crt, tls_key, warning) in cases {
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "tls"},
            "type": "kubernetes.io/tls", "stringData": {"tls.crt": crt, "tls.key": tls_key}});
        let (code, headers, _) = crate::support::raw::exchange(
            &client,
            "POST",
            &path,
            &[("Content-Type", "application/json")],
            Some(&secret),
        )
        .await;
        assert_eq!(code, 201);
        let sent: Vec<&str> = headers
            .get_all("warning")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        let expected: Vec<String> = warning
            .iter()
            .map(|w| format!("299 - \"{}\"", w.replace('\\', "\\\\").replace('"', "\\\"")))
            .collect();
        assert_eq!(sent, expected, "{warning:?}");
    }
}
