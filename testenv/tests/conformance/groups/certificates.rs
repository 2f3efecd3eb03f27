//! `certificates.k8s.io`: CertificateSigningRequests record who asked, and are approved or
//! denied through `/approval` only.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::send;

fn request_pem() -> String {
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "alice");
    params.serialize_request(&key).unwrap().pem().unwrap()
}

fn b64(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(s)
}

#[tokio::test]
async fn approval_is_a_subresource() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let name = format!("alice-{}", env.namespace());
    let csr = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {"request": b64(&request_pem()), "signerName": "example.com/custom",
            "usages": ["client auth"]}});
    let base = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
    let (code, created) = send(&client, "POST", base, "application/json", Some(csr)).await;
    assert_eq!(code, 201, "{created}");
    assert!(
        created["spec"]["username"]
            .as_str()
            .is_some_and(|u| !u.is_empty()),
        "the requester is recorded: {created}"
    );
    // Conditions written to the object itself are dropped.
    let mut sneaky = created.clone();
    sneaky["status"] =
        json!({"conditions": [{"type": "Approved", "status": "True", "reason": "R"}]});
    let (code, put) = send(
        &client,
        "PUT",
        &format!("{base}/{name}"),
        "application/json",
        Some(sneaky),
    )
    .await;
    assert_eq!(code, 200, "{put}");
    assert_eq!(put["status"]["conditions"], Value::Null, "{put}");

    let mut approve = put.clone();
    approve["status"] = json!({"conditions": [{"type": "Approved", "status": "True", "reason": "Test", "message": "ok"}]});
    let approval = format!("{base}/{name}/approval");
    let (code, approved) = send(&client, "PUT", &approval, "application/json", Some(approve)).await;
    assert_eq!(code, 200, "{approved}");
    let condition = &approved["status"]["conditions"][0];
    assert_eq!(condition["type"], "Approved");
    assert!(condition["lastUpdateTime"].is_string() && condition["lastTransitionTime"].is_string());

    let mut deny = approved.clone();
    deny["status"]["conditions"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "Denied", "status": "True", "reason": "Test"}));
    let (code, refused) = send(&client, "PUT", &approval, "application/json", Some(deny)).await;
    assert_eq!(code, 422);
    assert_eq!(
        refused["message"],
        json!(format!(
            "CertificateSigningRequest.certificates.k8s.io \"{name}\" is invalid: status.conditions: Invalid value: \"Denied\": Approved and Denied conditions are mutually exclusive"
        ))
    );
    send(&client, "DELETE", &format!("{base}/{name}"), "", None).await;
}

#[tokio::test]
async fn status_carries_the_certificate_but_not_the_approval() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let name = format!("bob-{}", env.namespace());
    let csr = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {"request": b64(&request_pem()), "signerName": "example.com/custom",
            "usages": ["client auth"]}});
    let base = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
    let (code, created) = send(&client, "POST", base, "application/json", Some(csr)).await;
    assert_eq!(code, 201, "{created}");
    let status = format!("{base}/{name}/status");
    let with_status = |status: Value| {
        let mut csr = created.clone();
        csr["status"] = status;
        Some(csr)
    };
    let (code, body) = send(
        &client,
        "PUT",
        &status,
        "application/json",
        with_status(json!({"certificate": b64("not a certificate")})),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "CertificateSigningRequest.certificates.k8s.io \"{name}\" is invalid: status.certificate: Invalid value: \"<certificate data>\": must contain at least one CERTIFICATE PEM block"
        ))
    );
    let approved = json!({"conditions": [{"type": "Approved", "status": "True", "reason": "R"}]});
    let (code, body) = send(
        &client,
        "PUT",
        &status,
        "application/json",
        with_status(approved),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "CertificateSigningRequest.certificates.k8s.io \"{name}\" is invalid: status.conditions: Forbidden: updates may not add a condition of type \"Approved\""
        ))
    );
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["bob".to_string()])
        .unwrap()
        .self_signed(&key)
        .unwrap()
        .pem();
    let signed = json!({"certificate": b64(&cert),
        "conditions": [{"type": "Failed", "status": "True", "reason": "R", "message": "m"}]});
    let (code, body) = send(
        &client,
        "PUT",
        &status,
        "application/json",
        with_status(signed),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["status"]["certificate"], json!(b64(&cert)));
    let condition = &body["status"]["conditions"][0];
    assert_eq!(condition["type"], "Failed");
    assert!(condition["lastUpdateTime"].is_string() && condition["lastTransitionTime"].is_string());
    send(&client, "DELETE", &format!("{base}/{name}"), "", None).await;
}

/// A request's DER for a new key of `alg`, with `a.example.com` as its name.
fn request_der(alg: &'static rcgen::SignatureAlgorithm) -> Vec<u8> {
    let key = rcgen::KeyPair::generate_for(alg).unwrap();
    let params = rcgen::CertificateParams::new(vec!["a.example.com".to_string()]).unwrap();
    params.serialize_request(&key).unwrap().der().to_vec()
}

fn pem_of(kind: &str, der: &[u8]) -> String {
    use base64::Engine;
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    format!("-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n")
}

#[tokio::test]
async fn requests_are_parsed_and_their_signatures_checked() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = "/apis/certificates.k8s.io/v1/certificatesigningrequests?dryRun=All";
    let name = format!("parsed-{}", env.namespace());
    let post = |pem: String| {
        let csr = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": {"name": name},
            "spec": {"request": b64(&pem), "signerName": "example.com/custom", "usages": ["client auth"]}});
        send(&client, "POST", base, "application/json", Some(csr))
    };
    for alg in [
        &rcgen::PKCS_ECDSA_P256_SHA256,
        &rcgen::PKCS_ECDSA_P384_SHA384,
        &rcgen::PKCS_ED25519,
    ] {
        let (code, body) = post(pem_of("CERTIFICATE REQUEST", &request_der(alg))).await;
        assert_eq!(code, 201, "{body}");
    }
    let why = |body: &Value| {
        let message = body["details"]["causes"][0]["message"]
            .as_str()
            .unwrap_or_default();
        message
            .split_once("\": ")
            .map(|(_, w)| w.to_string())
            .unwrap_or_default()
    };
    let tampered = |alg| {
        let mut der = request_der(alg);
        let at = der.windows(13).position(|w| w == b"a.example.com").unwrap();
        der[at] = b'b';
        pem_of("CERTIFICATE REQUEST", &der)
    };
    let der = request_der(&rcgen::PKCS_ECDSA_P256_SHA256);
    let mut trailing = der.clone();
    trailing.extend([0, 0]);
    for (pem, expected) in [
        (
            tampered(&rcgen::PKCS_ECDSA_P256_SHA256),
            "x509: ECDSA verification failure",
        ),
        (
            tampered(&rcgen::PKCS_ED25519),
            "x509: Ed25519 verification failure",
        ),
        (
            pem_of("CERTIFICATE REQUEST", &der[..der.len() - 10]),
            "asn1: syntax error: data truncated",
        ),
        (
            pem_of("CERTIFICATE REQUEST", &trailing),
            "asn1: syntax error: trailing data",
        ),
        (
            pem_of("CERTIFICATE REQUEST", b""),
            "asn1: syntax error: sequence truncated",
        ),
        (
            pem_of("CERTIFICATE", &der),
            "PEM block type must be CERTIFICATE REQUEST",
        ),
        (
            "not PEM".to_string(),
            "PEM block type must be CERTIFICATE REQUEST",
        ),
    ] {
        let (code, body) = post(pem).await;
        assert_eq!((code, why(&body)), (422, expected.to_string()), "{body}");
    }
}
