//! The NIST curves Go's `crypto/x509` knows (P-224, P-256, P-384, P-521): their field
//! primes and coordinate lengths, Go's names for them in point errors, whether an
//! uncompressed point is on the curve, and ECDSA verification of a digest as
//! `ecdsa.VerifyASN1` checks it (the RustCrypto curves).

use p256::ecdsa::signature::hazmat::PrehashVerifier;

/// The curves Go knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Curve {
    P224,
    P256,
    P384,
    P521,
}

impl Curve {
    pub fn coordinate_len(self) -> usize {
        match self {
            Curve::P224 => 28,
            Curve::P256 => 32,
            Curve::P384 => 48,
            Curve::P521 => 66,
        }
    }

    /// The name in Go's point errors.
    pub fn name(self) -> &'static str {
        match self {
            Curve::P224 => "P224",
            Curve::P256 => "P256",
            Curve::P384 => "P384",
            Curve::P521 => "P521",
        }
    }

    /// The field's prime, big-endian, as long as a coordinate.
    pub fn prime(self) -> Vec<u8> {
        let ff = |n: usize| vec![0xffu8; n];
        match self {
            // 2^224 - 2^96 + 1
            Curve::P224 => [ff(16), vec![0; 11], vec![1]].concat(),
            // 2^256 - 2^224 + 2^192 + 2^96 - 1
            Curve::P256 => [ff(4), vec![0, 0, 0, 1], vec![0; 12], ff(12)].concat(),
            // 2^384 - 2^128 - 2^96 + 2^32 - 1
            Curve::P384 => [ff(31), vec![0xfe], ff(4), vec![0; 8], ff(4)].concat(),
            // 2^521 - 1
            Curve::P521 => [vec![0x01], ff(65)].concat(),
        }
    }

    /// Whether an uncompressed point (`04 || x || y`) is on the curve.
    pub fn on_curve(self, point: &[u8]) -> bool {
        match self {
            Curve::P224 => p224::ecdsa::VerifyingKey::from_sec1_bytes(point).is_ok(),
            Curve::P256 => p256::ecdsa::VerifyingKey::from_sec1_bytes(point).is_ok(),
            Curve::P384 => p384::ecdsa::VerifyingKey::from_sec1_bytes(point).is_ok(),
            Curve::P521 => p521::ecdsa::VerifyingKey::from_sec1_bytes(point).is_ok(),
        }
    }

    /// `ecdsa.VerifyASN1` of a digest (the hash's bits taken as Go takes them: the leftmost
    /// ones, as many as the order has).
    pub fn verify(self, point: &[u8], digest: &[u8], signature: &[u8]) -> bool {
        let len = self.coordinate_len();
        let mut prehash = vec![0u8; len.saturating_sub(digest.len())];
        prehash.extend_from_slice(&digest[..digest.len().min(len)]);
        macro_rules! verify {
            ($curve:ident) => {{
                let Ok(key) = $curve::ecdsa::VerifyingKey::from_sec1_bytes(point) else {
                    return false;
                };
                let Ok(sig) = $curve::ecdsa::Signature::from_der(signature) else {
                    return false;
                };
                key.verify_prehash(&prehash, &sig).is_ok()
            }};
        }
        match self {
            Curve::P224 => verify!(p224),
            Curve::P256 => verify!(p256),
            Curve::P384 => verify!(p384),
            Curve::P521 => verify!(p521),
        }
    }
}
