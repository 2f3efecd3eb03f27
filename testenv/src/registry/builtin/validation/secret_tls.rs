//! The warning a `kubernetes.io/tls` Secret gets when its `tls.crt` and `tls.key` do not
//! make a key pair: kube-apiserver loads them with Go's `tls.X509KeyPair` and sends its
//! error as a warning. Its steps, each with Go's message: the first `CERTIFICATE` block
//! of the certificate input, the first `PRIVATE KEY` block of the key input (both as
//! `pem.Decode` reads them, see [`super::pem`]), the certificate's outer structure and
//! public key (as `x509.ParseCertificate` reads them, see [`super::csr_signature`]), the
//! private key (PKCS#1, PKCS#8 or SEC 1; a key none of them reads gets the PKCS#8 error,
//! as Go 1.27 reports it), and whether the key's type and public part match the
//! certificate's. A certificate's names, validity, extensions and signature are not read.

use base64::Engine;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use ring::signature::KeyPair;
use serde_json::Value;

use super::csr::asn1::{Expect, field};
use super::csr::der::{Reader, tag};
use super::csr::{Algorithm, PublicKeyInfo};
use super::csr_signature::{Curve, Key, parse_key};
use super::pem;

/// DER contents of the key algorithm OIDs a private key names.
mod oid {
    pub const RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
    pub const EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
    pub const ED25519: &[u8] = &[0x2b, 0x65, 0x70];
    pub const P224: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x21];
    pub const P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
    pub const P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
    pub const P521: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x23];
}

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
    let public = match certificate_key(first) {
        Ok(public) => public,
        Err(why) => return Some(why),
    };
    let private = match private_key(&key_der) {
        Ok(private) => private,
        Err(why) => return Some(format!("tls: failed to parse private key: {why}")),
    };
    matches(&public, &private).err()
}

/// A certificate's public key: its parsed form and its bits.
struct Public {
    key: Option<Key>,
    bits: Vec<u8>,
}

/// The public key of a DER certificate, read as `x509.ParseCertificate` reads the
/// certificate's structure up to it, with its messages.
fn certificate_key(der: &[u8]) -> Result<Public, String> {
    let malformed = |what: &str| format!("x509: malformed {what}");
    let mut input = Reader::new(der);
    let outer = input
        .read(tag::SEQUENCE)
        .ok_or_else(|| malformed("certificate"))?;
    let mut outer = Reader::new(outer);
    let mut tbs = outer
        .read(tag::SEQUENCE)
        .map(Reader::new)
        .ok_or_else(|| malformed("tbs certificate"))?;
    // An explicit `[0]` version, when there is one.
    let mut probe = tbs;
    if probe.read_any().is_some_and(|(t, _, _)| t == 0xa0) {
        let version = tbs.read(0xa0).ok_or_else(|| malformed("version"))?;
        let mut version = Reader::new(version);
        version
            .read(tag::INTEGER)
            .filter(|v| super::csr::der::valid_int64(v))
            .ok_or_else(|| malformed("version"))?;
    }
    tbs.read(tag::INTEGER)
        .ok_or_else(|| malformed("serial number"))?;
    for what in [
        "signature algorithm identifier",
        "issuer",
        "validity",
        "subject",
    ] {
        tbs.read(tag::SEQUENCE).ok_or_else(|| malformed(what))?;
    }
    let mut spki = tbs
        .read(tag::SEQUENCE)
        .map(Reader::new)
        .ok_or_else(|| malformed("spki"))?;
    let algorithm = spki
        .read(tag::SEQUENCE)
        .ok_or_else(|| malformed("public key algorithm identifier"))?;
    let mut algorithm = Reader::new(algorithm);
    let oid = algorithm
        .read_oid()
        .ok_or_else(|| malformed("public key algorithm identifier"))?;
    let params = algorithm
        .read_any()
        .map(|(_, whole, _)| whole.to_vec())
        .unwrap_or_default();
    let bits = spki
        .read(tag::BIT_STRING)
        .filter(|b| super::csr::der::valid_bit_string(b))
        .ok_or_else(|| malformed("subjectPublicKey"))?;
    let info = PublicKeyInfo {
        algorithm: Algorithm {
            oid: oid.to_vec(),
            params,
        },
        key: bits[1..].to_vec(),
    };
    let key = parse_key(&info)?;
    Ok(Public {
        key,
        bits: info.key,
    })
}

/// A private key: what its public part is compared by.
enum Private {
    /// RSA: the modulus (no leading zeros).
    Rsa(Vec<u8>),
    /// ECDSA: the curve and the uncompressed public point.
    Ecdsa(Curve, Vec<u8>),
    /// Ed25519: the public key.
    Ed25519(Vec<u8>),
}

/// `tls.parsePrivateKey`: PKCS#1, then PKCS#8, then SEC 1; the PKCS#8 error when none reads it.
fn private_key(der: &[u8]) -> Result<Private, String> {
    if let Some(key) = pkcs1(der) {
        return Ok(key);
    }
    let wrapped = pkcs8(der);
    if let Ok(key) = wrapped {
        return Ok(key);
    }
    if let Some(key) = sec1(der, None) {
        return Ok(key);
    }
    wrapped
}

/// An INTEGER's contents without leading zero bytes.
fn unsigned(v: &[u8]) -> Vec<u8> {
    let start = v.iter().position(|b| *b != 0).unwrap_or(v.len());
    v[start..].to_vec()
}

/// `x509.ParsePKCS1PrivateKey`'s structure: a version and at least the eight numbers.
fn pkcs1(der: &[u8]) -> Option<Private> {
    let mut seq = Reader::new(Reader::new(der).read(tag::SEQUENCE)?);
    let mut numbers = Vec::new();
    while let Some(n) = seq.read(tag::INTEGER) {
        numbers.push(n);
    }
    if numbers.len() < 9 || numbers[0].len() != 1 || numbers[0][0] > 1 {
        return None;
    }
    let n = numbers[1];
    (n[0] & 0x80 == 0 && n.iter().any(|b| *b != 0)).then(|| Private::Rsa(unsigned(n)))
}

/// `x509.ParsePKCS8PrivateKey`, with Go's `encoding/asn1` messages for its structure.
fn pkcs8(der: &[u8]) -> Result<Private, String> {
    let (outer, _) = field(der, 0, Expect::Struct("pkcs8"))?;
    let (_, at) = field(outer.inner, 0, Expect::Int)?;
    let (algorithm, at) = field(outer.inner, at, Expect::Struct("AlgorithmIdentifier"))?;
    let (oid, next) = field(algorithm.inner, 0, Expect::Oid)?;
    let (params, _) = field(algorithm.inner, next, Expect::Any { optional: true })?;
    let (key, _) = field(outer.inner, at, Expect::OctetString)?;
    let oid = oid.inner;
    if oid == oid::RSA {
        return pkcs1(key.inner)
            .ok_or_else(|| "x509: failed to parse RSA private key embedded in PKCS#8".to_string());
    }
    if oid == oid::EC {
        let curve = Reader::new(params.full).read_oid();
        return sec1(key.inner, curve)
            .ok_or_else(|| "x509: failed to parse EC private key embedded in PKCS#8".to_string());
    }
    if oid == oid::ED25519 {
        let seed = Reader::new(key.inner)
            .read(0x04)
            .ok_or("x509: invalid Ed25519 private key")?;
        let pair = ring::signature::Ed25519KeyPair::from_seed_unchecked(seed)
            .map_err(|_| format!("x509: invalid Ed25519 private key length: {}", seed.len()))?;
        return Ok(Private::Ed25519(pair.public_key().as_ref().to_vec()));
    }
    Err(format!(
        "x509: PKCS#8 wrapping contained private key with unknown algorithm: {}",
        dotted(oid)
    ))
}

/// An OID's dotted form.
fn dotted(oid: &[u8]) -> String {
    let mut arcs = Vec::new();
    let mut value: u64 = 0;
    for &b in oid {
        value = (value << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            if arcs.is_empty() {
                let first = (value / 40).min(2);
                arcs.push(first);
                arcs.push(value - first * 40);
            } else {
                arcs.push(value);
            }
            value = 0;
        }
    }
    arcs.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

/// `x509.ParseECPrivateKey` (the curve named inside, or by the PKCS#8 wrapping): the
/// public point derived from the private scalar, as Go derives it.
fn sec1(der: &[u8], wrapped_curve: Option<&[u8]>) -> Option<Private> {
    let mut seq = Reader::new(Reader::new(der).read(tag::SEQUENCE)?);
    let version = seq.read(tag::INTEGER)?;
    if version != [1] {
        return None;
    }
    let scalar = seq.read(0x04)?;
    let named = seq.read(0xa0).and_then(|p| Reader::new(p).read_oid());
    let curve = match named.or(wrapped_curve)? {
        c if c == oid::P224 => Curve::P224,
        c if c == oid::P256 => Curve::P256,
        c if c == oid::P384 => Curve::P384,
        c if c == oid::P521 => Curve::P521,
        _ => return None,
    };
    macro_rules! point {
        ($curve:ident, $len:expr) => {{
            let mut padded = vec![0u8; ($len as usize).saturating_sub(scalar.len())];
            padded.extend_from_slice(scalar);
            let secret = $curve::SecretKey::from_slice(&padded).ok()?;
            secret
                .public_key()
                .to_encoded_point(false)
                .as_bytes()
                .to_vec()
        }};
    }
    let point = match curve {
        Curve::P224 => point!(p224, 28),
        Curve::P256 => point!(p256, 32),
        Curve::P384 => point!(p384, 48),
        Curve::P521 => point!(p521, 66),
    };
    Some(Private::Ecdsa(curve, point))
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
        (Some(Key::Rsa(_) | Key::Ecdsa(_) | Key::Ed25519), _) => return Err(TYPE.into()),
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
