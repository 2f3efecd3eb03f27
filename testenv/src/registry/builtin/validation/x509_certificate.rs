//! A DER certificate read as Go's `x509.ParseCertificate` reads it, field by field in its
//! order and with its messages: the outer structure, the version (`[0]`, at most v3), the
//! serial number (not negative), the inner and outer signature algorithm identifiers (equal,
//! well formed), the issuer and subject names ([`super::csr::names`]), the validity times
//! (UTCTime or GeneralizedTime as Go formats them back), the public key
//! ([`super::csr_signature::parse_key`]; an ML-DSA key by its parameters and length), the
//! unique IDs (v2 and v3), the extensions (v3:
//! each one's structure, no duplicates, then the ones Go understands, see
//! [`super::x509_extensions`]), the signature's BIT STRING and no trailing data. The
//! signature itself is not verified (Go does not verify it either).

use super::csr::der::{Reader, tag, valid_bit_string, valid_int64};
use super::csr::names::{generalized_time, parse_name, utc_time};
use super::csr::{Algorithm, PublicKeyInfo};
use super::csr_signature::{Key, parse_key};
use super::x509_extensions;

/// A certificate's public key: its parsed form (`None` for an algorithm Go does not know)
/// and its bits.
pub struct Public {
    /// The parsed key.
    pub key: Option<Key>,
    /// The subject public key's bits, right-aligned.
    pub bits: Vec<u8>,
}

fn malformed(what: &str) -> String {
    format!("x509: malformed {what}")
}

/// The value of a minimal INTEGER of at most eight bytes (checked by [`valid_int64`]).
fn int64(contents: &[u8]) -> i64 {
    let negative = contents.first().is_some_and(|b| b & 0x80 != 0);
    let start: i64 = if negative { -1 } else { 0 };
    contents
        .iter()
        .fold(start, |acc, b| (acc << 8) | i64::from(*b))
}

/// `x509.ParseCertificate`: the certificate's public key, or why the certificate does not
/// parse, in Go's words.
pub fn parse(der: &[u8]) -> Result<Public, String> {
    let mut input = Reader::new(der);
    let (outer_tag, whole, contents) = input.read_any().ok_or_else(|| malformed("certificate"))?;
    if outer_tag != tag::SEQUENCE {
        return Err(malformed("certificate"));
    }
    let public = parse_contents(contents)?;
    if whole.len() != der.len() {
        return Err("x509: trailing data".into());
    }
    Ok(public)
}

/// `parseCertificate` inside the outer SEQUENCE.
fn parse_contents(contents: &[u8]) -> Result<Public, String> {
    let mut input = Reader::new(contents);
    let mut tbs = input
        .read(tag::SEQUENCE)
        .map(Reader::new)
        .ok_or_else(|| malformed("tbs certificate"))?;
    let version = read_version(&mut tbs)?;
    let serial = tbs
        .read(tag::INTEGER)
        .filter(|s| minimal_integer(s))
        .ok_or_else(|| malformed("serial number"))?;
    if serial[0] & 0x80 != 0 {
        return Err("x509: negative serial number".into());
    }
    let inner_algorithm = tbs
        .read(tag::SEQUENCE)
        .ok_or_else(|| malformed("signature algorithm identifier"))?;
    let outer_algorithm = input
        .read(tag::SEQUENCE)
        .ok_or_else(|| malformed("algorithm identifier"))?;
    if inner_algorithm != outer_algorithm {
        return Err("x509: inner and outer signature algorithm identifiers don't match".into());
    }
    parse_algorithm(inner_algorithm)?;
    let issuer = read_element(&mut tbs, tag::SEQUENCE).ok_or_else(|| malformed("issuer"))?;
    parse_name(issuer)?;
    let validity = tbs
        .read(tag::SEQUENCE)
        .ok_or_else(|| malformed("validity"))?;
    let mut validity = Reader::new(validity);
    read_time(&mut validity)?;
    read_time(&mut validity)?;
    // Go names the subject "issuer" in this message.
    let subject = read_element(&mut tbs, tag::SEQUENCE).ok_or_else(|| malformed("issuer"))?;
    parse_name(subject)?;
    let public = read_public_key(&mut tbs)?;
    if version > 1 {
        for (unique_id, what) in [(0x81, "issuerUniqueID"), (0x82, "subjectUniqueID")] {
            if tbs.peek(unique_id) && tbs.read(unique_id).is_none() {
                return Err(malformed(what));
            }
        }
        if version == 3 && tbs.peek(0xa3) {
            let extensions = tbs
                .read(0xa3)
                .and_then(|e| Reader::new(e).read(tag::SEQUENCE))
                .ok_or_else(|| malformed("extensions"))?;
            x509_extensions::check(extensions)?;
        }
    }
    input
        .read(tag::BIT_STRING)
        .filter(|s| valid_bit_string(s))
        .ok_or_else(|| malformed("signature"))?;
    Ok(public)
}

/// `ReadOptionalASN1Integer` of the explicit `[0]` version, one-indexed as Go keeps it.
fn read_version(tbs: &mut Reader) -> Result<i64, String> {
    let mut version = 0;
    if tbs.peek(0xa0) {
        let mut inner = tbs
            .read(0xa0)
            .map(Reader::new)
            .ok_or_else(|| malformed("version"))?;
        let value = inner
            .read(tag::INTEGER)
            .filter(|v| valid_int64(v) && inner.is_empty())
            .ok_or_else(|| malformed("version"))?;
        version = int64(value);
    }
    if version < 0 {
        return Err(malformed("version"));
    }
    if version >= 3 {
        return Err("x509: invalid version".into());
    }
    Ok(version + 1)
}

/// `ReadASN1Element`: the next element's whole encoding, which must have `tag`.
fn read_element<'a>(reader: &mut Reader<'a>, want: u8) -> Option<&'a [u8]> {
    let mut copy = *reader;
    let (t, whole, _) = copy.read_any()?;
    (t == want).then(|| {
        *reader = copy;
        whole
    })
}

/// Whether INTEGER contents are what cryptobyte reads into a `big.Int`.
fn minimal_integer(v: &[u8]) -> bool {
    !v.is_empty()
        && !(v.len() > 1 && ((v[0] == 0 && v[1] & 0x80 == 0) || (v[0] == 0xff && v[1] & 0x80 != 0)))
}

/// `parseAI`: an OBJECT IDENTIFIER and, when anything follows, one element of parameters.
fn parse_algorithm(contents: &[u8]) -> Result<Algorithm, String> {
    let mut reader = Reader::new(contents);
    let oid = reader.read_oid().ok_or("x509: malformed OID")?;
    let mut params = Vec::new();
    if !reader.is_empty() {
        let (_, whole, _) = reader.read_any().ok_or("x509: malformed parameters")?;
        params = whole.to_vec();
    }
    Ok(Algorithm {
        oid: oid.to_vec(),
        params,
    })
}

/// `readASN1Time`: a UTCTime or a GeneralizedTime.
fn read_time(reader: &mut Reader) -> Result<(), String> {
    if reader.peek(tag::UTC_TIME) {
        return reader
            .read(tag::UTC_TIME)
            .filter(|t| utc_time(t))
            .map(drop)
            .ok_or_else(|| malformed("UTCTime"));
    }
    if reader.peek(tag::GENERALIZED_TIME) {
        return reader
            .read(tag::GENERALIZED_TIME)
            .filter(|t| generalized_time(t))
            .map(drop)
            .ok_or_else(|| malformed("GeneralizedTime"));
    }
    Err("x509: unsupported time format".into())
}

/// The subject public key info: its algorithm, its bits and the key Go parses from them.
fn read_public_key(tbs: &mut Reader) -> Result<Public, String> {
    let mut spki = tbs
        .read(tag::SEQUENCE)
        .map(Reader::new)
        .ok_or_else(|| malformed("spki"))?;
    let algorithm = spki
        .read(tag::SEQUENCE)
        .ok_or_else(|| malformed("public key algorithm identifier"))?;
    let algorithm = parse_algorithm(algorithm)?;
    let bits = spki
        .read(tag::BIT_STRING)
        .filter(|b| valid_bit_string(b))
        .ok_or_else(|| malformed("subjectPublicKey"))?;
    let info = PublicKeyInfo {
        algorithm,
        key: super::csr::asn1::bit_string(bits)?,
    };
    let key = parse_key(&info)?;
    Ok(Public {
        key,
        bits: info.key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tlv(t: u8, contents: &[u8]) -> Vec<u8> {
        assert!(contents.len() < 0x80);
        [vec![t, contents.len() as u8], contents.to_vec()].concat()
    }

    #[test]
    fn versions_and_times_are_read_as_go_reads_them() {
        let mut reader = Reader::new(&[0xa0, 0x03, 0x02, 0x01, 0x02]);
        assert_eq!(read_version(&mut reader), Ok(3));
        let mut reader = Reader::new(&[0xa0, 0x03, 0x02, 0x01, 0x03]);
        assert_eq!(
            read_version(&mut reader).err().as_deref(),
            Some("x509: invalid version")
        );
        let mut reader = Reader::new(&[0xa0, 0x03, 0x02, 0x01, 0xff]);
        assert_eq!(
            read_version(&mut reader).err().as_deref(),
            Some("x509: malformed version")
        );
        let utc = tlv(0x17, b"250101000000Z");
        assert_eq!(read_time(&mut Reader::new(&utc)), Ok(()));
        let fraction = tlv(0x18, b"20990101000000.5Z");
        assert_eq!(
            read_time(&mut Reader::new(&fraction)).err().as_deref(),
            Some("x509: malformed GeneralizedTime")
        );
        assert_eq!(
            read_time(&mut Reader::new(b"")).err().as_deref(),
            Some("x509: unsupported time format")
        );
    }

    #[test]
    fn algorithm_identifiers_get_go_messages() {
        assert_eq!(
            parse_algorithm(&[0x06, 0x01, 0x80]).err().as_deref(),
            Some("x509: malformed OID")
        );
        assert_eq!(
            parse_algorithm(&[0x06, 0x01, 0x2a, 0x05]).err().as_deref(),
            Some("x509: malformed parameters")
        );
        assert_eq!(
            parse_algorithm(&[0x06, 0x01, 0x2a, 0x05, 0x00, 0x05, 0x00]).map(|a| a.params),
            Ok(vec![0x05, 0x00])
        );
    }
}
