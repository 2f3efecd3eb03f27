//! An RSA signature checked as Go's `crypto/rsa` checks it for `x509`'s `CheckSignature`:
//! the key's limits first (at least 1024 bits, an odd modulus, an odd exponent from 3 to
//! 2^31 - 1), then `s^e mod n` and the PKCS #1 v1.5 encoding of the digest, or
//! EMSA-PSS-VERIFY with MGF1 on the message's hash and a salt as long as the hash (what
//! `x509` asks for). Any key size Go takes is checked, above 8192 bits too; the digests
//! come from ring, the arithmetic (Montgomery multiplication on 64-bit limbs) is here.

use ring::digest;

/// Why Go refuses an RSA signature, in its words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RsaError {
    /// A modulus under 1024 bits.
    #[error(
        "crypto/rsa: {0}-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)"
    )]
    Insecure(usize),
    /// An even modulus.
    #[error("crypto/rsa: public modulus is even")]
    EvenModulus,
    /// An exponent under 2.
    #[error("crypto/rsa: public exponent too small or negative")]
    SmallExponent,
    /// An even exponent.
    #[error("crypto/rsa: public exponent is even")]
    EvenExponent,
    /// An exponent above 2^31 - 1.
    #[error("crypto/rsa: public exponent too large")]
    LargeExponent,
    /// A signature that does not match.
    #[error("crypto/rsa: verification error")]
    Verification,
}

/// How the digest is encoded before it is signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Padding {
    /// PKCS #1 v1.5 (`DigestInfo`).
    Pkcs1,
    /// RSASSA-PSS, MGF1 with the same hash, a salt as long as the hash.
    Pss,
}

/// An RSA public key: the modulus (big-endian, positive) and the exponent (positive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    /// The modulus, big-endian, with no leading zero byte.
    pub n: Vec<u8>,
    /// The public exponent.
    pub e: u64,
}

impl PublicKey {
    /// The key from a modulus's big-endian bytes (leading zeros dropped) and its exponent.
    pub fn new(n: &[u8], e: u64) -> PublicKey {
        let start = n.iter().position(|b| *b != 0).unwrap_or(n.len());
        PublicKey {
            n: n[start..].to_vec(),
            e,
        }
    }

    /// The modulus's size in bits.
    pub fn bits(&self) -> usize {
        self.n
            .first()
            .map_or(0, |b| self.n.len() * 8 - b.leading_zeros() as usize)
    }
}

/// The DER of a `DigestInfo` up to the digest, for the hashes x509 signs with.
fn digest_info_prefix(hash: &'static digest::Algorithm) -> Option<&'static [u8]> {
    const SHA1: &[u8] = &[
        0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14,
    ];
    const SHA256: &[u8] = &[
        0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01,
        0x05, 0x00, 0x04, 0x20,
    ];
    const SHA384: &[u8] = &[
        0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02,
        0x05, 0x00, 0x04, 0x30,
    ];
    const SHA512: &[u8] = &[
        0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03,
        0x05, 0x00, 0x04, 0x40,
    ];
    [
        (&digest::SHA1_FOR_LEGACY_USE_ONLY, SHA1),
        (&digest::SHA256, SHA256),
        (&digest::SHA384, SHA384),
        (&digest::SHA512, SHA512),
    ]
    .into_iter()
    .find(|(algorithm, _)| *algorithm == hash)
    .map(|(_, prefix)| prefix)
}

/// Go's checks of the key, in its order.
fn check_key(key: &PublicKey) -> Result<(), RsaError> {
    let bits = key.bits();
    if bits < 1024 {
        return Err(RsaError::Insecure(bits));
    }
    if key.n.last().is_some_and(|b| b & 1 == 0) {
        return Err(RsaError::EvenModulus);
    }
    if key.e < 2 {
        return Err(RsaError::SmallExponent);
    }
    if key.e & 1 == 0 {
        return Err(RsaError::EvenExponent);
    }
    if key.e > (1 << 31) - 1 {
        return Err(RsaError::LargeExponent);
    }
    Ok(())
}

/// Whether `signature` signs `message` with `key`, `hash` and `padding`, as Go decides.
pub fn verify(
    key: &PublicKey,
    padding: Padding,
    hash: &'static digest::Algorithm,
    message: &[u8],
    signature: &[u8],
) -> Result<(), RsaError> {
    check_key(key)?;
    if signature.len() != key.n.len() {
        return Err(RsaError::Verification);
    }
    let em = Modulus::new(&key.n)
        .pow(signature, key.e)
        .ok_or(RsaError::Verification)?;
    let digest = digest::digest(hash, message);
    let valid = match padding {
        Padding::Pkcs1 => pkcs1_matches(&em, hash, digest.as_ref()),
        Padding::Pss => pss_matches(&em, key.bits() - 1, hash, digest.as_ref()),
    };
    if valid {
        Ok(())
    } else {
        Err(RsaError::Verification)
    }
}

/// Whether `em` is `00 01 FF.. 00 DigestInfo(digest)` (at least 8 bytes of `FF`).
fn pkcs1_matches(em: &[u8], hash: &'static digest::Algorithm, digest: &[u8]) -> bool {
    let Some(prefix) = digest_info_prefix(hash) else {
        return false;
    };
    let t_len = prefix.len() + digest.len();
    if em.len() < t_len + 11 {
        return false;
    }
    let pad = em.len() - t_len - 3;
    em[0] == 0
        && em[1] == 1
        && em[2..2 + pad].iter().all(|b| *b == 0xff)
        && em[2 + pad] == 0
        && &em[3 + pad..3 + pad + prefix.len()] == prefix
        && &em[3 + pad + prefix.len()..] == digest
}

/// MGF1 of `seed` with `hash`, `len` bytes.
fn mgf1(hash: &'static digest::Algorithm, seed: &[u8], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + hash.output_len());
    let mut counter = 0u32;
    while out.len() < len {
        let mut context = digest::Context::new(hash);
        context.update(seed);
        context.update(&counter.to_be_bytes());
        out.extend_from_slice(context.finish().as_ref());
        counter += 1;
    }
    out.truncate(len);
    out
}

/// EMSA-PSS-VERIFY (RFC 8017, 9.1.2) of `em`, the `s^e mod n` as long as the modulus,
/// with `em_bits` the modulus's bits less one and a salt as long as the hash.
fn pss_matches(em: &[u8], em_bits: usize, hash: &'static digest::Algorithm, digest: &[u8]) -> bool {
    let em_len = em_bits.div_ceil(8);
    // A modulus of 8k + 1 bits: the encoding is a byte shorter, its first byte must be 0.
    let Some((leading, em)) = em.split_at_checked(em.len() - em_len) else {
        return false;
    };
    if leading.iter().any(|b| *b != 0) {
        return false;
    }
    let h_len = hash.output_len();
    let s_len = h_len;
    if em_len < h_len + s_len + 2 || em.last() != Some(&0xbc) {
        return false;
    }
    let (masked_db, rest) = em.split_at(em_len - h_len - 1);
    let h = &rest[..h_len];
    let top_mask = 0xffu8 >> (8 * em_len - em_bits);
    if masked_db[0] & !top_mask != 0 {
        return false;
    }
    let mask = mgf1(hash, h, masked_db.len());
    let mut db: Vec<u8> = masked_db.iter().zip(&mask).map(|(a, b)| a ^ b).collect();
    db[0] &= top_mask;
    let ps_len = em_len - h_len - s_len - 2;
    if db[..ps_len].iter().any(|b| *b != 0) || db[ps_len] != 1 {
        return false;
    }
    let salt = &db[db.len() - s_len..];
    let mut context = digest::Context::new(hash);
    context.update(&[0u8; 8]);
    context.update(digest);
    context.update(salt);
    context.finish().as_ref() == h
}

/// An odd modulus for Montgomery arithmetic: little-endian 64-bit limbs, `-n^-1 mod 2^64`
/// and `R^2 mod n` with `R = 2^(64 * limbs)`.
struct Modulus {
    n: Vec<u64>,
    n0_inv: u64,
    bytes: usize,
}

impl Modulus {
    /// `n` big-endian, odd, with no leading zero byte.
    fn new(n: &[u8]) -> Modulus {
        let limbs = limbs_of(n, n.len().div_ceil(8));
        // Newton's iteration doubles the correct low bits of n0^-1 (3 to start with).
        let n0 = limbs[0];
        let mut inverse = n0;
        for _ in 0..5 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(n0.wrapping_mul(inverse)));
        }
        Modulus {
            n: limbs,
            n0_inv: inverse.wrapping_neg(),
            bytes: n.len(),
        }
    }

    /// `R^2 mod n`, by doubling 1 modulo n.
    fn r_squared(&self) -> Vec<u64> {
        let mut r = vec![0u64; self.n.len()];
        r[0] = 1;
        for _ in 0..2 * 64 * self.n.len() {
            let mut carry = 0u64;
            for limb in &mut r {
                let next = *limb >> 63;
                *limb = (*limb << 1) | carry;
                carry = next;
            }
            if carry == 1 || !less(&r, &self.n) {
                sub_assign(&mut r, &self.n);
            }
        }
        r
    }

    /// `a * b / R mod n` for `a, b < n` (coarsely integrated operand scanning).
    fn mul(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        let k = self.n.len();
        let mut t = vec![0u64; k + 2];
        for &ai in a {
            let mut carry = 0u128;
            for j in 0..k {
                let s = u128::from(t[j]) + u128::from(ai) * u128::from(b[j]) + carry;
                t[j] = s as u64;
                carry = s >> 64;
            }
            let s = u128::from(t[k]) + carry;
            t[k] = s as u64;
            t[k + 1] = (s >> 64) as u64;
            let m = t[0].wrapping_mul(self.n0_inv);
            let s = u128::from(t[0]) + u128::from(m) * u128::from(self.n[0]);
            let mut carry = s >> 64;
            for j in 1..k {
                let s = u128::from(t[j]) + u128::from(m) * u128::from(self.n[j]) + carry;
                t[j - 1] = s as u64;
                carry = s >> 64;
            }
            let s = u128::from(t[k]) + carry;
            t[k - 1] = s as u64;
            t[k] = t[k + 1] + (s >> 64) as u64;
            t[k + 1] = 0;
        }
        let overflow = t[k] != 0;
        t.truncate(k);
        if overflow || !less(&t, &self.n) {
            sub_assign(&mut t, &self.n);
        }
        t
    }

    /// `s^e mod n`, big-endian as long as the modulus; `None` when `s >= n` (Go refuses it).
    fn pow(&self, s: &[u8], e: u64) -> Option<Vec<u8>> {
        let base = limbs_of(s, self.n.len());
        if !less(&base, &self.n) {
            return None;
        }
        let base = self.mul(&base, &self.r_squared());
        let mut acc = base.clone();
        for bit in (0..63 - e.leading_zeros()).rev() {
            acc = self.mul(&acc, &acc);
            if e >> bit & 1 == 1 {
                acc = self.mul(&acc, &base);
            }
        }
        let mut one = vec![0u64; self.n.len()];
        one[0] = 1;
        let out = self.mul(&acc, &one);
        let be: Vec<u8> = out.iter().rev().flat_map(|l| l.to_be_bytes()).collect();
        Some(be[be.len() - self.bytes..].to_vec())
    }
}

/// `base^exponent mod modulus` for an odd `modulus` above one (big-endian, no leading zero
/// byte) and `base < modulus`, big-endian as long as the modulus: Go's `bigmod.Nat.Exp`,
/// for the CRT coefficient `crypto/rsa` computes.
pub fn mod_pow(base: &[u8], exponent: &[u8], modulus: &[u8]) -> Vec<u8> {
    let m = Modulus::new(modulus);
    let limbs = m.n.len();
    let mut one = vec![0u64; limbs];
    one[0] = 1;
    let base = m.mul(&limbs_of(base, limbs), &m.r_squared());
    let mut acc = m.mul(&one, &m.r_squared());
    for byte in exponent {
        for bit in (0..8).rev() {
            acc = m.mul(&acc, &acc);
            if byte >> bit & 1 == 1 {
                acc = m.mul(&acc, &base);
            }
        }
    }
    let out = m.mul(&acc, &one);
    let be: Vec<u8> = out.iter().rev().flat_map(|l| l.to_be_bytes()).collect();
    be[be.len() - m.bytes..].to_vec()
}

/// Big-endian bytes as `limbs` little-endian 64-bit limbs.
fn limbs_of(bytes: &[u8], limbs: usize) -> Vec<u64> {
    let mut out = vec![0u64; limbs];
    for (i, b) in bytes.iter().rev().enumerate() {
        out[i / 8] |= u64::from(*b) << (8 * (i % 8));
    }
    out
}

/// `a < b` for numbers of the same number of limbs.
fn less(a: &[u64], b: &[u64]) -> bool {
    for (x, y) in a.iter().rev().zip(b.iter().rev()) {
        if x != y {
            return x < y;
        }
    }
    false
}

/// `a -= b` modulo `2^(64 * limbs)`.
fn sub_assign(a: &mut [u64], b: &[u64]) {
    let mut borrow = false;
    for (x, y) in a.iter_mut().zip(b) {
        let (d, b1) = x.overflowing_sub(*y);
        let (d, b2) = d.overflowing_sub(u64::from(borrow));
        *x = d;
        borrow = b1 || b2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modular_exponentiation_matches_the_definition() {
        // A two-limb modulus (odd) and a one-limb modulus.
        for n in [0x1_0000_0000_0000_0001_u128 + 2 * 12345, 0xffff_fff1_u128] {
            let n_bytes = PublicKey::new(&n.to_be_bytes(), 3).n;
            let modulus = Modulus::new(&n_bytes);
            for (a, e) in [(2u128, 65537u64), (12345, 3), (n - 1, 17), (0, 5), (1, 7)] {
                let a_bytes = a.to_be_bytes()[16 - n_bytes.len()..].to_vec();
                let got = modulus.pow(&a_bytes, e).unwrap();
                let mut want = 1u128;
                let mut base = a % n;
                let mut exp = e;
                while exp > 0 {
                    if exp & 1 == 1 {
                        want = mul_mod(want, base, n);
                    }
                    base = mul_mod(base, base, n);
                    exp >>= 1;
                }
                assert_eq!(got, want.to_be_bytes()[16 - n_bytes.len()..].to_vec());
            }
            assert!(modulus.pow(&n_bytes, 3).is_none(), "s >= n is refused");
        }
    }

    /// `a * b mod n` for 128-bit numbers, by doubling.
    fn mul_mod(a: u128, b: u128, n: u128) -> u128 {
        let (mut acc, mut a, mut b) = (0u128, a % n, b);
        while b > 0 {
            if b & 1 == 1 {
                acc = add_mod(acc, a, n);
            }
            a = add_mod(a, a, n);
            b >>= 1;
        }
        acc
    }

    fn add_mod(a: u128, b: u128, n: u128) -> u128 {
        let (s, overflow) = a.overflowing_add(b);
        if overflow || s >= n {
            s.wrapping_sub(n)
        } else {
            s
        }
    }

    #[test]
    fn keys_are_checked_in_go_order() {
        let odd_1024 = {
            let mut n = vec![0xc5u8; 128];
            n[127] = 0x01;
            n
        };
        let check = |n: &[u8], e| check_key(&PublicKey::new(n, e));
        assert_eq!(check(&[0x01; 64], 65537), Err(RsaError::Insecure(505)));
        assert_eq!(
            RsaError::Insecure(505).to_string(),
            "crypto/rsa: 505-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)"
        );
        let mut even = odd_1024.clone();
        even[127] = 2;
        assert_eq!(check(&even, 1), Err(RsaError::EvenModulus));
        assert_eq!(check(&odd_1024, 1), Err(RsaError::SmallExponent));
        assert_eq!(check(&odd_1024, 65536), Err(RsaError::EvenExponent));
        assert_eq!(check(&odd_1024, 1 << 32), Err(RsaError::EvenExponent));
        assert_eq!(
            check(&odd_1024, (1 << 31) + 1),
            Err(RsaError::LargeExponent)
        );
        assert_eq!(check(&odd_1024, (1 << 31) - 1), Ok(()));
    }
}
