//! The extensions a certificate request asks for (`parseCSRExtensions`): the attributes
//! that decode as PKCS#10 attributes are kept (the others are skipped, as Go skips them),
//! the first value of each `extensionRequest` is decoded as Go's `[]pkix.Extension` with
//! `encoding/asn1` (its errors refuse the request), and an extension asked for twice
//! refuses it.

use std::collections::HashSet;

use super::asn1::{Expect, check_raw_values, elements, field, sequence_of_structs};

/// The DER contents of `1.2.840.113549.1.9.14`, PKCS#9 `extensionRequest`.
const EXTENSION_REQUEST: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x0e];

/// The DER contents of `2.5.29.17`, the subject alternative name extension.
pub const SUBJECT_ALT_NAME: &[u8] = &[0x55, 0x1d, 0x11];

/// One requested extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extension<'a> {
    /// The DER contents of its OBJECT IDENTIFIER.
    pub id: &'a [u8],
    /// The contents of its OCTET STRING value.
    pub value: &'a [u8],
}

/// The first value of an attribute that decodes as a PKCS#10 attribute `{type, SET OF
/// values}` of type `extensionRequest`; `None` for any other attribute.
fn extension_request(attribute: &[u8]) -> Option<&[u8]> {
    let (seq, _) = field(attribute, 0, Expect::Struct("pkcs10Attribute")).ok()?;
    let (id, at) = field(seq.inner, 0, Expect::Oid).ok()?;
    let (values, _) = field(seq.inner, at, Expect::Set).ok()?;
    let first = elements(values.inner).ok()?.into_iter().next()?;
    (id.inner == EXTENSION_REQUEST).then_some(first)
}

/// `asn1.Unmarshal` of one `extensionRequest` value into `[]pkix.Extension`.
fn decode(value: &[u8]) -> Result<Vec<Extension<'_>>, String> {
    // An unnamed slice type: Go prints its name as empty.
    let (seq, _) = field(value, 0, Expect::Struct(""))?;
    let mut out = Vec::new();
    for element in sequence_of_structs(seq.inner)? {
        let (ext, _) = field(element, 0, Expect::Struct("Extension"))?;
        let (id, at) = field(ext.inner, 0, Expect::Oid)?;
        let (_, at) = field(ext.inner, at, Expect::OptionalBool)?;
        let (value, _) = field(ext.inner, at, Expect::OctetString)?;
        out.push(Extension {
            id: id.inner,
            value: value.inner,
        });
    }
    Ok(out)
}

/// The extensions the `[0]` attributes (their contents) ask for, with Go's messages.
pub fn requested(attributes: &[u8]) -> Result<Vec<Extension<'_>>, String> {
    check_raw_values(attributes)?;
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for attribute in elements(attributes)? {
        let Some(value) = extension_request(attribute) else {
            continue;
        };
        for extension in decode(value)? {
            if !seen.insert(extension.id) {
                return Err(
                    "x509: certificate request contains duplicate requested extensions".into(),
                );
            }
            out.push(extension);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[attribute]` contents: extensionRequest with one value, `exts` (a SEQUENCE's contents).
    fn request(exts: &[u8]) -> Vec<u8> {
        let mut seq = vec![0x30, exts.len() as u8];
        seq.extend_from_slice(exts);
        let mut set = vec![0x31, seq.len() as u8];
        set.extend(seq);
        let mut inner = vec![0x06, EXTENSION_REQUEST.len() as u8];
        inner.extend_from_slice(EXTENSION_REQUEST);
        inner.extend(set);
        let mut out = vec![0x30, inner.len() as u8];
        out.extend(inner);
        out
    }

    #[test]
    fn extensions_are_decoded_with_go_messages() {
        // SEQUENCE { OID 2.5.29.17, OCTET STRING { SEQUENCE {} } }
        let san = b"\x30\x09\x06\x03\x55\x1d\x11\x04\x02\x30\x00";
        let attributes = request(san);
        let got = requested(&attributes).unwrap();
        assert_eq!(
            got,
            vec![Extension {
                id: SUBJECT_ALT_NAME,
                value: b"\x30\x00"
            }]
        );
        let twice = [&san[..], &san[..]].concat();
        assert_eq!(
            requested(&request(&twice)).err().as_deref(),
            Some("x509: certificate request contains duplicate requested extensions")
        );
        assert_eq!(
            requested(&request(b"\x31\x00")).err().as_deref(),
            Some("asn1: structure error: sequence tag mismatch")
        );
        assert_eq!(
            requested(&request(b"\x30\x07\x06\x02\x2a\x03\x01\x01\x01"))
                .err()
                .as_deref(),
            Some("asn1: syntax error: invalid boolean")
        );
        assert_eq!(
            requested(&request(b"\x30\x04\x06\x02\x2a\x03"))
                .err()
                .as_deref(),
            Some("asn1: syntax error: sequence truncated")
        );
        // Attributes that are not PKCS#10 attributes are skipped.
        assert_eq!(requested(b"\x02\x01\x01"), Ok(Vec::new()));
    }
}
