//! ML-DSA (FIPS 204) as far as a TLS key pair needs it: the three parameter sets with
//! their OIDs (RFC 9881) and public key sizes, and the public key a 32-byte seed derives
//! (`ML-DSA.KeyGen_internal`: ExpandA with SHAKE128, ExpandS with SHAKE256, the NTT and
//! Power2Round), so that a seed-only private key can be compared with a certificate's
//! public key as Go's `tls.X509KeyPair` compares them. Nothing is signed.

use super::shake::Shake;

/// The modulus q.
const Q: u32 = 8_380_417;
/// 256⁻¹ mod q, the inverse NTT's final factor.
const INVERSE_256: u64 = 8_347_681;
/// Bits dropped from t by Power2Round.
const D: u32 = 13;

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
    fn dimensions(self) -> (usize, usize, u8) {
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
}

/// A polynomial of 256 coefficients mod q.
type Poly = [u32; 256];

/// ζ^BitRev₈(i) mod q for i in 0..256 (ζ = 1753).
fn zetas() -> [u32; 256] {
    let mut out = [0u32; 256];
    for (i, zeta) in out.iter_mut().enumerate() {
        let exponent = (i as u8).reverse_bits();
        *zeta = (0..exponent).fold(1u64, |acc, _| acc * 1753 % u64::from(Q)) as u32;
    }
    out
}

fn mul(a: u32, b: u32) -> u32 {
    (u64::from(a) * u64::from(b) % u64::from(Q)) as u32
}

fn add(a: u32, b: u32) -> u32 {
    (a + b) % Q
}

fn sub(a: u32, b: u32) -> u32 {
    (a + Q - b) % Q
}

/// The NTT (FIPS 204 Algorithm 41).
fn ntt(w: &mut Poly, zetas: &[u32; 256]) {
    let mut m = 0;
    let mut len = 128;
    while len >= 1 {
        for start in (0..256).step_by(2 * len) {
            m += 1;
            let zeta = zetas[m];
            for j in start..start + len {
                let t = mul(zeta, w[j + len]);
                w[j + len] = sub(w[j], t);
                w[j] = add(w[j], t);
            }
        }
        len /= 2;
    }
}

/// The inverse NTT (FIPS 204 Algorithm 42).
fn inverse_ntt(w: &mut Poly, zetas: &[u32; 256]) {
    let mut m = 256;
    let mut len = 1;
    while len < 256 {
        for start in (0..256).step_by(2 * len) {
            m -= 1;
            let zeta = Q - zetas[m];
            for j in start..start + len {
                let t = w[j];
                w[j] = add(t, w[j + len]);
                w[j + len] = mul(zeta, sub(t, w[j + len]));
            }
        }
        len *= 2;
    }
    for c in w.iter_mut() {
        *c = (u64::from(*c) * INVERSE_256 % u64::from(Q)) as u32;
    }
}

/// RejNTTPoly: a polynomial in the NTT domain, uniform mod q, from SHAKE128 of `seed`.
fn rejection_ntt_poly(seed: &[u8]) -> Poly {
    let mut shake = Shake::shake128(seed);
    let mut out = [0u32; 256];
    let mut filled = 0;
    let mut three = [0u8; 3];
    while filled < 256 {
        shake.read(&mut three);
        let value =
            u32::from(three[0]) | u32::from(three[1]) << 8 | u32::from(three[2] & 0x7f) << 16;
        if value < Q {
            out[filled] = value;
            filled += 1;
        }
    }
    out
}

/// RejBoundedPoly: a polynomial with coefficients in [-η, η] (kept mod q), from
/// SHAKE256 of `seed`.
fn rejection_bounded_poly(seed: &[u8], eta: u8) -> Poly {
    let mut shake = Shake::shake256(seed);
    let mut out = [0u32; 256];
    let mut filled = 0;
    let mut byte = [0u8; 1];
    while filled < 256 {
        shake.read(&mut byte);
        for half in [byte[0] & 0x0f, byte[0] >> 4] {
            let coefficient = match eta {
                2 if half < 15 => 2 - i32::from(half % 5),
                4 if half < 9 => 4 - i32::from(half),
                _ => continue,
            };
            if filled < 256 {
                out[filled] = coefficient.rem_euclid(Q as i32) as u32;
                filled += 1;
            }
        }
    }
    out
}

/// The public key (`pkEncode(ρ, t1)`) the seed ξ derives for `set`.
pub fn public_key_from_seed(set: ParameterSet, seed: &[u8; 32]) -> Vec<u8> {
    let (k, l, eta) = set.dimensions();
    let mut input = seed.to_vec();
    input.extend([k as u8, l as u8]);
    let expanded = Shake::shake256(&input).take(96);
    let (rho, rho_prime) = expanded.split_at(32);
    let zetas = zetas();

    let s1: Vec<Poly> = (0..l)
        .map(|r| {
            let mut seed = rho_prime.to_vec();
            seed.extend((r as u16).to_le_bytes());
            let mut poly = rejection_bounded_poly(&seed, eta);
            ntt(&mut poly, &zetas);
            poly
        })
        .collect();

    let mut encoded = rho.to_vec();
    let mut bits: u32 = 0;
    let mut held = 0;
    for r in 0..k {
        let mut t = [0u32; 256];
        for (s, s1_hat) in s1.iter().enumerate() {
            let mut seed = rho.to_vec();
            seed.extend([s as u8, r as u8]);
            let a = rejection_ntt_poly(&seed);
            for i in 0..256 {
                t[i] = add(t[i], mul(a[i], s1_hat[i]));
            }
        }
        inverse_ntt(&mut t, &zetas);
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
