//! CertificateSigningRequests (`validateCertificateSigningRequest`): a well-formed (subject
//! and requested extensions included) and well-signed PEM certificate request
//! ([`super::csr`], [`super::csr_signature`]), known and distinct usages, a signer name of the form `example.com/name`, and
//! an expiration of at least ten minutes, all reported at once.

use std::collections::HashSet;

use serde_json::Value;

use super::errors::{
    Errors, dns1123_label, dns1123_subdomain, duplicate, index, invalid, invalid_str, invalid_text,
    not_supported, required,
};
use crate::support::status::Cause;

const USAGES: &[&str] = &[
    "any",
    "cert sign",
    "client auth",
    "code signing",
    "content commitment",
    "crl sign",
    "data encipherment",
    "decipher only",
    "digital signature",
    "email protection",
    "encipher only",
    "ipsec end system",
    "ipsec tunnel",
    "ipsec user",
    "key agreement",
    "key encipherment",
    "microsoft sgc",
    "netscape sgc",
    "ocsp signing",
    "s/mime",
    "server auth",
    "signing",
    "timestamping",
];
const LEGACY_SIGNER: &str = "kubernetes.io/legacy-unknown";
const MAX_DOMAIN: usize = 253;
const MAX_SIGNER: usize = 253 + 253 + 63 + 1 + 1;

/// Why the request is not a well-signed PEM certificate request, if it is not one: a
/// request that is not base64 (or absent) has no PEM block.
fn request_error(request: &Value) -> Option<String> {
    use base64::Engine;
    let decoded = request
        .as_str()
        .and_then(|r| base64::engine::general_purpose::STANDARD.decode(r).ok())
        .unwrap_or_default();
    // `ParseCertificateRequest` (structure, public key, subject, extensions), then
    // `CheckSignature`.
    super::csr::parse(&decoded)
        .and_then(|request| {
            let key = super::csr_signature::parse_key(&request.key)?;
            super::csr::check_contents(&request)?;
            super::csr_signature::check_signature(&request, key)
        })
        .err()
}

/// `field.TooLong` (which does not print the value).
fn too_long(field: &str, max: usize) -> Cause {
    Cause {
        reason: "FieldValueTooLong".into(),
        message: format!("Too long: may not be more than {max} bytes"),
        field: field.into(),
    }
}

/// `ValidateCertificateSigningRequestSignerName`.
pub fn signer_name(field: &str, name: &str) -> Errors {
    if name.is_empty() {
        return vec![required(field)];
    }
    let Some((domain, path)) = name.split_once('/').filter(|(_, p)| !p.contains('/')) else {
        return vec![invalid_str(
            field,
            name,
            "must be a fully qualified domain and path of the form 'example.com/signer-name'",
        )];
    };
    let mut out = Vec::new();
    if domain.len() > MAX_DOMAIN {
        out.push(too_long(field, MAX_DOMAIN));
    }
    let labels: Vec<&str> = domain.split('.').collect();
    if let Some((label, errs)) = labels
        .iter()
        .map(|l| (l, dns1123_label(l)))
        .find(|(_, e)| !e.is_empty())
    {
        for e in errs {
            out.push(invalid_str(
                field,
                domain,
                &format!("validating label {label:?}: {e}"),
            ));
        }
    }
    if labels.len() < 2 {
        out.push(invalid_str(
            field,
            domain,
            "should be a domain with at least two segments separated by dots",
        ));
    }
    if let Some((label, errs)) = path
        .split('.')
        .map(|l| (l, dns1123_subdomain(l)))
        .find(|(_, e)| !e.is_empty())
    {
        for e in errs {
            out.push(invalid_str(
                field,
                path,
                &format!("validating label {label:?}: {e}"),
            ));
        }
    }
    if name.len() > MAX_SIGNER {
        out.push(too_long(field, MAX_SIGNER));
    }
    out
}

/// `validateCertificateSigningRequest` of a created CertificateSigningRequest (without the
/// metadata and the status).
pub fn certificate_signing_request(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = Vec::new();
    if let Some(why) = request_error(&spec["request"]) {
        // The request is bytes: Go prints them as JSON does, base64 or null.
        out.push(match &spec["request"] {
            Value::String(s) => invalid_str("spec.request", s, &why),
            _ => invalid_text("spec.request", "null", &why),
        });
    }
    let usages = spec["usages"].as_array().map_or(&[][..], Vec::as_slice);
    if usages.is_empty() {
        out.push(required("spec.usages"));
    }
    for (i, u) in usages.iter().enumerate() {
        let u = u.as_str().unwrap_or_default();
        if !USAGES.contains(&u) {
            out.push(not_supported(&index("spec.usages", i), u, USAGES));
        }
    }
    let mut seen = HashSet::new();
    for (i, u) in usages.iter().enumerate() {
        if !seen.insert(u.as_str().unwrap_or_default()) {
            out.push(duplicate(&index("spec.usages", i), u));
        }
    }
    let signer = spec["signerName"].as_str().unwrap_or_default();
    if signer == LEGACY_SIGNER {
        out.push(invalid_str(
            "spec.signerName",
            signer,
            "the legacy signerName is not allowed via this API version",
        ));
    } else {
        out.extend(signer_name("spec.signerName", signer));
    }
    if let Some(s) = spec["expirationSeconds"].as_i64().filter(|s| *s < 600) {
        out.push(invalid(
            "spec.expirationSeconds",
            &s.into(),
            "may not specify a duration less than 600 seconds (10 minutes)",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_error_at_once() {
        let csr = json!({"spec": {"signerName": "bad", "usages": ["flying", "any", "any"]}});
        let fields: Vec<String> = certificate_signing_request(&csr)
            .into_iter()
            .map(|c| format!("{}: {}", c.field, c.message.split(':').next().unwrap()))
            .collect();
        assert_eq!(
            fields,
            [
                "spec.request: Invalid value",
                "spec.usages[0]: Unsupported value",
                "spec.usages[2]: Duplicate value",
                "spec.signerName: Invalid value",
            ]
        );
    }

    #[test]
    fn signer_names() {
        assert!(signer_name("f", "example.com/signer").is_empty());
        assert_eq!(
            signer_name("f", "example/x")[0].message,
            "Invalid value: \"example\": should be a domain with at least two segments separated by dots"
        );
        assert_eq!(signer_name("f", "").len(), 1);
    }
}
