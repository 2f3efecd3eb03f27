//! A TLS private key read as Go 1.27's `tls.X509KeyPair` reads it (`parsePrivateKey`):
//! PKCS#8 first, then PKCS#1 ([`super::rsa_private_key`]), then SEC 1
//! ([`super::ec_private_key`]); a key none of them reads gets the PKCS#8 error, with the
//! hints Go's parsers give for a key of another format, and a PKCS#8 key TLS does not sign
//! with (X25519) is refused as such. An ML-DSA key is read in its seed form only (the
//! expanded and both-forms encodings get Go's refusals), and its public key is derived from
//! the seed ([`super::ml_dsa`]). What is kept of a key is what its public part is compared
//! by.

use ring::signature::KeyPair;

use super::csr::asn1::{Expect, field};
use super::csr::curve::Curve;
use super::csr::der::Reader;
use super::ml_dsa::{self, ParameterSet};
use super::{ec_private_key, rsa_private_key};

/// DER contents of the key algorithm OIDs a private key names.
mod oid {
    pub const RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
    pub const EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
    pub const ED25519: &[u8] = &[0x2b, 0x65, 0x70];
    pub const X25519: &[u8] = &[0x2b, 0x65, 0x6e];
}

/// A private key: what its public part is compared by.
pub enum Private {
    /// RSA: the modulus (no leading zeros).
    Rsa(Vec<u8>),
    /// ECDSA: the curve and the uncompressed public point.
    Ecdsa(Curve, Vec<u8>),
    /// Ed25519: the public key.
    Ed25519(Vec<u8>),
    /// ML-DSA: the parameter set and the public key its seed derives.
    MlDsa(ParameterSet, Vec<u8>),
    /// A PKCS#8 key of a type TLS does not sign with (X25519).
    Unusable,
}

/// `tls.parsePrivateKey`: the key, or Go's error (the PKCS#8 one when no format reads it).
pub fn parse(der: &[u8]) -> Result<Private, String> {
    let wrapped = pkcs8(der);
    match wrapped {
        Ok(Private::Unusable) => {
            return Err("tls: found unknown private key type in PKCS#8 wrapping".into());
        }
        Ok(key) => return Ok(key),
        Err(_) => {}
    }
    if let Ok(n) = rsa_private_key::parse(der, ec_hint) {
        return Ok(Private::Rsa(n.to_be()));
    }
    if let Ok((curve, point)) = ec_private_key::parse(der, None, |_| None) {
        return Ok(Private::Ecdsa(curve, point));
    }
    wrapped.map_err(|e| format!("tls: failed to parse private key: {e}"))
}

const USE_EC: &str =
    "x509: failed to parse private key (use ParseECPrivateKey instead for this key format)";
const USE_PKCS1: &str =
    "x509: failed to parse private key (use ParsePKCS1PrivateKey instead for this key format)";
const USE_PKCS8: &str =
    "x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)";

/// The hint of Go's PKCS#1 parser for an EC key.
fn ec_hint(der: &[u8]) -> Option<String> {
    ec_private_key::is_structure(der).then(|| USE_EC.to_string())
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
            if ec_private_key::is_structure(der) {
                return Err(USE_EC.into());
            }
            if rsa_private_key::is_pkcs1_structure(der) {
                return Err(USE_PKCS1.into());
            }
            return Err(e);
        }
    };
    if oid == oid::RSA {
        let other_format = |der: &[u8]| {
            ec_hint(der).or_else(|| pkcs8_parts(der).ok().map(|_| USE_PKCS8.to_string()))
        };
        return rsa_private_key::parse(key, other_format)
            .map(|n| Private::Rsa(n.to_be()))
            .map_err(|e| format!("x509: failed to parse RSA private key embedded in PKCS#8: {e}"));
    }
    if oid == oid::EC {
        let other_format = |der: &[u8]| {
            if pkcs8_parts(der).is_ok() {
                return Some(USE_PKCS8.to_string());
            }
            rsa_private_key::is_pkcs1_structure(der).then(|| USE_PKCS1.to_string())
        };
        return ec_private_key::parse(key, ec_private_key::wrapped_curve(params), other_format)
            .map(|(curve, point)| Private::Ecdsa(curve, point))
            .map_err(|e| format!("x509: failed to parse EC private key embedded in PKCS#8: {e}"));
    }
    if oid == oid::ED25519 {
        let seed = Reader::new(key)
            .read(0x04)
            .ok_or("x509: invalid Ed25519 private key")?;
        let pair = ring::signature::Ed25519KeyPair::from_seed_unchecked(seed)
            .map_err(|_| format!("x509: invalid Ed25519 private key length: {}", seed.len()))?;
        return Ok(Private::Ed25519(pair.public_key().as_ref().to_vec()));
    }
    if let Some(set) = ParameterSet::from_oid(oid) {
        return ml_dsa_seed(set, params, key);
    }
    if oid == oid::X25519 {
        if !params.is_empty() {
            return Err("x509: invalid X25519 private key parameters".into());
        }
        let (scalar, _) = field(key, 0, Expect::OctetString)
            .map_err(|e| format!("x509: invalid X25519 private key: {e}"))?;
        if scalar.inner.len() != 32 {
            return Err("crypto/ecdh: invalid private key size".into());
        }
        return Ok(Private::Unusable);
    }
    Err(format!(
        "x509: PKCS#8 wrapping contained private key with unknown algorithm: {}",
        dotted(oid)
    ))
}

/// An ML-DSA key in PKCS#8 (RFC 9881's `ML-DSA-PrivateKey` CHOICE), read as Go 1.27
/// reads it: only the seed form (`[0] IMPLICIT OCTET STRING` of 32 bytes), told by its
/// first byte before its length is checked.
fn ml_dsa_seed(set: ParameterSet, params: &[u8], key: &[u8]) -> Result<Private, String> {
    if !params.is_empty() {
        return Err("x509: invalid ML-DSA private key parameters".into());
    }
    match key.first() {
        None => return Err("x509: invalid ML-DSA private key length: 0".into()),
        Some(0x80) => {}
        Some(0x04) => {
            return Err(
                "x509: semi-expanded ML-DSA private keys without seed are not supported".into(),
            );
        }
        Some(0x30) => {
            return Err("x509: ML-DSA private keys with both seed and expanded key are not supported, use e.g. \"openssl pkey -provparam ml-dsa.output_formats=seed-only\" to convert to a seed-only key".into());
        }
        Some(other) => {
            return Err(format!(
                "x509: invalid ML-DSA private key: invalid ASN.1 tag {other:02x}"
            ));
        }
    }
    let seed: &[u8; 32] = match key {
        [_, length, seed @ ..] if seed.len() == 32 => {
            if *length != 32 {
                return Err("x509: invalid ML-DSA private key ASN.1 encoding".into());
            }
            seed.try_into()
                .map_err(|_| "x509: invalid ML-DSA private key ASN.1 encoding".to_string())?
        }
        _ => {
            return Err(format!(
                "x509: invalid ML-DSA private key length: {}",
                key.len()
            ));
        }
    };
    Ok(Private::MlDsa(set, ml_dsa::public_key_from_seed(set, seed)))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A PKCS#8 ML-DSA-44 key whose private key OCTET STRING holds `inner`.
    fn ml_dsa_44(inner: &[u8]) -> Vec<u8> {
        let oid = [
            0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x11,
        ];
        let mut body = vec![0x02, 0x01, 0x00, 0x30, oid.len() as u8];
        body.extend(oid);
        body.extend([0x04, inner.len() as u8]);
        body.extend(inner);
        let mut der = vec![0x30, body.len() as u8];
        der.extend(body);
        der
    }

    fn error(inner: &[u8]) -> String {
        match parse(&ml_dsa_44(inner)) {
            Err(e) => e
                .trim_start_matches("tls: failed to parse private key: ")
                .into(),
            Ok(_) => "loaded".into(),
        }
    }

    #[test]
    fn ml_dsa_keys_load_from_their_seed_only() {
        let seed = [&[0x80, 0x20][..], &[1; 32]].concat();
        match parse(&ml_dsa_44(&seed)) {
            Ok(Private::MlDsa(ParameterSet::MlDsa44, key)) => {
                assert_eq!(
                    key,
                    ml_dsa::public_key_from_seed(ParameterSet::MlDsa44, &[1; 32])
                );
            }
            _ => panic!("the seed form does not load"),
        }
        assert_eq!(error(&[]), "x509: invalid ML-DSA private key length: 0");
        assert!(error(&[0x04, 0x00]).starts_with("x509: semi-expanded"));
        assert!(error(&[0x30, 0x00]).starts_with("x509: ML-DSA private keys with both"));
        assert_eq!(
            error(&[0x81, 0x00]),
            "x509: invalid ML-DSA private key: invalid ASN.1 tag 81"
        );
        assert_eq!(
            error(&seed[..33]),
            "x509: invalid ML-DSA private key length: 33"
        );
        let mut wrong_length = seed.clone();
        wrong_length[1] = 0x21;
        assert_eq!(
            error(&wrong_length),
            "x509: invalid ML-DSA private key ASN.1 encoding"
        );
    }
}
