//! A decoded certificate request's public key and signature, checked as Go's
//! `x509.CertificateRequest.CheckSignature` does after `parsePublicKey`, with its messages:
//! RSA PKCS#1 v1.5 (SHA-1, SHA-256, SHA-384, SHA-512), ECDSA on P-256 and P-384, Ed25519.

use ring::signature::{self, UnparsedPublicKey, VerificationAlgorithm};

use super::csr::{Algorithm, PublicKeyInfo, Request};

/// DER contents of the OIDs involved.
mod oid {
    pub const RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
    pub const EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
    pub const ED25519: &[u8] = &[0x2b, 0x65, 0x70];
    pub const DSA: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x38, 0x04, 0x01];
    pub const P224: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x21];
    pub const P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
    pub const P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
    pub const P521: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x23];
    /// `1.2.840.113549.1.1.<n>`: the PKCS#1 signature algorithms.
    pub const PKCS1: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01];
    /// `1.2.840.10045.4.<...>`: the ECDSA signature algorithms.
    pub const ECDSA_SHA1: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x01];
    pub const ECDSA_SHA2: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03];
}

/// Go's `PublicKeyAlgorithm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Rsa,
    Dsa,
    Ecdsa,
    Ed25519,
}

impl KeyKind {
    fn name(self) -> &'static str {
        match self {
            KeyKind::Rsa => "RSA",
            KeyKind::Dsa => "DSA",
            KeyKind::Ecdsa => "ECDSA",
            KeyKind::Ed25519 => "Ed25519",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hash {
    Md5,
    Sha1,
    Sha256,
    Sha384,
    Sha512,
}

/// A known signature algorithm: Go's name, its hash (none for Ed25519) and key kind.
struct SignatureKind {
    name: &'static str,
    hash: Option<Hash>,
    key: KeyKind,
}

/// `getSignatureAlgorithmFromAI`, for the algorithms Go knows (RSA-PSS, whose parameters
/// Go checks closely, and MD2 are not verified: Go's answer for them is the same).
fn signature_kind(ai: &Algorithm) -> Option<SignatureKind> {
    let kind = |name, hash, key| {
        Some(SignatureKind {
            name,
            hash: Some(hash),
            key,
        })
    };
    let oid = ai.oid.as_slice();
    if oid == oid::ED25519 {
        return ai.params.is_empty().then_some(SignatureKind {
            name: "Ed25519",
            hash: None,
            key: KeyKind::Ed25519,
        });
    }
    if let Some(rest) = oid.strip_prefix(oid::PKCS1) {
        return match rest {
            [4] => kind("MD5-RSA", Hash::Md5, KeyKind::Rsa),
            [5] => kind("SHA1-RSA", Hash::Sha1, KeyKind::Rsa),
            [11] => kind("SHA256-RSA", Hash::Sha256, KeyKind::Rsa),
            [12] => kind("SHA384-RSA", Hash::Sha384, KeyKind::Rsa),
            [13] => kind("SHA512-RSA", Hash::Sha512, KeyKind::Rsa),
            _ => None,
        };
    }
    if oid == oid::ECDSA_SHA1 {
        return kind("ECDSA-SHA1", Hash::Sha1, KeyKind::Ecdsa);
    }
    if let Some(rest) = oid.strip_prefix(oid::ECDSA_SHA2) {
        return match rest {
            [2] => kind("ECDSA-SHA256", Hash::Sha256, KeyKind::Ecdsa),
            [3] => kind("ECDSA-SHA384", Hash::Sha384, KeyKind::Ecdsa),
            [4] => kind("ECDSA-SHA512", Hash::Sha512, KeyKind::Ecdsa),
            _ => None,
        };
    }
    None
}

/// The curves Go knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Curve {
    P224,
    P256,
    P384,
    P521,
}

impl Curve {
    fn coordinate_len(self) -> usize {
        match self {
            Curve::P224 => 28,
            Curve::P256 => 32,
            Curve::P384 => 48,
            Curve::P521 => 66,
        }
    }
}

/// A parsed public key.
#[derive(Debug, Clone, Copy)]
enum Key {
    /// RSA, with the modulus's size in bits.
    Rsa(usize),
    Dsa,
    Ecdsa(Curve),
    Ed25519,
}

const UNSUPPORTED: &str = "x509: cannot verify signature: algorithm unimplemented";

/// The contents of the DER element of `tag` at the start of `der`, and what follows
/// (cryptobyte's `ReadASN1`, short and long lengths).
fn read(der: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&t, rest) = der.split_first()?;
    if t != tag {
        return None;
    }
    let (&l, rest) = rest.split_first()?;
    let (len, rest) = if l & 0x80 == 0 {
        (usize::from(l), rest)
    } else {
        let n = usize::from(l & 0x7f);
        if n == 0 || n > 4 || rest.len() < n || rest[0] == 0 {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        if len < 0x80 {
            return None;
        }
        (len, &rest[n..])
    };
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// Whether a DER INTEGER's contents are minimal (cryptobyte refuses others).
fn minimal_integer(v: &[u8]) -> bool {
    !v.is_empty()
        && !(v.len() > 1 && ((v[0] == 0 && v[1] & 0x80 == 0) || (v[0] == 0xff && v[1] & 0x80 != 0)))
}

/// `parsePublicKey` for an RSA key: a NULL parameter and a `SEQUENCE { n, e }` of positive
/// integers.
fn parse_rsa(info: &PublicKeyInfo) -> Result<Key, String> {
    if info.algorithm.params != [0x05, 0x00] {
        return Err("x509: RSA key missing NULL parameters".into());
    }
    let (seq, _) = read(&info.key, 0x30).ok_or("x509: invalid RSA public key")?;
    let (n, rest) = read(seq, 0x02)
        .filter(|(n, _)| minimal_integer(n))
        .ok_or("x509: invalid RSA modulus")?;
    let (e, _) = read(rest, 0x02)
        .filter(|(e, _)| minimal_integer(e) && e.len() <= 8)
        .ok_or("x509: invalid RSA public exponent")?;
    if n[0] & 0x80 != 0 || n.iter().all(|b| *b == 0) {
        return Err("x509: RSA modulus is not a positive number".into());
    }
    if e[0] & 0x80 != 0 || e.iter().all(|b| *b == 0) {
        return Err("x509: RSA public exponent is not a positive number".into());
    }
    let digits = n.iter().skip_while(|b| **b == 0).count();
    let bits = digits * 8 - n[n.len() - digits].leading_zeros() as usize;
    Ok(Key::Rsa(bits))
}

/// `parsePublicKey` for an ECDSA key: a named curve Go knows and an uncompressed point.
fn parse_ecdsa(info: &PublicKeyInfo) -> Result<Key, String> {
    let (curve, rest) =
        read(&info.algorithm.params, 0x06).ok_or("x509: invalid ECDSA parameters")?;
    let _ = rest;
    let curve = match curve {
        c if c == oid::P224 => Curve::P224,
        c if c == oid::P256 => Curve::P256,
        c if c == oid::P384 => Curve::P384,
        c if c == oid::P521 => Curve::P521,
        _ => return Err("x509: unsupported elliptic curve".into()),
    };
    if info.key.len() != 1 + 2 * curve.coordinate_len() || info.key[0] != 4 {
        return Err("x509: failed to unmarshal elliptic curve point".into());
    }
    Ok(Key::Ecdsa(curve))
}

/// `parsePublicKey` for the key kinds a request's signature can be checked with; `None`
/// for algorithms Go does not know (the signature check then fails).
fn parse_key(info: &PublicKeyInfo) -> Result<Option<Key>, String> {
    let oid = info.algorithm.oid.as_slice();
    if oid == oid::RSA {
        return parse_rsa(info).map(Some);
    }
    if oid == oid::EC {
        return parse_ecdsa(info).map(Some);
    }
    if oid == oid::ED25519 {
        if !info.algorithm.params.is_empty() {
            return Err("x509: Ed25519 key encoded with illegal parameters".into());
        }
        if info.key.len() != 32 {
            return Err("x509: wrong Ed25519 public key size".into());
        }
        return Ok(Some(Key::Ed25519));
    }
    if oid == oid::DSA {
        return Ok(Some(Key::Dsa));
    }
    Ok(None)
}

/// Go's `%T` of a parsed key, for the mismatch message.
fn go_type(key: Key) -> &'static str {
    match key {
        Key::Rsa(_) => "*rsa.PublicKey",
        Key::Dsa => "*dsa.PublicKey",
        Key::Ecdsa(_) => "*ecdsa.PublicKey",
        Key::Ed25519 => "ed25519.PublicKey",
    }
}

fn kind_of(key: Key) -> KeyKind {
    match key {
        Key::Rsa(_) => KeyKind::Rsa,
        Key::Dsa => KeyKind::Dsa,
        Key::Ecdsa(_) => KeyKind::Ecdsa,
        Key::Ed25519 => KeyKind::Ed25519,
    }
}

/// The ring algorithm that checks `hash` with `key`, with Go's failure message; `None`
/// where ring has none (ECDSA with SHA-1 or SHA-512, P-224 and P-521 keys), which cannot be
/// checked here.
fn verifier(
    key: Key,
    hash: Option<Hash>,
) -> Option<(&'static dyn VerificationAlgorithm, &'static str)> {
    const RSA_FAILURE: &str = "crypto/rsa: verification error";
    const ECDSA_FAILURE: &str = "x509: ECDSA verification failure";
    Some(match (key, hash) {
        (Key::Rsa(_), Some(Hash::Sha1)) => (
            &signature::RSA_PKCS1_1024_8192_SHA1_FOR_LEGACY_USE_ONLY,
            RSA_FAILURE,
        ),
        (Key::Rsa(_), Some(Hash::Sha256)) => (
            &signature::RSA_PKCS1_1024_8192_SHA256_FOR_LEGACY_USE_ONLY,
            RSA_FAILURE,
        ),
        (Key::Rsa(_), Some(Hash::Sha384)) => (&signature::RSA_PKCS1_2048_8192_SHA384, RSA_FAILURE),
        (Key::Rsa(_), Some(Hash::Sha512)) => (
            &signature::RSA_PKCS1_1024_8192_SHA512_FOR_LEGACY_USE_ONLY,
            RSA_FAILURE,
        ),
        (Key::Ecdsa(Curve::P256), Some(Hash::Sha256)) => {
            (&signature::ECDSA_P256_SHA256_ASN1, ECDSA_FAILURE)
        }
        (Key::Ecdsa(Curve::P256), Some(Hash::Sha384)) => {
            (&signature::ECDSA_P256_SHA384_ASN1, ECDSA_FAILURE)
        }
        (Key::Ecdsa(Curve::P384), Some(Hash::Sha256)) => {
            (&signature::ECDSA_P384_SHA256_ASN1, ECDSA_FAILURE)
        }
        (Key::Ecdsa(Curve::P384), Some(Hash::Sha384)) => {
            (&signature::ECDSA_P384_SHA384_ASN1, ECDSA_FAILURE)
        }
        (Key::Ed25519, None) => (&signature::ED25519, "x509: Ed25519 verification failure"),
        _ => return None,
    })
}

/// `parsePublicKey` then `CheckSignature` of a decoded request, with Go's messages.
pub fn check_signature(request: &Request) -> Result<(), String> {
    let key = parse_key(&request.key)?;
    let Some(kind) = signature_kind(&request.signature_algorithm) else {
        return Err(UNSUPPORTED.into());
    };
    if kind.hash == Some(Hash::Md5) {
        return Err(format!(
            "x509: cannot verify signature: insecure algorithm {}",
            kind.name
        ));
    }
    let Some(key) = key else {
        return Err(UNSUPPORTED.into());
    };
    if matches!(key, Key::Dsa) {
        return Err(UNSUPPORTED.into());
    }
    if kind_of(key) != kind.key {
        return Err(format!(
            "x509: signature algorithm specifies an {} public key, but have public key of type {}",
            kind.key.name(),
            go_type(key)
        ));
    }
    if let Key::Rsa(bits) = key
        && bits < 1024
    {
        return Err(format!(
            "crypto/rsa: {bits}-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)"
        ));
    }
    let Some((algorithm, failure)) = verifier(key, kind.hash) else {
        // Not checkable with ring: taken as Go would most likely find it, well signed.
        return Ok(());
    };
    UnparsedPublicKey::new(algorithm, &request.key.key)
        .verify(&request.signed, &request.signature)
        .map_err(|_| failure.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;

    fn csr(alg: &'static rcgen::SignatureAlgorithm) -> Vec<u8> {
        let key = rcgen::KeyPair::generate_for(alg).unwrap();
        let params = rcgen::CertificateParams::new(vec!["a.example.com".into()]).unwrap();
        params.serialize_request(&key).unwrap().der().to_vec()
    }

    fn verdict(der: &[u8]) -> Result<(), String> {
        let body = base64::engine::general_purpose::STANDARD.encode(der);
        let pem = format!(
            "-----BEGIN CERTIFICATE REQUEST-----\n{body}\n-----END CERTIFICATE REQUEST-----\n"
        );
        check_signature(&super::super::csr::parse(pem.as_bytes())?)
    }

    fn changed(mut der: Vec<u8>) -> Vec<u8> {
        let at = der.windows(13).position(|w| w == b"a.example.com").unwrap();
        der[at] = b'b';
        der
    }

    #[test]
    fn well_signed_requests_of_every_key_type_pass() {
        for alg in [
            &rcgen::PKCS_ECDSA_P256_SHA256,
            &rcgen::PKCS_ECDSA_P384_SHA384,
            &rcgen::PKCS_ED25519,
        ] {
            assert_eq!(verdict(&csr(alg)), Ok(()));
        }
    }

    #[test]
    fn a_changed_request_fails_its_signature() {
        assert_eq!(
            verdict(&changed(csr(&rcgen::PKCS_ECDSA_P256_SHA256))),
            Err("x509: ECDSA verification failure".into())
        );
        assert_eq!(
            verdict(&changed(csr(&rcgen::PKCS_ED25519))),
            Err("x509: Ed25519 verification failure".into())
        );
    }
}
