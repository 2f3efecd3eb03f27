//! A `kubernetes.io/tls` Secret's key pair read in full, as kube-apiserver reads it with
//! Go's `tls.X509KeyPair`: a certificate malformed in a field after its public key, or an
//! RSA key that is not consistent, is stored with Go's error as a warning (an RSA key with a
//! composite factor but otherwise consistent loads, as Go runs no primality test); an
//! ML-DSA pair loads from its key's seed.

use rcgen::PublicKeyData;
use serde_json::json;

use crate::common::env;

/// A DER element.
fn tlv(tag: u8, contents: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = contents.len();
    if len < 0x80 {
        out.push(len as u8);
    } else if len < 0x100 {
        out.extend([0x81, len as u8]);
    } else {
        out.extend([0x82, (len >> 8) as u8, len as u8]);
    }
    out.extend_from_slice(contents);
    out
}

fn seq(parts: &[&[u8]]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

fn pem(kind: &str, der: &[u8]) -> String {
    use base64::Engine;
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    format!("-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n")
}

/// The parts of a certificate that a case changes.
struct Parts {
    version: Vec<u8>,
    validity: Vec<u8>,
    spki: Vec<u8>,
    extensions: Vec<Vec<u8>>,
    outer_algorithm: Option<Vec<u8>>,
}

impl Parts {
    fn new(spki: Vec<u8>) -> Parts {
        Parts {
            version: tlv(0xa0, &[0x02, 0x01, 0x02]),
            validity: seq(&[&tlv(0x17, b"250101000000Z"), &tlv(0x18, b"20990101000000Z")]),
            spki,
            extensions: Vec::new(),
            outer_algorithm: None,
        }
    }

    /// The certificate, PEM-encoded (its signature is not checked by the server).
    fn pem(&self) -> String {
        // ecdsa-with-SHA256, CN=a.
        let algorithm = seq(&[&tlv(
            0x06,
            &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02],
        )]);
        let name = seq(&[&tlv(
            0x31,
            &seq(&[&tlv(0x06, &[0x55, 0x04, 0x03]), &tlv(0x0c, b"a")]),
        )]);
        let extensions = if self.extensions.is_empty() {
            Vec::new()
        } else {
            tlv(0xa3, &tlv(0x30, &self.extensions.concat()))
        };
        let tbs = seq(&[
            &self.version,
            &[0x02, 0x01, 0x01],
            &algorithm,
            &name,
            &self.validity,
            &name,
            &self.spki,
            &extensions,
        ]);
        let outer = self.outer_algorithm.as_ref().unwrap_or(&algorithm);
        pem(
            "CERTIFICATE",
            &seq(&[&tbs, outer, &tlv(0x03, &[0x00, 0x30, 0x00])]),
        )
    }
}

/// An extension `2.5.29.<number>`.
fn extension(number: u8, value: &[u8]) -> Vec<u8> {
    seq(&[&tlv(0x06, &[0x55, 0x1d, number]), &tlv(0x04, value)])
}

/// An RSA key's INTEGERs (small numbers).
fn integers(values: &[u16]) -> Vec<u8> {
    values
        .iter()
        .flat_map(|v| {
            let bytes = v.to_be_bytes();
            let start = if bytes[0] == 0 && bytes[1] & 0x80 == 0 {
                1
            } else {
                0
            };
            let mut contents = bytes[start..].to_vec();
            if contents[0] & 0x80 != 0 {
                contents.insert(0, 0);
            }
            tlv(0x02, &contents)
        })
        .collect()
}

/// Creates (dry run) a TLS Secret of each certificate and key and checks the warning it
/// gets: none, or Go's error.
async fn expect_warnings(
    env: &kubeforge_testenv::TestEnv,
    cases: Vec<(String, String, Option<&str>)>,
) {
    let client = crate::support::raw::client(env).await;
    let path = format!("/api/v1/namespaces/{}/secrets?dryRun=All", env.namespace());
    for (crt, tls_key, warning) in cases {
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "tls"},
            "type": "kubernetes.io/tls", "stringData": {"tls.crt": crt, "tls.key": tls_key}});
        let (code, headers, _) = crate::support::raw::exchange(
            &client,
            "POST",
            &path,
            &[("Content-Type", "application/json")],
            Some(&secret),
        )
        .await;
        assert_eq!(code, 201);
        let sent = crate::support::raw::warnings(&headers);
        let expected: Vec<String> = warning
            .iter()
            .map(|w| format!("299 - \"{}\"", w.replace('\\', "\\\\").replace('"', "\\\"")))
            .collect();
        assert_eq!(sent, expected, "{warning:?}");
    }
}

/// A TLS Secret whose `tls.crt` and `tls.key` do not load as a key pair is stored with
/// `tls.X509KeyPair`'s error as a warning; a pair that loads is not warned of.
#[tokio::test]
async fn tls_secrets_warn_of_a_pair_that_does_not_load() {
    let env = env().await;
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let cert = rcgen::CertificateParams::new(vec!["a.example.com".into()])
        .unwrap()
        .self_signed(&key)
        .unwrap()
        .pem();
    let other = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)
        .unwrap()
        .serialize_pem();
    let cases = [
        (cert.clone(), key.serialize_pem(), None),
        (
            "x".to_string(),
            key.serialize_pem(),
            Some("tls: failed to find any PEM data in certificate input"),
        ),
        (
            cert.clone(),
            String::new(),
            Some("tls: failed to find any PEM data in key input"),
        ),
        (
            key.serialize_pem(),
            cert.clone(),
            Some(
                "tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched",
            ),
        ),
        (
            cert.clone(),
            cert.clone(),
            Some("tls: found a certificate rather than a key in the PEM for the private key"),
        ),
        (
            cert.clone(),
            other,
            Some("tls: private key does not match public key"),
        ),
    ];
    expect_warnings(&env, cases.to_vec()).await;
}

/// A certificate and a key that do not load make a warning with Go's error; the real
/// server's answers (v1.34.9, Go 1.27).
#[tokio::test]
async fn tls_secrets_warn_of_a_malformed_certificate_or_an_inconsistent_rsa_key() {
    let env = env().await;
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let spki = key.subject_public_key_info();
    let ec_key = key.serialize_pem();
    let with = |change: &dyn Fn(&mut Parts)| {
        let mut parts = Parts::new(spki.clone());
        change(&mut parts);
        parts.pem()
    };
    let key_usage = extension(15, &tlv(0x03, &[0x07, 0x80]));
    // A textbook RSA key (n = 61 * 53, e = 17): Go parses keys of any size.
    let rsa_spki = seq(&[
        &seq(&[
            &tlv(
                0x06,
                &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01],
            ),
            &[0x05, 0x00],
        ]),
        &tlv(
            0x03,
            &[&[0u8][..], &seq(&[&integers(&[3233, 17])])].concat(),
        ),
    ]);
    let rsa_cert = Parts::new(rsa_spki).pem();
    let pkcs8 = |numbers: &[u16]| {
        let algorithm = seq(&[
            &tlv(
                0x06,
                &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01],
            ),
            &[0x05, 0x00],
        ]);
        let pkcs1 = seq(&[&integers(numbers)]);
        pem(
            "PRIVATE KEY",
            &seq(&[&[0x02, 0x01, 0x00], &algorithm, &tlv(0x04, &pkcs1)]),
        )
    };
    let cases: Vec<(String, String, Option<&str>)> = vec![
        (with(&|_| {}), ec_key.clone(), None),
        (
            with(&|p| p.version = tlv(0xa0, &[0x02, 0x01, 0x03])),
            ec_key.clone(),
            Some("x509: invalid version"),
        ),
        (
            with(&|p| p.outer_algorithm = Some(seq(&[&tlv(0x06, &[0x2a, 0x03])]))),
            ec_key.clone(),
            Some("x509: inner and outer signature algorithm identifiers don't match"),
        ),
        (
            with(&|p| {
                p.validity = seq(&[
                    &tlv(0x17, b"250101000000Z"),
                    &tlv(0x18, b"20990101000000.5Z"),
                ]);
            }),
            ec_key.clone(),
            Some("x509: malformed GeneralizedTime"),
        ),
        (
            with(&|p| p.extensions = vec![key_usage.clone(), key_usage.clone()]),
            ec_key.clone(),
            Some("x509: certificate contains duplicate extension with OID \"2.5.29.15\""),
        ),
        (
            with(&|p| {
                let constraint = tlv(0x87, &[10, 0, 0, 0, 0xff, 0, 0xff, 0]);
                let subtrees = tlv(0xa0, &seq(&[&constraint]));
                p.extensions = vec![extension(30, &seq(&[&subtrees]))];
            }),
            ec_key.clone(),
            Some("x509: IP constraint contained invalid mask ff00ff00"),
        ),
        (
            rsa_cert.clone(),
            pkcs8(&[0, 3233, 17, 2753, 61, 53, 53, 49, 38]),
            None,
        ),
        (
            rsa_cert.clone(),
            pkcs8(&[0, 3233, 17, 2754, 61, 53, 53, 49, 38]),
            Some(
                "tls: failed to parse private key: x509: failed to parse RSA private key embedded in PKCS#8: crypto/rsa: d does not match dP",
            ),
        ),
        (
            rsa_cert.clone(),
            pkcs8(&[0, 3233, 17, 2753, 61, 53, 53, 49, 39]),
            Some(
                "tls: failed to parse private key: x509: failed to parse RSA private key embedded in PKCS#8: crypto/rsa: invalid CRT coefficient",
            ),
        ),
        (
            rsa_cert,
            pem(
                "RSA PRIVATE KEY",
                &seq(&[&integers(&[0, 3233, 17, 2754, 61, 53])]),
            ),
            Some(
                "tls: failed to parse private key: x509: failed to parse private key (use ParsePKCS1PrivateKey instead for this key format)",
            ),
        ),
    ];
    expect_warnings(&env, cases).await;
}

/// A 2048-bit RSA key whose p is not prime but which is otherwise consistent (pq = n, d
/// inverts e modulo p - 1 and q - 1, the CRT values match) loads: Go tests no factor for
/// primality, and runs its pairwise sign-and-verify test (which such a key fails) only in
/// FIPS 140 mode, which kube-apiserver does not run in. One unit more in d is refused.
#[tokio::test]
async fn tls_secrets_load_a_consistent_rsa_key_with_a_composite_factor() {
    use base64::Engine;
    let env = env().await;
    let der = |b64: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(b64.split_whitespace().collect::<String>())
            .unwrap()
    };
    let cert = Parts::new(der(RSA_2048_COMPOSITE_P_SPKI)).pem();
    let key = der(RSA_2048_COMPOSITE_P);
    // d is the fourth INTEGER of the SEQUENCE (after 0, n and e): add 2 to it (its last
    // byte is odd).
    let element = |at: usize| match key[at + 1] {
        0x82 => (4, usize::from(key[at + 2]) << 8 | usize::from(key[at + 3])),
        0x81 => (3, usize::from(key[at + 2])),
        short => (2, usize::from(short)),
    };
    let mut at = 4;
    for _ in 0..3 {
        let (header, len) = element(at);
        at += header + len;
    }
    let (header, len) = element(at);
    let mut other = key.clone();
    assert_eq!(other[at + header + len - 1] & 0x03, 0x01);
    other[at + header + len - 1] += 2;
    let cases = vec![
        (cert.clone(), pem("RSA PRIVATE KEY", &key), None),
        (
            cert,
            pem("RSA PRIVATE KEY", &other),
            Some(
                "tls: failed to parse private key: x509: failed to parse private key (use ParsePKCS1PrivateKey instead for this key format)",
            ),
        ),
    ];
    expect_warnings(&env, cases).await;
}

/// The public key (SubjectPublicKeyInfo) of [`RSA_2048_COMPOSITE_P`].
const RSA_2048_COMPOSITE_P_SPKI: &str = "\
    MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAgOECNB9KNrtY++NSXQ0kfAzlwBnH17oZu9EdVCF9XBu0az0j\
    CN9taNWM86j/rbfo8OiAnnGOAIdHaUASjjWV1uRnUzGtbI9y0zyuKF1Xkpqx/GkUlH891fszx8/jBhunX3MwVgBMvL4p\
    KH93b5PFHfn3KeO7dfxB35oZNIgwQKxxFqeOQ+wHe0lUBprVJtdzzuVSbB/xi1g6BRRWsXAapE2aVwG5h2QvT5sg61rW\
    unddtKy2cCQNCrfApdkGKcWN+xpUjLiNxtJFafSajXMySKjVyIyuLFSWV4qHQrlXsoFZfsn+5dSJbqLGThYu446jFkLG\
    9BYki8aUTTKX5TI6vwIDAQAB";
/// A consistent 2048-bit RSA key (PKCS #1) whose p is the product of two 512-bit primes.
const RSA_2048_COMPOSITE_P: &str = "\
    MIIEogIBAAKCAQEAgOECNB9KNrtY++NSXQ0kfAzlwBnH17oZu9EdVCF9XBu0az0jCN9taNWM86j/rbfo8OiAnnGOAIdH\
    aUASjjWV1uRnUzGtbI9y0zyuKF1Xkpqx/GkUlH891fszx8/jBhunX3MwVgBMvL4pKH93b5PFHfn3KeO7dfxB35oZNIgw\
    QKxxFqeOQ+wHe0lUBprVJtdzzuVSbB/xi1g6BRRWsXAapE2aVwG5h2QvT5sg61rWunddtKy2cCQNCrfApdkGKcWN+xpU\
    jLiNxtJFafSajXMySKjVyIyuLFSWV4qHQrlXsoFZfsn+5dSJbqLGThYu446jFkLG9BYki8aUTTKX5TI6vwIDAQABAoIB\
    AAE3Xmh0hSRIF1plNlFHfvkmvAJYm/C2wmhp3E9/c2nrnwPGE28RgLxVC5v/E86lZi7j2tbj9nWd0Tg2kRZDfjMFe84m\
    sV7NacWBlJkv7FQnXpelvDp8iu5ajQ4NMbTMjQNTGHkvTooXd1b5AP0OFXWndsQv8IR4CX0dPLCoul/Z3T1dp312JHf4\
    2Xhqpn0rGVgE3xAqJl7UVezch2aGMHcyLA+pphefBEDRG6XOWoIBsWpmmeVil+yZ5zovA4jSlcy5Je/0vZi6fyujZrN0\
    g/P8hhvWsmzZUZeupBZ7rKpKz9LaJJmyFdLRBRn3yBOiW+qGLxMJMJWfbkZ1fBRuD3ECgYEAjkgB+HMTKXLLetiC/OGB\
    rgvq4snnR1cJfYhC56tn8NJS2nj4o8KPQhL+km1W/BRlPk8aBkGThdSBKLHH12NRwkAxxVZXeeqnG1weOXqb71XYTEiI\
    6fy0KEJ0bvBKNH04BO2NefrEjwJpueETWuB8QVQOdPYb5GlsSu7fysYTRo8CgYEA5+LD3CG169oAqoFx6Hz4BKBUAyz/\
    iBDVW1hp2WAE2znQAsgC+lblHvlo1U41ZIltoLQAQAT4tD8vAeCDiXzvS7S4r94k1SqQnNtPuEKOqMSsfO7Qijhst1fV\
    0/n0+WrliAfVegQ72Bv9evGCStZljk08JMkYam4XRrlGXjsAYNECgYAJfL+042d5sg/jZyCE4DyXcG//I1tqpGEbn8Rm\
    UkWiB0RDESHzOXv3+fBDr0rHkEyX9QpVNHYzzFG4dvJOaG8BNuqasAExPfZamq/hQU24jc7Yd1W51IHm1VeSNi+chGUB\
    3x057wDAUHbgUCPMQX/Hk2VLY0XE20q/TGJb0Q1j/QKBgAZkwz+7kjeJkEEjRo/BelkuToKz5+vJgwh8vJZoxlmBE5Iw\
    D5z1bmXXPKO8/03hWCt5KxSYzn6xy0sC9L2Cu1pcBkebGWrjPI+GoIEVHLfcjGD5eLiG68B2ZIfuuWlzIBcLGEDAAyJn\
    Syrro8sKdExjJshg3xJ4LJ4fl6gbelwxAoGAa9RbujJEd8uekI8qnQgwm0ugyg4/s6SazUoW2EicVz7jv9A7OtbbPBuz\
    ZDrL5kv+JlHLZYtOzjT5SLfBEfERIXY5cbKCzvNHryY2lNAZGodJ+QNMqtkapWAHHfGLwPac8SQNkssZQ0tluzNEU4b4\
    rcycVFzO8TxMN6ZtG2hMUbs=";

/// The ML-DSA-44 public key the seed of 32 bytes 0x01 derives (FIPS 204 KeyGen; OpenSSL
/// derives the same), base64.
const ML_DSA_44_PUBLIC_KEY: &str = "Xs4KPWwUutFxQSybcgh9jcGRJY1sEGu6fyhQxyAYfH/vpCec62kvrBeMQRyNAENqJyRlhM1XbKGlvLBbWVJw8XNGDqZHJMtUJ6xh+eEgXB3JwECFZ9JBYZe36np46WnsL5nHOkxrcijrSeNi4X1dXVGJgC0eDUEy4HtOyb/m4YVW6vu/vU05KlpbsOFN3y9IrtiB10iygXkzcGajlfmQeZh2TaWNWstwc4thjkaCu6vXjQEC6Jby41ufucSqJX3NxH73wtipBrgMfnGlgoE3CPbWe7Y84ArnN1O5XrGm67ZptgjmX0+ZsDYEpnawNa1yPkVt9YhRlOER+PmgvGAUBXcFi5G4Ucks90a7D0qP2xMiBCYfi+8pDPMjZrIPh4HAtGCTSKS/O1F1JtqzjnA0b2EpymKXqkpFidBe6ntnf7SKrqeuEBjF+WNuUl7UeEkzDNgQWKjiVfCkrRNtJUs7dg6VyLsbnBocE8N9A/JQfx9J5PMybhm6RHE+NJdSrqoYwB5N7R5dh2V9SV8BzgBSP4CfarUpKyHKTkql9GwNoTS8zqHILvxBKHosBv9S7zhRE1Vqqi1YIfPq66OFW+o4Nl5g8Q0U0LZB5qL+MfnW1aXksrxXVmaN51ynUgTcZ90QDxO572rZfCB7r14ytHBUhOoUkwCumubzcbClvouQCKki0aJjz9YwfnEaMIrdPfRDWT7BI9jtCbZtAd92HA9iqZKsl90eCLz/e5Ne+1gFzAOxLhD7YcjUReiFrgIr1Exkws8Q+qe+eDD1AunWDYd05eER0ewuHJww/bWIqG9z5vPPpc69bPCGUbkHsJdXfHBqfYw6NA1L4t/yfPPiTYBrfeOs9jlPHSXYsZ2HM09sSjuUb4rQSt8CiVsWX2qioXYXSIEmcTrE2W1jI+WzRFqnAq9X/n/dzZngkEz5I2YENiUsyFRz0rWEuiS5p5ePaQ3FhVAZZSJnL7elGA0POZiDVfmqahHiRsLIyepNNiZfj8qhEvSgp2XIjqA6pVVleA82RYBU8aFDznRH2hcmKGS5xh3Ex4Zjx09X5TExRMLzrWd8FLmsBVACujs1B8JaBg9TMKUvKgmVCzeS+t5K6hWXQT97gam4zMlO1rwAmVOJTbWHQ2hSY9YeT8/OC0bArx7D2DONl9spezSp50Vki5+d70bKltFwM2WUlCVOpDpCwOH4gszaE23gXC/C0bqJJgOmxDDUFkIPbDDc29P7kvIE1osYed4BbIYcRvYfDe0uKDYd4nfszMNleiCd2qr2xY19kq0GPGRp5zsw8hWWv3D/CeY5KFh8qC0mH1SuxVaWCZkcZS3idstJEu5aVOPApZdfk+O3g/abLsFy4enbqYOKyfBkjGzHqaepYzJsFcErXg2CFrOwhExns/7SxfIrT/iCFBkz3ondxmbf9q6wzPYpe5B72E7ZC7YnZvJjweXvTji8WHdA5PRH0E99msN03O/53bHxUczeVq+qqYyaU8c8NNyq43o4rCa//cT8GsHQBBvlba33rnmca0v1D/J/VnWj1s39I/hZ0A8nW0g6F7XMRawNgncIsbN0rO5r+ueYjoKxIeW9dveNUnQgiAqr3fqY9LoY4yJEMns+J7BxHsKPYkbn6nSaXmvqzVbe6O963uIMyj9vnpIFWQ7CHjMOgeNXhsY1ALuq5j5JokEbqJuFqd/bnTeUYt2zi31Rlf+lc7Rij89aTnagVnhtrJ2o0idWbEUXnFuybOT9egn8Y1gqig==";

/// An ML-DSA pair loads when the key's seed derives the certificate's public key; a
/// certificate's ML-DSA key of the wrong length and an ML-DSA key in a form other than
/// the seed are warned of with Go's errors; the real server's answers (v1.34.9, Go 1.27).
#[tokio::test]
async fn tls_secrets_load_ml_dsa_pairs_from_their_seed() {
    use base64::Engine;
    let env = env().await;
    let public = base64::engine::general_purpose::STANDARD
        .decode(ML_DSA_44_PUBLIC_KEY)
        .unwrap();
    // id-ml-dsa-44, 2.16.840.1.101.3.4.3.17, without parameters.
    let algorithm = seq(&[&tlv(
        0x06,
        &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x11],
    )]);
    let certificate = |key: &[u8]| {
        let bits = [&[0u8][..], key].concat();
        Parts::new(seq(&[&algorithm, &tlv(0x03, &bits)])).pem()
    };
    let private = |inner: &[u8]| {
        pem(
            "PRIVATE KEY",
            &seq(&[&[0x02, 0x01, 0x00], &algorithm, &tlv(0x04, inner)]),
        )
    };
    let seed = |byte: u8| [&[0x80u8, 0x20][..], &[byte; 32]].concat();
    let cases: Vec<(String, String, Option<&str>)> = vec![
        (certificate(&public), private(&seed(1)), None),
        (
            certificate(&public),
            private(&seed(2)),
            Some("tls: private key does not match public key"),
        ),
        (
            certificate(&public[..1000]),
            private(&seed(1)),
            Some("mldsa: invalid public key length"),
        ),
        (
            certificate(&public),
            private(&[0x30, 0x00]),
            Some(
                "tls: failed to parse private key: x509: ML-DSA private keys with both seed and expanded key are not supported, use e.g. \"openssl pkey -provparam ml-dsa.output_formats=seed-only\" to convert to a seed-only key",
            ),
        ),
        (
            certificate(&public),
            private(&[0x04, 0x01, 0x00]),
            Some(
                "tls: failed to parse private key: x509: semi-expanded ML-DSA private keys without seed are not supported",
            ),
        ),
    ];
    expect_warnings(&env, cases).await;
}
