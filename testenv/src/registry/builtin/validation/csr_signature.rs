//! A decoded certificate request's public key and signature, checked as Go's
//! `x509.CertificateRequest.CheckSignature` does after `parsePublicKey`, with its messages:
//! RSA PKCS#1 v1.5 (SHA-1, SHA-256, SHA-384, SHA-512) and RSA-PSS (MGF1 on the message's
//! hash, salt as long as the hash) for any key size Go takes ([`super::csr::rsa_verify`]),
//! ECDSA on P-224, P-256, P-384 and P-521 with any of those hashes ([`super::csr::curve`]), Ed25519 with ring, ML-DSA-44, -65 and -87 ([`super::ml_dsa_verify`]). DSA keys
//! are parsed (and their parameters checked) as Go parses them; Go verifies no DSA
//! signature.

use ring::digest;
use ring::signature::{self, UnparsedPublicKey};

use super::csr::curve::Curve;
use super::csr::rsa_verify::{self, Padding, PublicKey as RsaKey};
use super::csr::{Algorithm, PublicKeyInfo, Request};
use super::ml_dsa::ParameterSet;
use super::ml_dsa_verify;

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
    /// `1.2.840.113549.1.1.10`, RSASSA-PSS.
    pub const RSA_PSS: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a];
    /// `1.2.840.113549.1.1.8`, MGF1.
    pub const MGF1: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08];
    /// `2.16.840.1.101.3.4.2.<n>`: the SHA-2 hashes (1 SHA-256, 2 SHA-384, 3 SHA-512).
    pub const SHA2: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02];
}

/// Go's `PublicKeyAlgorithm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Rsa,
    Dsa,
    Ecdsa,
    Ed25519,
    MlDsa,
}

impl KeyKind {
    fn name(self) -> &'static str {
        match self {
            KeyKind::Rsa => "RSA",
            KeyKind::Dsa => "DSA",
            KeyKind::Ecdsa => "ECDSA",
            KeyKind::Ed25519 => "Ed25519",
            KeyKind::MlDsa => "ML-DSA",
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

/// A known signature algorithm: Go's name, its hash (none for Ed25519 and ML-DSA), key
/// kind, whether it is RSA-PSS and its ML-DSA parameter set.
struct SignatureKind {
    name: &'static str,
    hash: Option<Hash>,
    key: KeyKind,
    pss: bool,
    ml_dsa: Option<ParameterSet>,
}

/// An `AlgorithmIdentifier`'s OID contents and parameters' encoding (empty when absent).
fn algorithm_identifier(der: &[u8]) -> Option<(&[u8], &[u8])> {
    let (seq, _) = read(der, 0x30)?;
    let (oid, params) = read(seq, 0x06)?;
    Some((oid, params))
}

/// The contents of the explicit context-specific field `[n]` at the start of `der`, and
/// what follows.
fn explicit(der: &[u8], n: u8) -> Option<(&[u8], &[u8])> {
    read(der, 0xa0 | n)
}

/// A small non-negative DER INTEGER.
fn small_int(der: &[u8]) -> Option<u64> {
    let (v, _) = read(der, 0x02)?;
    (minimal_integer(v) && v.len() <= 8 && v[0] & 0x80 == 0)
        .then(|| v.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
}

/// `getSignatureAlgorithmFromAI` for RSA-PSS: the hash of the three parameter sets Go
/// accepts (MGF1 on the same hash, a salt as long as the hash, the default trailer).
fn pss_hash(params: &[u8]) -> Option<Hash> {
    let (seq, _) = read(params, 0x30)?;
    let (hash, rest) = explicit(seq, 0)?;
    let (mgf, rest) = explicit(rest, 1)?;
    let (salt, rest) = explicit(rest, 2)?;
    let trailer = match explicit(rest, 3) {
        Some((t, _)) => small_int(t)?,
        None => 1,
    };
    let null_or_absent = |p: &[u8]| p.is_empty() || p == [0x05, 0x00];
    let (hash_oid, hash_params) = algorithm_identifier(hash)?;
    let (mgf_oid, mgf_params) = algorithm_identifier(mgf)?;
    let (mgf_hash, mgf_hash_params) = algorithm_identifier(mgf_params)?;
    if !null_or_absent(hash_params)
        || mgf_oid != oid::MGF1
        || mgf_hash != hash_oid
        || !null_or_absent(mgf_hash_params)
        || trailer != 1
    {
        return None;
    }
    match (hash_oid.strip_prefix(oid::SHA2)?, small_int(salt)?) {
        ([1], 32) => Some(Hash::Sha256),
        ([2], 48) => Some(Hash::Sha384),
        ([3], 64) => Some(Hash::Sha512),
        _ => None,
    }
}

/// `getSignatureAlgorithmFromAI`, for the algorithms Go knows (MD2 is not verified: Go's
/// answer for it is the same as for an unknown algorithm).
fn signature_kind(ai: &Algorithm) -> Option<SignatureKind> {
    let kind = |name, hash, key| {
        Some(SignatureKind {
            name,
            hash: Some(hash),
            key,
            pss: false,
            ml_dsa: None,
        })
    };
    let oid = ai.oid.as_slice();
    if oid == oid::ED25519 {
        return ai.params.is_empty().then_some(SignatureKind {
            name: "Ed25519",
            hash: None,
            key: KeyKind::Ed25519,
            pss: false,
            ml_dsa: None,
        });
    }
    if let Some(set) = ParameterSet::from_oid(oid) {
        // RFC 9881: the parameters are absent.
        return ai.params.is_empty().then_some(SignatureKind {
            name: set.name(),
            hash: None,
            key: KeyKind::MlDsa,
            pss: false,
            ml_dsa: Some(set),
        });
    }
    if oid == oid::RSA_PSS {
        let hash = pss_hash(&ai.params)?;
        return Some(SignatureKind {
            name: "RSA-PSS",
            hash: Some(hash),
            key: KeyKind::Rsa,
            pss: true,
            ml_dsa: None,
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

/// A parsed public key.
#[derive(Debug, Clone)]
pub enum Key {
    /// RSA: its modulus and exponent.
    Rsa(RsaKey),
    /// DSA (whose signatures Go does not verify).
    Dsa,
    Ecdsa(Curve),
    Ed25519,
    /// ML-DSA: its parameter set (the key is the request's key bits, of the set's length).
    MlDsa(ParameterSet),
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
    if !positive(n) {
        return Err("x509: RSA modulus is not a positive number".into());
    }
    if !positive(e) {
        return Err("x509: RSA public exponent is not a positive number".into());
    }
    let e = e.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
    Ok(Key::Rsa(RsaKey::new(n, e)))
}

/// Whether a minimal DER INTEGER's contents are above zero.
fn positive(v: &[u8]) -> bool {
    v[0] & 0x80 == 0 && v.iter().any(|b| *b != 0)
}

/// `parsePublicKey` for a DSA key: the key an INTEGER, the parameters a `SEQUENCE` starting
/// with three INTEGERs (`p`, `q`, `g`), all of them positive.
fn parse_dsa(info: &PublicKeyInfo) -> Result<Key, String> {
    let integer = |der| read(der, 0x02).filter(|(v, _)| minimal_integer(v));
    let (y, _) = integer(&info.key).ok_or("x509: invalid DSA public key")?;
    let (params, _) = read(&info.algorithm.params, 0x30).ok_or("x509: invalid DSA parameters")?;
    let (p, rest) = integer(params).ok_or("x509: invalid DSA parameters")?;
    let (q, rest) = integer(rest).ok_or("x509: invalid DSA parameters")?;
    let (g, _) = integer(rest).ok_or("x509: invalid DSA parameters")?;
    if ![y, p, q, g].into_iter().all(positive) {
        return Err("x509: zero or negative DSA parameter".into());
    }
    Ok(Key::Dsa)
}

/// `parsePublicKey` for an ECDSA key: a named curve Go knows and an uncompressed point.
fn parse_ecdsa(info: &PublicKeyInfo) -> Result<Key, String> {
    let (curve, _) = read(&info.algorithm.params, 0x06)
        .filter(|(c, _)| super::csr::der::valid_oid(c))
        .ok_or("x509: invalid ECDSA parameters")?;
    let curve = match curve {
        c if c == oid::P224 => Curve::P224,
        c if c == oid::P256 => Curve::P256,
        c if c == oid::P384 => Curve::P384,
        c if c == oid::P521 => Curve::P521,
        _ => return Err("x509: unsupported elliptic curve".into()),
    };
    // `ecdsa.ParseUncompressedPublicKey`, then the curve's `SetBytes`.
    if info.key.first() != Some(&4) {
        return Err("ecdsa: invalid uncompressed public key".into());
    }
    let len = curve.coordinate_len();
    if info.key.len() != 1 + 2 * len {
        return Err(format!("invalid {} point encoding", curve.name()));
    }
    let prime = curve.prime();
    if info.key[1..].chunks(len).any(|c| c >= prime.as_slice()) {
        return Err(format!("invalid {} element encoding", curve.name()));
    }
    if !curve.on_curve(&info.key) {
        return Err(format!("{} point not on curve", curve.name()));
    }
    Ok(Key::Ecdsa(curve))
}

/// `parsePublicKey` for the key kinds a request's signature can be checked with; `None`
/// for algorithms Go does not know (the signature check then fails).
pub fn parse_key(info: &PublicKeyInfo) -> Result<Option<Key>, String> {
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
        return parse_dsa(info).map(Some);
    }
    if let Some(set) = ParameterSet::from_oid(oid) {
        if !info.algorithm.params.is_empty() {
            return Err("x509: ML-DSA key encoded with illegal parameters".into());
        }
        if info.key.len() != set.public_key_size() {
            return Err("mldsa: invalid public key length".into());
        }
        return Ok(Some(Key::MlDsa(set)));
    }
    Ok(None)
}

/// Go's `%T` of a parsed key, for the mismatch message.
fn go_type(key: &Key) -> &'static str {
    match key {
        Key::Rsa(_) => "*rsa.PublicKey",
        Key::Dsa => "*dsa.PublicKey",
        Key::Ecdsa(_) => "*ecdsa.PublicKey",
        Key::Ed25519 => "ed25519.PublicKey",
        Key::MlDsa(_) => "*mldsa.PublicKey",
    }
}

fn kind_of(key: &Key) -> KeyKind {
    match key {
        Key::Rsa(_) => KeyKind::Rsa,
        Key::Dsa => KeyKind::Dsa,
        Key::Ecdsa(_) => KeyKind::Ecdsa,
        Key::Ed25519 => KeyKind::Ed25519,
        Key::MlDsa(_) => KeyKind::MlDsa,
    }
}

/// The digest of `data` with `hash`.
fn digest_of(hash: Hash, data: &[u8]) -> Option<digest::Digest> {
    ring_hash(hash).map(|algorithm| digest::digest(algorithm, data))
}

/// ring's algorithm for `hash` (none for MD5).
fn ring_hash(hash: Hash) -> Option<&'static digest::Algorithm> {
    match hash {
        Hash::Sha1 => Some(&digest::SHA1_FOR_LEGACY_USE_ONLY),
        Hash::Sha256 => Some(&digest::SHA256),
        Hash::Sha384 => Some(&digest::SHA384),
        Hash::Sha512 => Some(&digest::SHA512),
        Hash::Md5 => None,
    }
}

/// `CheckSignature` of a decoded request with its parsed public key ([`parse_key`]), with
/// Go's messages.
pub fn check_signature(request: &Request, key: Option<Key>) -> Result<(), String> {
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
    if kind_of(&key) != kind.key {
        return Err(format!(
            "x509: signature algorithm specifies an {} public key, but have public key of type {}",
            kind.key.name(),
            go_type(&key)
        ));
    }
    match (key, kind.hash) {
        (Key::Ecdsa(curve), Some(hash)) => {
            let digest = digest_of(hash, &request.signed).ok_or(UNSUPPORTED)?;
            if curve.verify(&request.key.key, digest.as_ref(), &request.signature) {
                Ok(())
            } else {
                Err("x509: ECDSA verification failure".into())
            }
        }
        (Key::Rsa(rsa), Some(hash)) => {
            let padding = if kind.pss {
                Padding::Pss
            } else {
                Padding::Pkcs1
            };
            let hash = ring_hash(hash).ok_or(UNSUPPORTED)?;
            rsa_verify::verify(&rsa, padding, hash, &request.signed, &request.signature)
                .map_err(|e| e.to_string())
        }
        (Key::Ed25519, None) => UnparsedPublicKey::new(&signature::ED25519, &request.key.key)
            .verify(&request.signed, &request.signature)
            .map_err(|_| "x509: Ed25519 verification failure".to_string()),
        (Key::MlDsa(set), None) => {
            if kind.ml_dsa != Some(set) {
                return Err(format!(
                    "x509: signature algorithm specifies an ML-DSA public key with {} parameters, but have a public key with {} parameters",
                    kind.name,
                    set.name()
                ));
            }
            ml_dsa_verify::verify(set, &request.key.key, &request.signed, &request.signature)
                .map_err(|e| format!("x509: ML-DSA verification failure: {e}"))
        }
        _ => Err(UNSUPPORTED.into()),
    }
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
        let request = super::super::csr::parse(pem.as_bytes())?;
        let key = parse_key(&request.key)?;
        check_signature(&request, key)
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

    /// An ML-DSA-65 request signed by OpenSSL 4.0 (`tests/fixtures/ml-dsa/signatures.json`).
    fn ml_dsa_csr() -> Vec<u8> {
        let text = include_str!("../../../../tests/fixtures/ml-dsa/signatures.json");
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        base64::engine::general_purpose::STANDARD
            .decode(json["csr_ml_dsa_65"].as_str().unwrap())
            .unwrap()
    }

    fn ml_dsa_request(der: &[u8]) -> Request {
        let body = base64::engine::general_purpose::STANDARD.encode(der);
        let pem = format!(
            "-----BEGIN CERTIFICATE REQUEST-----\n{body}\n-----END CERTIFICATE REQUEST-----\n"
        );
        super::super::csr::parse(pem.as_bytes()).unwrap()
    }

    #[test]
    fn ml_dsa_requests_are_verified() {
        let der = ml_dsa_csr();
        assert_eq!(verdict(&der), Ok(()));
        assert_eq!(
            verdict(&changed(der.clone())),
            Err("x509: ML-DSA verification failure: mldsa: invalid signature".into())
        );
        let mut request = ml_dsa_request(&der);
        request.signature.pop();
        let key = parse_key(&request.key).unwrap();
        assert_eq!(
            check_signature(&request, key),
            Err("x509: ML-DSA verification failure: mldsa: invalid signature length".into())
        );
    }

    #[test]
    fn ml_dsa_signature_algorithms_must_match_the_key() {
        let request = ml_dsa_request(&ml_dsa_csr());
        let with = |oid: &[u8], params: &[u8]| {
            let mut request = request.clone();
            request.signature_algorithm = Algorithm {
                oid: oid.to_vec(),
                params: params.to_vec(),
            };
            let key = parse_key(&request.key).unwrap();
            check_signature(&request, key).unwrap_err()
        };
        let ml_dsa = |last| [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, last];
        assert_eq!(
            with(&ml_dsa(0x11), &[]),
            "x509: signature algorithm specifies an ML-DSA public key with ML-DSA-44 parameters, but have a public key with ML-DSA-65 parameters"
        );
        assert_eq!(with(&ml_dsa(0x12), &[0x05, 0x00]), UNSUPPORTED);
        assert_eq!(
            with(&[oid::ECDSA_SHA2, &[2]].concat(), &[]),
            "x509: signature algorithm specifies an ECDSA public key, but have public key of type *mldsa.PublicKey"
        );
        // An ECDSA key under an ML-DSA signature algorithm.
        let ec = ml_dsa_request(&csr(&rcgen::PKCS_ECDSA_P256_SHA256));
        let mut ec_signed = ec.clone();
        ec_signed.signature_algorithm = request.signature_algorithm.clone();
        assert_eq!(
            check_signature(&ec_signed, parse_key(&ec.key).unwrap()),
            Err("x509: signature algorithm specifies an ML-DSA public key, but have public key of type *ecdsa.PublicKey".into())
        );
    }

    #[test]
    fn ml_dsa_keys_are_checked_for_parameters_and_length() {
        let request = ml_dsa_request(&ml_dsa_csr());
        let mut info = request.key.clone();
        assert!(matches!(
            parse_key(&info),
            Ok(Some(Key::MlDsa(ParameterSet::MlDsa65)))
        ));
        info.algorithm.params = vec![0x05, 0x00];
        assert_eq!(
            parse_key(&info).err(),
            Some("x509: ML-DSA key encoded with illegal parameters".into())
        );
        info.algorithm.params.clear();
        info.key.pop();
        assert_eq!(
            parse_key(&info).err(),
            Some("mldsa: invalid public key length".into())
        );
        // An ML-DSA-44 OID with an ML-DSA-65 key.
        let mut info = request.key.clone();
        *info.algorithm.oid.last_mut().unwrap() = 0x11;
        assert_eq!(
            parse_key(&info).err(),
            Some("mldsa: invalid public key length".into())
        );
    }

    #[test]
    fn dsa_keys_are_parsed_as_go_parses_them() {
        let info = |params: &[u8], key: &[u8]| PublicKeyInfo {
            algorithm: Algorithm {
                oid: oid::DSA.to_vec(),
                params: params.to_vec(),
            },
            key: key.to_vec(),
        };
        let params = [
            0x30, 0x09, 0x02, 0x01, 0x17, 0x02, 0x01, 0x0b, 0x02, 0x01, 0x04,
        ];
        let y = [0x02, 0x01, 0x03];
        assert!(matches!(parse_key(&info(&params, &y)), Ok(Some(Key::Dsa))));
        let error = |params: &[u8], key: &[u8]| parse_key(&info(params, key)).err();
        assert_eq!(
            error(&params, &[0x04, 0x00]),
            Some("x509: invalid DSA public key".into())
        );
        assert_eq!(
            error(&[0x05, 0x00], &y),
            Some("x509: invalid DSA parameters".into())
        );
        assert_eq!(
            error(&params[..8], &y),
            Some("x509: invalid DSA parameters".into())
        );
        assert_eq!(
            error(&params, &[0x02, 0x01, 0x00]),
            Some("x509: zero or negative DSA parameter".into())
        );
        assert_eq!(
            error(&params, &[0x02, 0x01, 0xff]),
            Some("x509: zero or negative DSA parameter".into())
        );
    }
}
