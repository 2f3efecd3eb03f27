//! An EC private key read as Go 1.27's `x509` reads it (`parseECPrivateKey`, for SEC 1 keys
//! and the ones a PKCS#8 wrapping holds): the `ecPrivateKey` structure as `encoding/asn1`
//! decodes it (its explicit, optional `[0]` curve and `[1]` public key included), the
//! version, the curve (the wrapping's first), the scalar's length and value, each failure
//! with Go's message; then the public point derived from the scalar.

use p256::elliptic_curve::sec1::ToEncodedPoint;

use super::csr::asn1::{Expect, bit_string, check_oid, field, header, structure, syntax};
use super::csr::curve::Curve;

/// DER contents of the curve OIDs Go knows.
mod oid {
    pub const P224: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x21];
    pub const P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
    pub const P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
    pub const P521: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x23];
}

/// The order of each curve, big-endian.
fn order(curve: Curve) -> Vec<u8> {
    let hex = match curve {
        Curve::P224 => "ffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3d",
        Curve::P256 => "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
        Curve::P384 => {
            "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973"
        }
        Curve::P521 => {
            "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409"
        }
    };
    (0..hex.len())
        .step_by(2)
        .filter_map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect()
}

fn curve_of(oid: &[u8]) -> Option<Curve> {
    match oid {
        c if c == oid::P224 => Some(Curve::P224),
        c if c == oid::P256 => Some(Curve::P256),
        c if c == oid::P384 => Some(Curve::P384),
        c if c == oid::P521 => Some(Curve::P521),
        _ => None,
    }
}

/// The decoded `ecPrivateKey`: version, scalar and the curve OID of `[0]` (if any).
struct Decoded<'a> {
    version: i64,
    scalar: &'a [u8],
    curve: Option<&'a [u8]>,
}

/// An explicit, optional field (`asn1:"optional,explicit,tag:n"`) at `at`: the inner
/// element's contents when it is there and of the expected type, and the offset after it.
fn explicit(
    body: &[u8],
    at: usize,
    number: usize,
    expect: Expect,
) -> Result<(Option<&[u8]>, usize), String> {
    if at == body.len() {
        return Ok((None, at));
    }
    let (h, start) = header(body, at)?;
    if start == body.len() {
        return Err(structure("explicit tag has no child"));
    }
    if !(h.class == 2 && h.tag == number && (h.length == 0 || h.compound)) {
        return Ok((None, at));
    }
    if h.length == 0 {
        return Err(structure("zero length explicit tag was not an asn1.Flag"));
    }
    let (inner, contents) = header(body, start)?;
    let (tag, primitive) = match expect {
        Expect::Oid => (6, true),
        _ => (3, true),
    };
    if !(inner.class == 0 && inner.tag == tag && inner.compound != primitive) {
        return Ok((None, at));
    }
    let end = contents
        .checked_add(inner.length)
        .filter(|e| *e <= body.len())
        .ok_or_else(|| syntax("data truncated"))?;
    let value = &body[contents..end];
    match expect {
        Expect::Oid => check_oid(value)?,
        _ => {
            bit_string(value)?;
        }
    }
    Ok((Some(value), end))
}

/// `asn1.Unmarshal(der, &ecPrivateKey{})`.
fn decode(der: &[u8]) -> Result<Decoded<'_>, String> {
    let (outer, _) = field(der, 0, Expect::Struct("ecPrivateKey"))?;
    let body = outer.inner;
    let (version, at) = field(body, 0, Expect::Int)?;
    let (scalar, at) = field(body, at, Expect::OctetString)?;
    let (curve, at) = explicit(body, at, 0, Expect::Oid)?;
    explicit(body, at, 1, Expect::BitString)?;
    let negative = version.inner.first().is_some_and(|b| b & 0x80 != 0);
    let start: i64 = if negative { -1 } else { 0 };
    Ok(Decoded {
        version: version
            .inner
            .iter()
            .fold(start, |acc, b| (acc << 8) | i64::from(*b)),
        scalar: scalar.inner,
        curve,
    })
}

/// Whether `der` decodes as an `ecPrivateKey` structure.
pub fn is_structure(der: &[u8]) -> bool {
    decode(der).is_ok()
}

/// `parseECPrivateKey`: the curve and the uncompressed public point, or why the key is
/// refused. `wrapped_curve` is the PKCS#8 wrapping's parameters (an OID Go reads first);
/// `hint` names the format of a key that is not an `ecPrivateKey`.
pub fn parse(
    der: &[u8],
    wrapped_curve: Option<&[u8]>,
    hint: impl Fn(&[u8]) -> Option<String>,
) -> Result<(Curve, Vec<u8>), String> {
    let key = match decode(der) {
        Ok(key) => key,
        Err(e) => {
            return Err(
                hint(der).unwrap_or_else(|| format!("x509: failed to parse EC private key: {e}"))
            );
        }
    };
    if key.version != 1 {
        return Err(format!(
            "x509: unknown EC private key version {}",
            key.version
        ));
    }
    let curve = match wrapped_curve {
        Some(oid) => curve_of(oid),
        None => key.curve.and_then(curve_of),
    }
    .ok_or("x509: unknown elliptic curve")?;
    let order = order(curve);
    let mut scalar = key.scalar;
    while scalar.len() > order.len() {
        if scalar[0] != 0 {
            return Err("x509: invalid private key length".into());
        }
        scalar = &scalar[1..];
    }
    let mut padded = vec![0u8; order.len() - scalar.len()];
    padded.extend_from_slice(scalar);
    if padded >= order {
        return Err("input overflows the modulus".into());
    }
    if padded.iter().all(|b| *b == 0) {
        return Err("ecdsa: invalid public key encoding".into());
    }
    macro_rules! point {
        ($curve:ident) => {{
            let secret = $curve::SecretKey::from_slice(&padded)
                .map_err(|_| "ecdsa: invalid private key".to_string())?;
            secret
                .public_key()
                .to_encoded_point(false)
                .as_bytes()
                .to_vec()
        }};
    }
    let point = match curve {
        Curve::P224 => point!(p224),
        Curve::P256 => point!(p256),
        Curve::P384 => point!(p384),
        Curve::P521 => point!(p521),
    };
    Ok((curve, point))
}

/// The curve OID of a PKCS#8 wrapping's parameters, when they decode as one
/// (`asn1.Unmarshal(params, &asn1.ObjectIdentifier{})`).
pub fn wrapped_curve(params: &[u8]) -> Option<&[u8]> {
    if params.is_empty() {
        return None;
    }
    field(params, 0, Expect::Oid).ok().map(|(f, _)| f.inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tlv(t: u8, contents: &[u8]) -> Vec<u8> {
        [vec![t, contents.len() as u8], contents.to_vec()].concat()
    }

    fn key(version: u8, scalar: &[u8], rest: &[u8]) -> Vec<u8> {
        tlv(
            0x30,
            &[tlv(0x02, &[version]), tlv(0x04, scalar), rest.to_vec()].concat(),
        )
    }

    fn err(der: &[u8]) -> Option<String> {
        parse(der, Some(oid::P256), |_| None).err()
    }

    #[test]
    fn keys_get_go_messages() {
        let mut scalar = [0u8; 32];
        scalar[31] = 7;
        assert_eq!(err(&key(1, &scalar, b"")), None);
        assert_eq!(err(&key(1, &scalar[20..], b"")), None);
        assert_eq!(
            err(&key(2, &scalar, b"")).as_deref(),
            Some("x509: unknown EC private key version 2")
        );
        assert_eq!(
            err(&key(1, &[1u8; 33], b"")).as_deref(),
            Some("x509: invalid private key length")
        );
        assert_eq!(
            err(&key(1, &[0xff; 32], b"")).as_deref(),
            Some("input overflows the modulus")
        );
        assert_eq!(
            err(&key(1, &[0; 32], b"")).as_deref(),
            Some("ecdsa: invalid public key encoding")
        );
        assert_eq!(
            err(&key(1, &scalar, &[0x05, 0x00])).as_deref(),
            Some(
                "x509: failed to parse EC private key: asn1: structure error: explicit tag has no child"
            )
        );
        assert_eq!(
            err(&key(1, &scalar, &[0xa0, 0x00, 0x05, 0x00])).as_deref(),
            Some(
                "x509: failed to parse EC private key: asn1: structure error: zero length explicit tag was not an asn1.Flag"
            )
        );
        assert_eq!(
            err(&key(1, &scalar, &[0xa0, 0x03, 0x06, 0x05, 0x2a])).as_deref(),
            Some("x509: failed to parse EC private key: asn1: syntax error: data truncated")
        );
        assert_eq!(
            parse(&key(1, &scalar, b""), None, |_| None)
                .err()
                .as_deref(),
            Some("x509: unknown elliptic curve")
        );
        let named = tlv(0xa0, &tlv(0x06, oid::P256));
        assert!(parse(&key(1, &scalar, &named), None, |_| None).is_ok());
    }
}
