//! A certificate's extensions read as Go's `x509.ParseCertificate` reads them: each
//! extension's structure (`parseExtension`), no OID twice, then `processExtensions`: the
//! extensions Go understands parsed in their order, each failure with Go's message. Name
//! constraints are read by [`super::x509_name_constraints`], subject alternative names by
//! [`super::csr::names::parse_san`]. An unknown extension, critical or not, is no error.

use super::csr::der::{Reader, tag, valid_bit_string, valid_bool, valid_int64};
use super::csr::names::parse_san;
use super::x509_name_constraints;

/// `1.3.6.1.5.5.7.1.1`, authority information access.
const AUTHORITY_INFO_ACCESS: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01];

/// One extension: its OID, whether it is critical and its value.
struct Extension<'a> {
    id: &'a [u8],
    critical: bool,
    value: &'a [u8],
}

/// The arcs of an OID cryptobyte has read (each at most 31 bits), as `asn1.ObjectIdentifier`
/// holds them.
fn arcs(oid: &[u8]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut value: u64 = 0;
    for &b in oid {
        value = (value << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            if out.is_empty() {
                let first = (value / 40).min(2);
                out.push(first);
                out.push(value - first * 40);
            } else {
                out.push(value);
            }
            value = 0;
        }
    }
    out
}

/// An OID's dotted form (`asn1.ObjectIdentifier.String`).
fn dotted(oid: &[u8]) -> String {
    arcs(oid)
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

/// `parseExtension`: the OID, an optional critical BOOLEAN and the OCTET STRING value.
fn parse_extension<'a>(der: &'a [u8]) -> Result<Extension<'a>, String> {
    let mut reader = Reader::new(der);
    let id = reader
        .read_oid()
        .ok_or("x509: malformed extension OID field")?;
    let mut critical = false;
    if reader.peek(tag::BOOLEAN) {
        let value = reader
            .read(tag::BOOLEAN)
            .filter(|v| valid_bool(v))
            .ok_or("x509: malformed extension critical field")?;
        critical = value == [0xff];
    }
    let value = reader
        .read(0x04)
        .ok_or("x509: malformed extension value field")?;
    Ok(Extension {
        id,
        critical,
        value,
    })
}

/// The extensions of a v3 certificate (the contents of their SEQUENCE): each read, no
/// OID twice, then the known ones parsed.
pub fn check(sequence: &[u8]) -> Result<(), String> {
    let mut reader = Reader::new(sequence);
    let mut extensions: Vec<Extension> = Vec::new();
    while !reader.is_empty() {
        let der = reader
            .read(tag::SEQUENCE)
            .ok_or("x509: malformed extension")?;
        let extension = parse_extension(der)?;
        let name = dotted(extension.id);
        if extensions.iter().any(|e| dotted(e.id) == name) {
            return Err(format!(
                "x509: certificate contains duplicate extension with OID \"{name}\""
            ));
        }
        extensions.push(extension);
    }
    extensions.iter().try_for_each(process)
}

/// One extension of `processExtensions`.
fn process(extension: &Extension) -> Result<(), String> {
    let value = extension.value;
    if extension.id == AUTHORITY_INFO_ACCESS {
        if extension.critical {
            return Err("x509: authority info access incorrectly marked critical".into());
        }
        return authority_info_access(value)
            .ok_or_else(|| "x509: invalid authority info access".into());
    }
    let arcs = arcs(extension.id);
    let [2, 5, 29, number] = arcs.as_slice() else {
        return Ok(());
    };
    let fail = |what: &str| format!("x509: invalid {what}");
    match number {
        15 => {
            Reader::new(value)
                .read(tag::BIT_STRING)
                .filter(|b| valid_bit_string(b))
                .ok_or_else(|| fail("key usage"))?;
        }
        19 => basic_constraints(value).ok_or_else(|| fail("basic constraints"))?,
        17 => parse_san(value)?,
        30 => x509_name_constraints::check(value)?,
        31 => crl_distribution_points(value)?,
        35 => {
            if extension.critical {
                return Err("x509: authority key identifier incorrectly marked critical".into());
            }
            let mut key_id = Reader::new(value)
                .read(tag::SEQUENCE)
                .map(Reader::new)
                .ok_or_else(|| fail("authority key identifier"))?;
            if key_id.peek(0x80) && key_id.read(0x80).is_none() {
                return Err(fail("authority key identifier"));
            }
        }
        36 => policy_constraints(value).ok_or_else(|| fail("policy constraints extension"))?,
        37 => {
            let mut usages = Reader::new(value)
                .read(tag::SEQUENCE)
                .map(Reader::new)
                .ok_or_else(|| fail("extended key usages"))?;
            while !usages.is_empty() {
                usages
                    .read_oid()
                    .ok_or_else(|| fail("extended key usages"))?;
            }
        }
        14 => {
            if extension.critical {
                return Err("x509: subject key identifier incorrectly marked critical".into());
            }
            Reader::new(value)
                .read(0x04)
                .ok_or_else(|| fail("subject key identifier"))?;
        }
        32 => certificate_policies(value).ok_or_else(|| fail("certificate policies"))?,
        33 => policy_mappings(value).ok_or_else(|| fail("policy mappings extension"))?,
        54 => {
            Reader::new(value)
                .read(tag::INTEGER)
                .filter(|v| valid_int64(v))
                .ok_or_else(|| fail("inhibit any policy extension"))?;
        }
        _ => {}
    }
    Ok(())
}

/// `parseBasicConstraintsExtension`: a SEQUENCE, an optional BOOLEAN, an optional
/// non-negative INTEGER that fits a Go `int`.
fn basic_constraints(value: &[u8]) -> Option<()> {
    let mut reader = Reader::new(Reader::new(value).read(tag::SEQUENCE)?);
    if reader.peek(tag::BOOLEAN) {
        reader.read(tag::BOOLEAN).filter(|v| valid_bool(v))?;
    }
    if reader.peek(tag::INTEGER) {
        let v = reader.read(tag::INTEGER).filter(|v| valid_int64(v))?;
        (v[0] & 0x80 == 0).then_some(())?;
    }
    Some(())
}

/// The CRL distribution points: the URIs of each point's full name.
fn crl_distribution_points(value: &[u8]) -> Result<(), String> {
    const POINT: &str = "x509: invalid CRL distribution point";
    let mut points = Reader::new(value)
        .read(tag::SEQUENCE)
        .map(Reader::new)
        .ok_or("x509: invalid CRL distribution points")?;
    while !points.is_empty() {
        let mut point = points.read(tag::SEQUENCE).map(Reader::new).ok_or(POINT)?;
        if !point.peek(0xa0) {
            continue;
        }
        let name = point.read(0xa0).ok_or(POINT)?;
        let mut full = Reader::new(name).read(0xa0).map(Reader::new).ok_or(POINT)?;
        while full.peek(0x86) {
            full.read(0x86).ok_or(POINT)?;
        }
    }
    Ok(())
}

/// The policy constraints: a SEQUENCE with optional `[0]` and `[1]` INTEGERs that fit an
/// `int64`.
fn policy_constraints(value: &[u8]) -> Option<()> {
    let mut reader = Reader::new(Reader::new(value).read(tag::SEQUENCE)?);
    for field in [0x80, 0x81] {
        if reader.peek(field) {
            reader.read(field).filter(|v| valid_int64(v))?;
        }
    }
    Some(())
}

/// `newOIDFromDER`: minimal base-128 arcs, the last one complete.
fn oid_from_der(der: &[u8]) -> bool {
    let Some(last) = der.last() else {
        return false;
    };
    if last & 0x80 != 0 {
        return false;
    }
    let mut start = true;
    for &b in der {
        if start && b == 0x80 {
            return false;
        }
        start = b & 0x80 == 0;
    }
    true
}

/// `parseCertificatePoliciesExtension`: each policy's OID, none twice.
fn certificate_policies(value: &[u8]) -> Option<()> {
    let mut reader = Reader::new(Reader::new(value).read(tag::SEQUENCE)?);
    let mut seen: Vec<&[u8]> = Vec::new();
    while !reader.is_empty() {
        let oid = Reader::new(reader.read(tag::SEQUENCE)?).read(tag::OID)?;
        if seen.contains(&oid) || !oid_from_der(oid) {
            return None;
        }
        seen.push(oid);
    }
    Some(())
}

/// The policy mappings: SEQUENCEs of two OBJECT IDENTIFIERs.
fn policy_mappings(value: &[u8]) -> Option<()> {
    let mut reader = Reader::new(Reader::new(value).read(tag::SEQUENCE)?);
    while !reader.is_empty() {
        let mut mapping = Reader::new(reader.read(tag::SEQUENCE)?);
        mapping.read(tag::OID)?;
        mapping.read(tag::OID)?;
    }
    Some(())
}

/// The authority information access: each description's method and, when it is a URI, its
/// location.
fn authority_info_access(value: &[u8]) -> Option<()> {
    let mut reader = Reader::new(Reader::new(value).read(tag::SEQUENCE)?);
    while !reader.is_empty() {
        let mut description = Reader::new(reader.read(tag::SEQUENCE)?);
        description.read_oid()?;
        if description.peek(0x86) {
            description.read(0x86)?;
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tlv(t: u8, contents: &[u8]) -> Vec<u8> {
        assert!(contents.len() < 0x80);
        [vec![t, contents.len() as u8], contents.to_vec()].concat()
    }

    fn extension(number: u8, critical: bool, value: &[u8]) -> Vec<u8> {
        let mut body = tlv(0x06, &[0x55, 0x1d, number]);
        if critical {
            body.extend(tlv(0x01, &[0xff]));
        }
        body.extend(tlv(0x04, value));
        tlv(0x30, &body)
    }

    fn err(extensions: &[Vec<u8>]) -> Option<String> {
        check(&extensions.concat()).err()
    }

    #[test]
    fn extensions_get_go_messages() {
        let ku = extension(15, false, &tlv(0x03, &[0x07, 0x80]));
        assert_eq!(err(std::slice::from_ref(&ku)), None);
        assert_eq!(
            err(&[ku.clone(), ku]).as_deref(),
            Some("x509: certificate contains duplicate extension with OID \"2.5.29.15\"")
        );
        assert_eq!(
            err(&[extension(15, false, &[0x05, 0x00])]).as_deref(),
            Some("x509: invalid key usage")
        );
        assert_eq!(
            err(&[extension(14, true, &tlv(0x04, b"a"))]).as_deref(),
            Some("x509: subject key identifier incorrectly marked critical")
        );
        let negative_path = tlv(0x30, &[0x01, 0x01, 0xff, 0x02, 0x01, 0xff]);
        assert_eq!(
            err(&[extension(19, false, &negative_path)]).as_deref(),
            Some("x509: invalid basic constraints")
        );
        assert_eq!(err(&[extension(99, true, b"")]), None);
        assert_eq!(
            err(&[tlv(0x30, &[0x06, 0x01, 0x80])]).as_deref(),
            Some("x509: malformed extension OID field")
        );
        assert_eq!(
            err(&[tlv(0x02, &[0x01])]).as_deref(),
            Some("x509: malformed extension")
        );
        let policies = tlv(
            0x30,
            &[
                tlv(0x30, &[0x06, 0x01, 0x2a]),
                tlv(0x30, &[0x06, 0x01, 0x2a]),
            ]
            .concat(),
        );
        assert_eq!(
            err(&[extension(32, false, &policies)]).as_deref(),
            Some("x509: invalid certificate policies")
        );
    }
}
