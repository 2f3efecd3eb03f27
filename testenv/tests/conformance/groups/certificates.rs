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

/// POSTs to `path` a CertificateSigningRequest named `name` carrying the PEM request `pem`
/// (a custom signer, client auth).
async fn post_request(client: &kube::Client, path: &str, name: &str, pem: String) -> (u16, Value) {
    let csr = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {"request": b64(&pem), "signerName": "example.com/custom", "usages": ["client auth"]}});
    send(client, "POST", path, "application/json", Some(csr)).await
}

/// What a refused request's first cause says after the value it quotes (Go's parse error).
fn request_refusal(body: &Value) -> String {
    let message = body["details"]["causes"][0]["message"]
        .as_str()
        .unwrap_or_default();
    message
        .split_once("\": ")
        .map(|(_, w)| w.to_string())
        .unwrap_or_default()
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

#[tokio::test]
async fn approval_takes_the_metadata_sent_and_names_are_path_segments() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
    let csr = |meta: Value| {
        json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": meta,
            "spec": {"request": b64(&request_pem()), "signerName": "example.com/custom",
                "usages": ["client auth"]}})
    };
    let json = "application/json";
    let dry = format!("{base}?dryRun=All");
    let (code, body) = send(
        &client,
        "POST",
        &dry,
        json,
        Some(csr(json!({"name": "a/b%"}))),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "CertificateSigningRequest.certificates.k8s.io \"a/b%\" is invalid: [metadata.name: Invalid value: \"a/b%\": may not contain '/', metadata.name: Invalid value: \"a/b%\": may not contain '%']"
    );
    let (code, odd) = send(
        &client,
        "POST",
        &dry,
        json,
        Some(csr(json!({"name": "Upper_Case"}))),
    )
    .await;
    assert_eq!(
        (code, &odd["metadata"]["name"]),
        (201, &json!("Upper_Case")),
        "{odd}"
    );

    let name = format!("meta-{}", env.namespace());
    let first = json!({"name": name, "labels": {"a": "1"}, "annotations": {"x": "1"}});
    let (code, created) = send(&client, "POST", base, json, Some(csr(first))).await;
    assert_eq!(code, 201, "{created}");
    let approval = format!("{base}/{name}/approval");
    let mut approve = created.clone();
    approve["metadata"]["generateName"] = json!("a/b%");
    approve["status"] =
        json!({"conditions": [{"type": "Approved", "status": "True", "reason": "OK"}]});
    let (code, body) = send(&client, "PUT", &approval, json, Some(approve.clone())).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "CertificateSigningRequest.certificates.k8s.io \"{name}\" is invalid: [metadata.generateName: Invalid value: \"a/b%\": may not contain '/', metadata.generateName: Invalid value: \"a/b%\": may not contain '%']"
        ))
    );
    approve["metadata"]["generateName"] = json!("zz-");
    approve["metadata"]["labels"] = json!({"b": "2"});
    approve["metadata"]["annotations"] = json!({"y": "2"});
    let (code, approved) = send(&client, "PUT", &approval, json, Some(approve)).await;
    assert_eq!(code, 200, "{approved}");
    let meta = &approved["metadata"];
    assert_eq!(
        (&meta["generateName"], &meta["labels"], &meta["annotations"]),
        (&json!("zz-"), &json!({"b": "2"}), &json!({"y": "2"})),
        "{approved}"
    );
    assert_eq!(approved["status"]["conditions"][0]["type"], "Approved");
    let status = format!("{base}/{name}/status");
    let merge = "application/merge-patch+json";
    let patch = json!({"metadata": {"generateName": "%"}});
    let (code, body) = send(&client, "PATCH", &status, merge, Some(patch)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["details"]["causes"][0]["message"],
        "Invalid value: \"%\": may not contain '%'"
    );
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

/// Which part of a CertificateSigningRequest each endpoint's managers own: the creator never
/// the spec (a request created without labels or annotations has no managers at all, and
/// its later updates start none), `/approval` the conditions it writes (an apply of them by
/// another manager conflicts with it), `/status` never the conditions.
#[tokio::test]
async fn managed_fields_follow_the_strategies_reset_fields() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let name = format!("mf-{}", env.namespace());
    let base = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
    let csr = |name: &str| {
        json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": name, "labels": {"a": "b"}},
        "spec": {"request": b64(&request_pem()), "signerName": "example.com/custom",
            "usages": ["client auth"]}})
    };
    let mut bare = csr(&format!("{name}-bare"));
    bare["metadata"].as_object_mut().unwrap().remove("labels");
    let (code, created) = send(&client, "POST", base, "application/json", Some(bare)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["metadata"]["managedFields"],
        Value::Null,
        "{created}"
    );
    send(&client, "DELETE", &format!("{base}/{name}-bare"), "", None).await;

    let (code, created) = send(
        &client,
        "POST",
        &format!("{base}?fieldManager=creator"),
        "application/json",
        Some(csr(&name)),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["metadata"]["managedFields"][0]["fieldsV1"],
        json!({"f:metadata": {"f:labels": {".": {}, "f:a": {}}}}),
        "{created}"
    );

    let mut approve = created.clone();
    approve["status"] = json!({"conditions": [{"type": "Approved", "status": "True", "reason": "R", "message": "ok"}]});
    let (code, approved) = send(
        &client,
        "PUT",
        &format!("{base}/{name}/approval?fieldManager=approver"),
        "application/json",
        Some(approve),
    )
    .await;
    assert_eq!(code, 200, "{approved}");
    let entries = approved["metadata"]["managedFields"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let approver = entries
        .iter()
        .find(|e| e["manager"] == "approver")
        .cloned()
        .unwrap_or_default();
    assert_eq!(approver["subresource"], "approval", "{approved}");
    assert_eq!(
        approver["fieldsV1"],
        json!({"f:status": {"f:conditions": {".": {}, "k:{\"type\":\"Approved\"}": {".": {},
            "f:lastTransitionTime": {}, "f:lastUpdateTime": {}, "f:message": {}, "f:reason": {},
            "f:status": {}, "f:type": {}}}}})
    );

    let config = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "status": {"conditions": [{"type": "Approved", "status": "True", "reason": "R2", "message": "ok2"}]}});
    let apply_type = "application/apply-patch+yaml";
    let (code, conflict) = send(
        &client,
        "PATCH",
        &format!("{base}/{name}/approval?fieldManager=other"),
        apply_type,
        Some(config.clone()),
    )
    .await;
    assert_eq!(code, 409, "{conflict}");
    assert_eq!(
        conflict["message"],
        "Apply failed with 2 conflicts: conflicts with \"approver\" with subresource \"approval\" using certificates.k8s.io/v1:\n\
         - .status.conditions[type=\"Approved\"].message\n\
         - .status.conditions[type=\"Approved\"].reason"
    );
    // Through /status the conditions are neither taken nor changed.
    let (code, applied) = send(
        &client,
        "PATCH",
        &format!("{base}/{name}/status?fieldManager=other"),
        apply_type,
        Some(config),
    )
    .await;
    assert_eq!(code, 200, "{applied}");
    assert_eq!(
        applied["status"]["conditions"][0]["reason"], "R",
        "{applied}"
    );
    assert_eq!(
        applied["metadata"]["managedFields"],
        approved["metadata"]["managedFields"]
    );
    send(&client, "DELETE", &format!("{base}/{name}"), "", None).await;
}

#[tokio::test]
async fn requests_are_parsed_and_their_signatures_checked() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = "/apis/certificates.k8s.io/v1/certificatesigningrequests?dryRun=All";
    let name = format!("parsed-{}", env.namespace());
    let post = |pem: String| post_request(&client, base, &name, pem);
    for alg in [
        &rcgen::PKCS_ECDSA_P256_SHA256,
        &rcgen::PKCS_ECDSA_P384_SHA384,
        &rcgen::PKCS_ED25519,
    ] {
        let (code, body) = post(pem_of("CERTIFICATE REQUEST", &request_der(alg))).await;
        assert_eq!(code, 201, "{body}");
    }
    let why = request_refusal;
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

#[tokio::test]
async fn rsa_and_dsa_keys_and_uri_zones_are_checked_as_go_does() {
    use base64::Engine;
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = "/apis/certificates.k8s.io/v1/certificatesigningrequests?dryRun=All";
    let name = format!("keys-{}", env.namespace());
    let post = |der: Vec<u8>| {
        let pem = pem_of("CERTIFICATE REQUEST", &der);
        post_request(&client, base, &name, pem)
    };
    let why = request_refusal;
    let der = |b64: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(b64.split_whitespace().collect::<String>())
            .unwrap()
    };
    let tampered = |b64: &str| {
        let mut der = der(b64);
        let at = der.windows(13).position(|w| w == b"a.example.com").unwrap();
        der[at] = b'b';
        der
    };
    let uri_request = |uri: &str| {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.subject_alt_names = vec![rcgen::SanType::URI(uri.try_into().unwrap())];
        params.serialize_request(&key).unwrap().der().to_vec()
    };
    // RSA-1024 with SHA-384 and with PSS: checked, not taken as valid.
    for good in [
        der(RSA_SHA384),
        der(RSA_PSS_SHA256),
        uri_request("https://[fe80::1%25en0]:8443/"),
    ] {
        let (code, body) = post(good).await;
        assert_eq!(code, 201, "{body}");
    }
    let verification = "crypto/rsa: verification error";
    for (request, expected) in [
        (tampered(RSA_SHA384), verification),
        (tampered(RSA_PSS_SHA256), verification),
        (der(RSA_PSS_SALT20), verification),
        (
            der(RSA_1023),
            "crypto/rsa: 1023-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)",
        ),
        (
            der(DSA_SHA256),
            "x509: cannot verify signature: algorithm unimplemented",
        ),
        (der(DSA_ZERO_KEY), "x509: zero or negative DSA parameter"),
        (
            uri_request("https://[fe80::1%25]/"),
            "x509: cannot parse URI \"https://[fe80::1%25]/\": parse \"https://[fe80::1%25]/\": \
             invalid host: ParseAddr(\"fe80::1%\"): zone must be a non-empty string",
        ),
        (
            uri_request("https://[1.2.3.4]/"),
            "x509: cannot parse URI \"https://[1.2.3.4]/\": parse \"https://[1.2.3.4]/\": invalid IP-literal",
        ),
    ] {
        let (code, body) = post(request).await;
        assert_eq!((code, why(&body)), (422, expected.to_string()), "{body}");
    }
}

/// A request for `a.example.com` with a 1024-bit RSA key, signed with SHA-384 (PKCS #1 v1.5).
const RSA_SHA384: &str = "\
    MIIBVzCBwQIBADAYMRYwFAYDVQQDDA1hLmV4YW1wbGUuY29tMIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC3jAfs\
    A+aWBxFr0dONQogejipmaAOzDLyJv1DgBBaLw828i1I5jzlmsQjaJxYDqRonvWwsgWaImsyCy7fPcmvS17qsx96/luIu\
    MoBfGZM2tpIDIMDOdlXHOD58GkYsgTGkOidM8kvJfa75kl3OsSLnORrlRvICf+sacblnhdJTkwIDAQABoAAwDQYJKoZI\
    hvcNAQEMBQADgYEApM4uI7JuOgjty+8CdlEQHG2N0mNGpPUazSq3Omyds38wxmRiziunwVQzC24BXYXEirXIpITgq5ok\
    hsmzoL2ae5fZc9gZwl9bvmoHD27PnrFZtjqmhRhCuBI3GK+8o6pT96RYi+7AI7lfxT+bn7FfyiDfAUYyYy7tC/6wZ5VP\
    CPE=";
/// The same key, signed with RSA-PSS (SHA-256, a 32-byte salt).
const RSA_PSS_SHA256: &str = "\
    MIIBizCBwQIBADAYMRYwFAYDVQQDDA1hLmV4YW1wbGUuY29tMIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC3jAfs\
    A+aWBxFr0dONQogejipmaAOzDLyJv1DgBBaLw828i1I5jzlmsQjaJxYDqRonvWwsgWaImsyCy7fPcmvS17qsx96/luIu\
    MoBfGZM2tpIDIMDOdlXHOD58GkYsgTGkOidM8kvJfa75kl3OsSLnORrlRvICf+sacblnhdJTkwIDAQABoAAwQQYJKoZI\
    hvcNAQEKMDSgDzANBglghkgBZQMEAgEFAKEcMBoGCSqGSIb3DQEBCDANBglghkgBZQMEAgEFAKIDAgEgA4GBAEF6j4b+\
    YnlSkpO4kquBaCepPg6Tpj8dhuEqLihOCpnMGJbt9wctjE3gRdVMwWGIuqUQdfCQbQH+eU5SzneN8bmpCj4Nd0WMAKiC\
    fwdrLP/b1WtQJxKsXg2ly7UMbGIuWPA1W/7dXJiy91NzG8wuuyNvqUEeheiYXjRWIzK+OGbZ";
/// The same, its PSS salt 20 bytes long where the algorithm says 32.
const RSA_PSS_SALT20: &str = "\
    MIIBizCBwQIBADAYMRYwFAYDVQQDDA1hLmV4YW1wbGUuY29tMIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC3jAfs\
    A+aWBxFr0dONQogejipmaAOzDLyJv1DgBBaLw828i1I5jzlmsQjaJxYDqRonvWwsgWaImsyCy7fPcmvS17qsx96/luIu\
    MoBfGZM2tpIDIMDOdlXHOD58GkYsgTGkOidM8kvJfa75kl3OsSLnORrlRvICf+sacblnhdJTkwIDAQABoAAwQQYJKoZI\
    hvcNAQEKMDSgDzANBglghkgBZQMEAgEFAKEcMBoGCSqGSIb3DQEBCDANBglghkgBZQMEAgEFAKIDAgEgA4GBAIQz9wxL\
    p/w9RXLcuryvvsDy4YjTpWJ/6QrAwa8qI9zAZhJQDB/y6Zgmzu16RGAB+O1eHJ7yL4Z35njaHTiQXJLt8OqcLiwbAj1f\
    nJWkS6Mdhu7h4Clnmv4um3/1Qtzc328vW/TO0Z4octzKT+XWiVcdDVE53TKYzpi7A8M5UkH5";
/// A request with a 1023-bit RSA key.
const RSA_1023: &str = "\
    MIIBVjCBwAIBADAYMRYwFAYDVQQDDA1hLmV4YW1wbGUuY29tMIGeMA0GCSqGSIb3DQEBAQUAA4GMADCBiAKBgFWdU27X\
    ZNWyboQ0xjtrWL/RX1qdk4a7UbFQm6k6PA853ItbM25N9jJTkao5akr429fXEysmp3HhGZ9A5m81SLVUD40MF870O2ew\
    aK/mfnGfLWgF9VhqjLWgZmaJQWfbLJFgAHg8XW8ugYxXp0J0tBSnvvVmbW6+nsOuPZQMMptbAgMBAAGgADANBgkqhkiG\
    9w0BAQsFAAOBgQAcMVPEXF5vNpOY4Ij5yljZ4w+JqY7AQ4veZ4q1W9ajSHxcs+jwwtoI2BS88QByxYG+NoAyXI6hywzT\
    aqwwcB6mAXjQQ5m6u0qh7lZpNfU+I/ct+qAThHCZAYgp0C7XjyjVcSBcFb5nkAn2mjy+DOpK+CBgfFlMQqlxCPQz7BV6\
    yg==";
/// A request with a DSA key, signed with DSA and SHA-256 (made by openssl).
const DSA_SHA256: &str = "\
    MIICNTCCAeICAQAwGDEWMBQGA1UEAwwNYS5leGFtcGxlLmNvbTCCAb8wggE0BgcqhkjOOAQBMIIBJwKBgQDiSbmNHymy\
    b5fJUCv15F5SFrAKJBnKY7T+21cLhDZ/+DyGhSprxs8YV5Yb7XleOXs98+mZsCSAyHVHe213EizHVQj0TvJ3PD+SutQm\
    C48wNc33wLGh/SOuSHfTsrINnMkiGmwheoazAolt/uyWiUDE3DAris/nXlRmW0ImrjG4MwIdAP0y25VDUCtb7SVjRTcA\
    vieCzl9Nuh2eSgMoK7sCgYEAlwkzq2Kkz9DANjbuIodyxEDv44NJ9UbO9GXoCSPIsTnMQ1KfnzCTRpJMz/0LT7Pt68h5\
    s7MZQLdr0Qtpqy/F+gVxyWrhfVH2v6WdhgTivnh1hbr0BaNEGLqjNeiNQ8X4Q6wKocgLpp+WqgKQynF3PCu3EwBWaNIz\
    FwVOnDCENIQDgYQAAoGAH3dpqR/yTRzedoHKHNpXJQ6KRdAloOb0RHAw99ZI3T7iP6n5rlaRb25P0wRR9xNAlZG/c6Jv\
    f6BEU6wIvjTmX3UXwL2olsgW55ny7DtoCDB4p8mP3GN5/cymiCid+g7vPOMQSWExoOdpwmsMRukpkyaeGNCAqlFtfvt0\
    /tQTadWgADALBglghkgBZQMEAwIDQAAwPQIcIjTW3hrFdFPRhFqBaJIwclKUS1u3+4FVJxKolwIdAKiyG4zxDA868B0j\
    tnRyE6HXQ9u2EyFQd05+4Jo=";
/// A request with a DSA key of zero.
const DSA_ZERO_KEY: &str = "\
    MFcwPQIBADAYMRYwFAYDVQQDDA1hLmV4YW1wbGUuY29tMBwwFAYHKoZIzjgEATAJAgEXAgELAgEEAwQAAgEAoAAwCwYJ\
    YIZIAWUDBAMCAwkAMAYCAQECAQI=";

/// Requests with ML-DSA keys (FIPS 204, RFC 9881), signed by OpenSSL 4.0
/// (`tests/fixtures/ml-dsa/signatures.json`): each parameter set's request is accepted; a
/// changed subject fails ML-DSA verification, an unused hint position that is not zero is
/// a malformed signature, another set's signature algorithm names both sets, and another
/// set's key OID makes the key the wrong length, each with Go's message.
#[tokio::test]
async fn ml_dsa_requests_are_verified_as_go_does() {
    use base64::Engine;
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = "/apis/certificates.k8s.io/v1/certificatesigningrequests?dryRun=All";
    let name = format!("ml-dsa-{}", env.namespace());
    let post = |der: Vec<u8>| {
        let pem = pem_of("CERTIFICATE REQUEST", &der);
        post_request(&client, base, &name, pem)
    };
    let why = request_refusal;
    let fixture: Value =
        serde_json::from_str(include_str!("../../fixtures/ml-dsa/signatures.json")).unwrap();
    // (set, the last byte of its OID, hints' row count k).
    for (set, oid_last, k) in [(44u8, 0x11u8, 4usize), (65, 0x12, 6), (87, 0x13, 8)] {
        let der = base64::engine::general_purpose::STANDARD
            .decode(fixture[format!("csr_ml_dsa_{set}")].as_str().unwrap())
            .unwrap();
        let (code, body) = post(der.clone()).await;
        assert_eq!(code, 201, "ML-DSA-{set}: {body}");

        let oid = [
            0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, oid_last,
        ];
        let key_oid = der.windows(oid.len()).position(|w| w == oid).unwrap() + oid.len() - 1;
        let signature_oid = der.windows(oid.len()).rposition(|w| w == oid).unwrap() + oid.len() - 1;
        assert!(key_oid < signature_oid);
        let other = if set == 44 { 0x12 } else { 0x11 };
        let other_name = if set == 44 { "ML-DSA-65" } else { "ML-DSA-44" };
        let changed = |at: usize, to: u8| {
            let mut der = der.clone();
            der[at] = to;
            der
        };
        let subject = der.windows(13).position(|w| w == b"a.example.com").unwrap();
        let padding = der.len() - k - 1;
        assert_eq!(
            der[padding], 0,
            "ML-DSA-{set}: the last hint position is unused"
        );
        for (request, expected) in [
            (
                changed(subject, b'b'),
                "x509: ML-DSA verification failure: mldsa: invalid signature".to_string(),
            ),
            (
                changed(padding, 1),
                "x509: ML-DSA verification failure: mldsa: invalid signature encoding".to_string(),
            ),
            (
                changed(signature_oid, other),
                format!(
                    "x509: signature algorithm specifies an ML-DSA public key with {other_name} \
                     parameters, but have a public key with ML-DSA-{set} parameters"
                ),
            ),
            (
                changed(key_oid, other),
                "mldsa: invalid public key length".to_string(),
            ),
        ] {
            let (code, body) = post(request).await;
            assert_eq!((code, why(&body)), (422, expected), "ML-DSA-{set}: {body}");
        }
    }
}

/// A request (or certificate) that is not base64 cannot be decoded: a 400 before any
/// validation, with Go's offset.
#[tokio::test]
async fn requests_that_are_not_base64_are_not_decoded() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let csr = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": "undecodable"},
        "spec": {"signerName": "example.com/s", "request": "Bad_Value!", "usages": ["client auth"]}});
    let (code, body) = crate::support::raw::send(
        &client,
        "POST",
        "/apis/certificates.k8s.io/v1/certificatesigningrequests?dryRun=All",
        "application/json",
        Some(csr),
    )
    .await;
    assert_eq!(code, 400);
    assert_eq!(
        body["message"],
        "CertificateSigningRequest in version \"v1\" cannot be handled as a CertificateSigningRequest: illegal base64 data at input byte 3"
    );
}
