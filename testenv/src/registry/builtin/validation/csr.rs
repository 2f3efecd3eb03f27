//! A CertificateSigningRequest's `spec.request` as kube-apiserver reads it: the first PEM
//! block (Go's `pem.Decode`), which must be a `CERTIFICATE REQUEST`, decoded as a PKCS#10
//! request the way Go's `encoding/asn1` decodes `x509.ParseCertificateRequest`'s structure
//! (so a malformed request gets the same message). [`super::csr_signature`] then checks its
//! public key and signature.
//!
//! Below: [`asn1`] (Go's `encoding/asn1`, for the request's structures), [`der`] (Go's
//! `cryptobyte`), [`names`] (the subject and the subject alternative names, read as
//! `crypto/x509`'s parser reads them; [`uri`] for the URIs, [`netip`] for their bracketed
//! hosts), [`extensions`] (the requested extensions), [`rsa_verify`] (RSA signatures, as
//! `crypto/rsa` checks them), [`curve`] (the NIST curves: point checks and ECDSA).

pub mod asn1;
pub mod curve;
pub mod der;
pub mod extensions;
pub mod names;
pub mod netip;
pub mod rsa_verify;
pub mod uri;

use self::asn1::{Expect, bit_string, field, syntax};
use super::pem;

/// The certificate request `request` (the decoded bytes of `spec.request`) holds, or why
/// it holds none, in the real server's words.
pub fn parse(request: &[u8]) -> Result<Request, String> {
    let Some((block, _)) = pem::decode(request).filter(|(b, _)| b.kind == b"CERTIFICATE REQUEST")
    else {
        return Err("PEM block type must be CERTIFICATE REQUEST".into());
    };
    parse_request(&block.bytes)
}

/// An `AlgorithmIdentifier`: the OID's contents and the parameters' whole encoding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Algorithm {
    /// The DER contents of the OBJECT IDENTIFIER.
    pub oid: Vec<u8>,
    /// The parameters as encoded, empty when absent.
    pub params: Vec<u8>,
}

fn algorithm(bytes: &[u8], offset: usize) -> Result<(Algorithm, usize), String> {
    let (seq, end) = field(bytes, offset, Expect::Struct("AlgorithmIdentifier"))?;
    let (oid, at) = field(seq.inner, 0, Expect::Oid)?;
    let (params, _) = field(seq.inner, at, Expect::Any { optional: true })?;
    Ok((
        Algorithm {
            oid: oid.inner.to_vec(),
            params: if params.present {
                params.full.to_vec()
            } else {
                Vec::new()
            },
        },
        end,
    ))
}

/// A `SubjectPublicKeyInfo`: the key's algorithm and its (right-aligned) bits.
#[derive(Debug, Clone)]
pub struct PublicKeyInfo {
    /// The key algorithm and its parameters.
    pub algorithm: Algorithm,
    /// The key bits.
    pub key: Vec<u8>,
}

/// The parts of a decoded request its signature check needs.
#[derive(Debug, Clone)]
pub struct Request {
    /// The signed bytes: the whole `CertificationRequestInfo`.
    pub signed: Vec<u8>,
    /// The signature algorithm.
    pub signature_algorithm: Algorithm,
    /// The signature, right-aligned.
    pub signature: Vec<u8>,
    /// The subject public key.
    pub key: PublicKeyInfo,
    /// The subject's whole encoding.
    pub subject: Vec<u8>,
    /// The contents of the `[0]` attributes.
    pub attributes: Vec<u8>,
}

/// What `parseCertificateRequest` checks after the public key: the subject (`parseName`),
/// the requested extensions and the subject alternative names among them, with Go's
/// messages.
pub fn check_contents(request: &Request) -> Result<(), String> {
    names::parse_name(&request.subject)?;
    for extension in extensions::requested(&request.attributes)? {
        if extension.id == extensions::SUBJECT_ALT_NAME {
            names::parse_san(extension.value)?;
        }
    }
    Ok(())
}

/// `asn1.Unmarshal` of `x509.certificateRequest`, with Go's messages.
fn parse_request(der: &[u8]) -> Result<Request, String> {
    let (outer, end) = field(der, 0, Expect::Struct("certificateRequest"))?;
    let body = outer.inner;
    let (tbs, at) = field(body, 0, Expect::Struct("tbsCertificateRequest"))?;
    {
        let (_, at) = field(tbs.inner, 0, Expect::Int)?;
        let (_, at) = field(tbs.inner, at, Expect::Any { optional: false })?;
        let (_, at) = field(tbs.inner, at, Expect::Struct("publicKeyInfo"))?;
        field(tbs.inner, at, Expect::Attributes)?;
    }
    let (signature_algorithm, at) = algorithm(body, at)?;
    let (signature, _) = field(body, at, Expect::BitString)?;
    if end != der.len() {
        return Err(syntax("trailing data"));
    }
    // The fields were checked above; read the public key's parts.
    let (_, at) = field(tbs.inner, 0, Expect::Int)?;
    let (subject, at) = field(tbs.inner, at, Expect::Any { optional: false })?;
    let (spki, at) = field(tbs.inner, at, Expect::Struct("publicKeyInfo"))?;
    let (attributes, _) = field(tbs.inner, at, Expect::Attributes)?;
    let (key_algorithm, at) = algorithm(spki.inner, 0)?;
    let (key, _) = field(spki.inner, at, Expect::BitString)?;
    Ok(Request {
        signed: tbs.full.to_vec(),
        signature_algorithm,
        signature: bit_string(signature.inner)?,
        key: PublicKeyInfo {
            algorithm: key_algorithm,
            key: bit_string(key.inner)?,
        },
        subject: subject.full.to_vec(),
        attributes: attributes.inner.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;

    fn pem(kind: &str, der: &[u8]) -> Vec<u8> {
        let body = base64::engine::general_purpose::STANDARD.encode(der);
        format!("-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n").into_bytes()
    }

    fn csr() -> Vec<u8> {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let params = rcgen::CertificateParams::new(vec!["a.example.com".into()]).unwrap();
        params.serialize_request(&key).unwrap().der().to_vec()
    }

    fn error(text: &[u8]) -> String {
        parse(text).err().unwrap_or_default()
    }

    #[test]
    fn malformed_requests_get_go_messages() {
        let der = csr();
        let err = |bytes: &[u8]| error(&pem("CERTIFICATE REQUEST", bytes));
        assert_eq!(
            err(&der[..der.len() - 10]),
            "asn1: syntax error: data truncated"
        );
        let mut trailing = der.clone();
        trailing.extend([0, 0]);
        assert_eq!(err(&trailing), "asn1: syntax error: trailing data");
        assert_eq!(err(b""), "asn1: syntax error: sequence truncated");
        assert_eq!(err(b"\x30\x00"), "asn1: syntax error: sequence truncated");
        assert!(err(b"hello world").starts_with(
            "asn1: structure error: tags don't match (16 vs {class:1 tag:8 length:101 isCompound:true}) {optional:false"
        ));
        assert!(err(b"\x02\x01\x00").ends_with("certificateRequest @2"));
        assert_eq!(
            error(&pem("CERTIFICATE", &der)),
            "PEM block type must be CERTIFICATE REQUEST"
        );
        assert_eq!(
            error(b"no pem here"),
            "PEM block type must be CERTIFICATE REQUEST"
        );
    }

    #[test]
    fn the_first_well_formed_block_is_read() {
        let der = csr();
        let mut text = b"junk before\n-----BEGIN CERTIFICATE REQUEST-----\n!!!!\n-----END CERTIFICATE REQUEST-----\n"
            .to_vec();
        text.extend(pem("CERTIFICATE REQUEST", &der));
        let request = parse(&text).unwrap();
        assert_eq!(request.key.key.len(), 65);
        assert_eq!(request.signature_algorithm.params, Vec::<u8>::new());
    }

    #[test]
    fn bit_strings_are_right_aligned() {
        assert_eq!(bit_string(&[0, 0xab]).unwrap(), vec![0xab]);
        assert_eq!(bit_string(&[4, 0xab, 0xc0]).unwrap(), vec![0x0a, 0xbc]);
        assert!(bit_string(&[1, 0x01]).is_err());
        assert!(bit_string(&[]).is_err());
    }
}
