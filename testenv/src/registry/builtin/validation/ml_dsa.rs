//! ML-DSA (FIPS 204): the three parameter sets with their OIDs (RFC 9881), key and
//! signature sizes and the constants verification needs, and the public key a 32-byte seed
//! derives (`ML-DSA.KeyGen_internal`: ExpandA with SHAKE128, ExpandS with SHAKE256, the NTT
//! and Power2Round), so that a seed-only private key can be compared with a certificate's
//! public key as Go's `tls.X509KeyPair` compares them. Signatures are checked in
//! [`super::ml_dsa_verify`]; nothing is signed.

use super::ml_dsa_ring::{Poly, Q, Zetas, add, matrix_entry, mul, rejection_bounded_poly};
use super::shake::Shake;

/// Bits dropped from t by Power2Round.
pub const D: u32 = 13;

/// An ML-DSA parameter set.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ParameterSet {
    MlDsa44,
    MlDsa65,
    MlDsa87,
}

impl ParameterSet {
    /// The set an algorithm OID (its DER contents) names, if it names one.
    pub fn from_oid(oid: &[u8]) -> Option<Self> {
        const PREFIX: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03];
        match oid.strip_prefix(PREFIX)? {
            [0x11] => Some(Self::MlDsa44),
            [0x12] => Some(Self::MlDsa65),
            [0x13] => Some(Self::MlDsa87),
            _ => None,
        }
    }

    /// (k, ℓ, η): the matrix's rows and columns and the secret coefficients' bound.
    pub fn dimensions(self) -> (usize, usize, u8) {
        match self {
            Self::MlDsa44 => (4, 4, 2),
            Self::MlDsa65 => (6, 5, 4),
            Self::MlDsa87 => (8, 7, 2),
        }
    }

    /// The length of an encoded public key: ρ and k polynomials of 10-bit coefficients.
    pub fn public_key_size(self) -> usize {
        32 + self.dimensions().0 * 320
    }

    /// The name Go prints (`mldsa.Parameters.String`).
    pub fn name(self) -> &'static str {
        match self {
            Self::MlDsa44 => "ML-DSA-44",
            Self::MlDsa65 => "ML-DSA-65",
            Self::MlDsa87 => "ML-DSA-87",
        }
    }

    /// The constants of a signature: the challenge's length in bytes (λ/4) and its number
    /// of ±1 coefficients (τ), log₂ γ1 (the range of z), γ2 (the low-order rounding range),
    /// β = τ·η (the margin z must keep below γ1) and ω (the most hints).
    pub fn signature_constants(self) -> SignatureConstants {
        let (challenge_bytes, tau, gamma1_bits, gamma2_divisor, omega) = match self {
            Self::MlDsa44 => (32, 39, 17, 88, 80),
            Self::MlDsa65 => (48, 49, 19, 32, 55),
            Self::MlDsa87 => (64, 60, 19, 32, 75),
        };
        SignatureConstants {
            challenge_bytes,
            tau,
            gamma1_bits,
            gamma2: (Q - 1) / gamma2_divisor,
            beta: tau * u32::from(self.dimensions().2),
            omega,
        }
    }

    /// The length of an encoded signature: c̃, ℓ polynomials of z and the hints.
    pub fn signature_size(self) -> usize {
        let (k, l, _) = self.dimensions();
        let c = self.signature_constants();
        c.challenge_bytes + l * 32 * (c.gamma1_bits as usize + 1) + c.omega + k
    }
}

/// The constants of a parameter set's signatures ([`ParameterSet::signature_constants`]).
pub struct SignatureConstants {
    pub challenge_bytes: usize,
    pub tau: u32,
    pub gamma1_bits: u32,
    pub gamma2: u32,
    pub beta: u32,
    pub omega: usize,
}

/// The public key (`pkEncode(ρ, t1)`) the seed ξ derives for `set`.
pub fn public_key_from_seed(set: ParameterSet, seed: &[u8; 32]) -> Vec<u8> {
    let (k, l, eta) = set.dimensions();
    let mut input = seed.to_vec();
    input.extend([k as u8, l as u8]);
    let expanded = Shake::shake256(&input).take(96);
    let (rho, rho_prime) = expanded.split_at(32);
    let zetas = Zetas::new();

    let s1: Vec<Poly> = (0..l)
        .map(|r| {
            let mut seed = rho_prime.to_vec();
            seed.extend((r as u16).to_le_bytes());
            let mut poly = rejection_bounded_poly(&seed, eta);
            zetas.ntt(&mut poly);
            poly
        })
        .collect();

    let mut encoded = rho.to_vec();
    let mut bits: u32 = 0;
    let mut held = 0;
    for r in 0..k {
        let mut t = [0u32; 256];
        for (s, s1_hat) in s1.iter().enumerate() {
            let a = matrix_entry(rho, r, s);
            for i in 0..256 {
                t[i] = add(t[i], mul(a[i], s1_hat[i]));
            }
        }
        zetas.inverse_ntt(&mut t);
        let mut seed = rho_prime.to_vec();
        seed.extend(((r + l) as u16).to_le_bytes());
        let s2 = rejection_bounded_poly(&seed, eta);
        for (c, e) in t.iter().zip(s2) {
            let value = add(*c, e);
            // Power2Round: t1 = (t - t0) / 2^d with t0 in (-2^(d-1), 2^(d-1)].
            let low = value % (1 << D);
            let high = if low > 1 << (D - 1) {
                (value >> D) + 1
            } else {
                value >> D
            };
            bits |= high << held;
            held += 10;
            while held >= 8 {
                encoded.push(bits as u8);
                bits >>= 8;
                held -= 8;
            }
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SHA-256 of a public key, in hex.
    fn fingerprint(key: &[u8]) -> String {
        ring::digest::digest(&ring::digest::SHA256, key)
            .as_ref()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn seeds_derive_the_public_keys_openssl_derives() {
        // OpenSSL 4.0's ML-DSA key generation from these seeds (via Python's cryptography).
        for (set, seed, want) in VECTORS {
            let key = public_key_from_seed(set, &[seed; 32]);
            assert_eq!(key.len(), set.public_key_size());
            assert_eq!(fingerprint(&key), want, "{set:?}");
        }
    }

    #[test]
    fn sizes_are_fips_204s() {
        let sizes = |set: ParameterSet| (set.public_key_size(), set.signature_size());
        assert_eq!(sizes(ParameterSet::MlDsa44), (1312, 2420));
        assert_eq!(sizes(ParameterSet::MlDsa65), (1952, 3309));
        assert_eq!(sizes(ParameterSet::MlDsa87), (2592, 4627));
        assert_eq!(ParameterSet::MlDsa65.signature_constants().beta, 196);
    }

    #[test]
    fn oids_name_the_sets() {
        let oid = |last| [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, last];
        assert_eq!(
            ParameterSet::from_oid(&oid(0x12)),
            Some(ParameterSet::MlDsa65)
        );
        assert_eq!(ParameterSet::from_oid(&oid(0x14)), None);
        assert_eq!(ParameterSet::from_oid(&[0x2b, 0x65, 0x70]), None);
    }

    const VECTORS: [(ParameterSet, u8, &str); 4] = [
        (
            ParameterSet::MlDsa44,
            0x01,
            "bc7f72c940225e3998067ebef1d7cd2cad938de8f70b34c515a81d9efacac204",
        ),
        (
            ParameterSet::MlDsa65,
            0x02,
            "fda6ad37a2ab2ae563455cc73b3d263e13fc889914d975127dfbb3a07f274a1d",
        ),
        (
            ParameterSet::MlDsa87,
            0x03,
            "3a3db02cec39c0cb089d196de7536cb82db96b1c3d29aa30c7085bae0bda8d74",
        ),
        (
            ParameterSet::MlDsa44,
            0xa5,
            "95b022f18fe91ac973f747726a73e07b361f69222abaa5666a99a412b9ea6263",
        ),
    ];
}
