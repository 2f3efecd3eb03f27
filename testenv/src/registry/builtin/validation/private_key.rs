//! A TLS private key read as Go 1.27's `tls.X509KeyPair` reads it (`parsePrivateKey`):
//! PKCS#8 first, then PKCS#1 ([`super::rsa_private_key`]), then SEC 1; a key none of them
//! reads gets the PKCS#8 error, with the hints Go's PKCS#8 parser gives for a PKCS#1 or
//! SEC 1 structure. What is kept of a key is what its public part is compared by.

use p256::elliptic_curve::sec1::ToEncodedPoint;
use ring::signature::KeyPair;

use super::csr::asn1::{Expect, field, header};
use super::csr::der::{Reader, tag};
use super::csr_signature::Curve;
use super::rsa_private_key;

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

/// A private key: what its public part is compared by.
pub enum Private {
    /// RSA: the modulus (no leading zeros).
    Rsa(Vec<u8>),
    /// ECDSA: the curve and the uncompressed public point.
    Ecdsa(Curve, Vec<u8>),
    /// Ed25519: the public key.
    Ed25519(Vec<u8>),
}

/// `tls.parsePrivateKey`: the key, or the PKCS#8 error when no format reads it.
pub fn parse(der: &[u8]) -> Result<Private, String> {
    let wrapped = pkcs8(der);
    if wrapped.is_ok() {
        return wrapped;
    }
    if let Ok(n) = rsa_private_key::parse(der, hint) {
        return Ok(Private::Rsa(n.to_be()));
    }
    if let Some(key) = sec1(der, None) {
        return Ok(key);
    }
    wrapped
}

/// Whether `der` decodes as an `ecPrivateKey` structure (a version, the key's OCTET STRING,
/// an optional explicit `[0]` curve OID and `[1]` public key).
fn is_ec_structure(der: &[u8]) -> bool {
    let check = || -> Result<(), String> {
        let (outer, _) = field(der, 0, Expect::Struct("ecPrivateKey"))?;
        let body = outer.inner;
        let (_, at) = field(body, 0, Expect::Int)?;
        let (_, mut at) = field(body, at, Expect::OctetString)?;
        for (number, expect) in [(0, Expect::Oid), (1, Expect::BitString)] {
            if at == body.len() {
                break;
            }
            let (h, start) = header(body, at)?;
            if h.class == 2 && h.tag == number {
                let end = start + h.length;
                let inner = body.get(start..end).ok_or("data truncated")?;
                field(inner, 0, expect)?;
                at = end;
            }
        }
        Ok(())
    };
    check().is_ok()
}

/// The hint Go gives when a key meant for one parser is given to another.
fn hint(der: &[u8]) -> Option<String> {
    if is_ec_structure(der) {
        return Some(
            "x509: failed to parse private key (use ParseECPrivateKey instead for this key format)"
                .into(),
        );
    }
    None
}

/// The parts of a PKCS#8 structure: the algorithm's OID contents, its parameters' whole
/// encoding and the wrapped key.
type Pkcs8Parts<'a> = (&'a [u8], &'a [u8], &'a [u8]);

/// `asn1.Unmarshal(der, &pkcs8{})`.
fn pkcs8_parts(der: &[u8]) -> Result<Pkcs8Parts<'_>, String> {
    let (outer, _) = field(der, 0, Expect::Struct("pkcs8"))?;
    let (_, at) = field(outer.inner, 0, Expect::Int)?;
    let (algorithm, at) = field(outer.inner, at, Expect::Struct("AlgorithmIdentifier"))?;
    let (oid, next) = field(algorithm.inner, 0, Expect::Oid)?;
    let (params, _) = field(algorithm.inner, next, Expect::Any { optional: true })?;
    let (key, _) = field(outer.inner, at, Expect::OctetString)?;
    Ok((oid.inner, params.full, key.inner))
}

/// `x509.ParsePKCS8PrivateKey`, with Go's `encoding/asn1` messages for its structure.
fn pkcs8(der: &[u8]) -> Result<Private, String> {
    let (oid, params, key) = match pkcs8_parts(der) {
        Ok(parts) => parts,
        Err(e) => {
            if let Some(hint) = hint(der) {
                return Err(hint);
            }
            if rsa_private_key::is_pkcs1_structure(der) {
                return Err("x509: failed to parse private key (use ParsePKCS1PrivateKey instead for this key format)".into());
            }
            return Err(e);
        }
    };
    if oid == oid::RSA {
        let pkcs8_hint = |der: &[u8]| {
            hint(der).or_else(|| {
                pkcs8_parts(der).ok().map(|_| {
                    "x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)".to_string()
                })
            })
        };
        return rsa_private_key::parse(key, pkcs8_hint)
            .map(|n| Private::Rsa(n.to_be()))
            .map_err(|e| format!("x509: failed to parse RSA private key embedded in PKCS#8: {e}"));
    }
    if oid == oid::EC {
        let curve = Reader::new(params).read_oid();
        return sec1(key, curve)
            .ok_or_else(|| "x509: failed to parse EC private key embedded in PKCS#8".to_string());
    }
    if oid == oid::ED25519 {
        let seed = Reader::new(key)
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
