//! The ring ML-DSA (FIPS 204) computes in: polynomials of 256 coefficients mod q, their NTT
//! and its inverse, and the samplers that draw polynomials from SHAKE (RejNTTPoly for the
//! matrix A, RejBoundedPoly for the secret vectors). Key generation ([`super::ml_dsa`]) and
//! verification ([`super::ml_dsa_verify`]) both build on it.

use super::shake::Shake;

/// The modulus q.
pub const Q: u32 = 8_380_417;
/// 256⁻¹ mod q, the inverse NTT's final factor.
const INVERSE_256: u64 = 8_347_681;

/// A polynomial of 256 coefficients mod q.
pub type Poly = [u32; 256];

/// ζ^BitRev₈(i) mod q for i in 0..256 (ζ = 1753), the NTT's twiddle factors.
pub struct Zetas([u32; 256]);

impl Zetas {
    pub fn new() -> Self {
        let mut out = [0u32; 256];
        for (i, zeta) in out.iter_mut().enumerate() {
            let exponent = (i as u8).reverse_bits();
            *zeta = (0..exponent).fold(1u64, |acc, _| acc * 1753 % u64::from(Q)) as u32;
        }
        Zetas(out)
    }

    /// The NTT (FIPS 204 Algorithm 41).
    pub fn ntt(&self, w: &mut Poly) {
        let mut m = 0;
        let mut len = 128;
        while len >= 1 {
            for start in (0..256).step_by(2 * len) {
                m += 1;
                let zeta = self.0[m];
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
    pub fn inverse_ntt(&self, w: &mut Poly) {
        let mut m = 256;
        let mut len = 1;
        while len < 256 {
            for start in (0..256).step_by(2 * len) {
                m -= 1;
                let zeta = Q - self.0[m];
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
}

pub fn mul(a: u32, b: u32) -> u32 {
    (u64::from(a) * u64::from(b) % u64::from(Q)) as u32
}

pub fn add(a: u32, b: u32) -> u32 {
    (a + b) % Q
}

pub fn sub(a: u32, b: u32) -> u32 {
    (a + Q - b) % Q
}

/// A signed value (|v| < q) as a coefficient mod q.
pub fn from_signed(v: i32) -> u32 {
    v.rem_euclid(Q as i32) as u32
}

/// Entry (r, s) of the matrix Â that ExpandA derives from ρ (RejNTTPoly of ρ ‖ s ‖ r): a
/// polynomial in the NTT domain, uniform mod q.
pub fn matrix_entry(rho: &[u8], r: usize, s: usize) -> Poly {
    let mut seed = rho.to_vec();
    seed.extend([s as u8, r as u8]);
    let mut shake = Shake::shake128(&seed);
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

/// RejBoundedPoly: a polynomial with coefficients in [-η, η] (kept mod q), from SHAKE256
/// of `seed`.
pub fn rejection_bounded_poly(seed: &[u8], eta: u8) -> Poly {
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
                out[filled] = from_signed(coefficient);
                filled += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inverse_ntt_undoes_the_ntt_and_products_are_convolutions() {
        let zetas = Zetas::new();
        let mut a = [0u32; 256];
        for (i, c) in a.iter_mut().enumerate() {
            *c = (i as u32 * 7919 + 3) % Q;
        }
        let mut round = a;
        zetas.ntt(&mut round);
        assert_ne!(round, a);
        zetas.inverse_ntt(&mut round);
        assert_eq!(round, a);
        // x · x^255 = x^256 = -1 in Z_q[X]/(X^256 + 1).
        let (mut x, mut x255) = ([0u32; 256], [0u32; 256]);
        x[1] = 1;
        x255[255] = 1;
        zetas.ntt(&mut x);
        zetas.ntt(&mut x255);
        let mut product: Poly = std::array::from_fn(|i| mul(x[i], x255[i]));
        zetas.inverse_ntt(&mut product);
        let mut want = [0u32; 256];
        want[0] = Q - 1;
        assert_eq!(product, want);
    }
}
