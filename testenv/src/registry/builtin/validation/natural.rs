//! Natural numbers of any size (little-endian 64-bit limbs, no high zero limb) with the few
//! operations Go's RSA key checks need: comparison, subtraction, multiplication, remainder,
//! bit length and the greatest common divisor. Schoolbook arithmetic, enough for the key
//! sizes a Secret holds; modular exponentiation is Montgomery's, in
//! [`super::csr::rsa_verify::mod_pow`].

use std::cmp::Ordering;

/// A natural number.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Nat {
    limbs: Vec<u64>,
}

impl Nat {
    /// The number of big-endian `bytes` (leading zeros allowed).
    pub fn from_be(bytes: &[u8]) -> Nat {
        let mut limbs = vec![0u64; bytes.len().div_ceil(8)];
        for (i, b) in bytes.iter().rev().enumerate() {
            limbs[i / 8] |= u64::from(*b) << (8 * (i % 8));
        }
        Nat { limbs }.trimmed()
    }

    /// A small number.
    pub fn from_u64(value: u64) -> Nat {
        Nat { limbs: vec![value] }.trimmed()
    }

    fn trimmed(mut self) -> Nat {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
        self
    }

    /// Big-endian bytes with no leading zero (empty for zero), as `big.Int.Bytes` gives them.
    pub fn to_be(&self) -> Vec<u8> {
        let bytes: Vec<u8> = self
            .limbs
            .iter()
            .rev()
            .flat_map(|l| l.to_be_bytes())
            .collect();
        let start = bytes.iter().position(|b| *b != 0).unwrap_or(bytes.len());
        bytes[start..].to_vec()
    }

    /// Whether the number is zero.
    pub fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    /// Whether the number is odd.
    pub fn is_odd(&self) -> bool {
        self.limbs.first().is_some_and(|l| l & 1 == 1)
    }

    /// The number of 64-bit limbs it takes (Go's `bigmod` sizes a number by them).
    pub fn limb_count(&self) -> usize {
        self.limbs.len()
    }

    /// The length in bits.
    pub fn bits(&self) -> usize {
        self.limbs
            .last()
            .map_or(0, |l| 64 * self.limbs.len() - l.leading_zeros() as usize)
    }

    fn bit(&self, i: usize) -> bool {
        self.limbs
            .get(i / 64)
            .is_some_and(|l| l >> (i % 64) & 1 == 1)
    }

    /// `self - other`, for `other <= self`.
    pub fn sub(&self, other: &Nat) -> Nat {
        let mut limbs = self.limbs.clone();
        let mut borrow = false;
        for (i, limb) in limbs.iter_mut().enumerate() {
            let y = other.limbs.get(i).copied().unwrap_or(0);
            let (d, b1) = limb.overflowing_sub(y);
            let (d, b2) = d.overflowing_sub(u64::from(borrow));
            *limb = d;
            borrow = b1 || b2;
        }
        Nat { limbs }.trimmed()
    }

    /// `self - 1`, for a number above zero.
    pub fn minus_one(&self) -> Nat {
        self.sub(&Nat::from_u64(1))
    }

    /// `self * other`.
    pub fn mul(&self, other: &Nat) -> Nat {
        let mut limbs = vec![0u64; self.limbs.len() + other.limbs.len()];
        for (i, &a) in self.limbs.iter().enumerate() {
            let mut carry = 0u128;
            for (j, &b) in other.limbs.iter().enumerate() {
                let s = u128::from(limbs[i + j]) + u128::from(a) * u128::from(b) + carry;
                limbs[i + j] = s as u64;
                carry = s >> 64;
            }
            limbs[i + other.limbs.len()] = carry as u64;
        }
        Nat { limbs }.trimmed()
    }

    /// `self mod m`, for `m` above zero (shift and subtract, bit by bit).
    pub fn rem(&self, m: &Nat) -> Nat {
        if self.cmp(m) == Ordering::Less {
            return self.clone();
        }
        let mut r = Nat::default();
        for i in (0..self.bits()).rev() {
            r = r.shifted_in(self.bit(i));
            if r.cmp(m) != Ordering::Less {
                r = r.sub(m);
            }
        }
        r
    }

    /// `2 * self + bit`.
    fn shifted_in(mut self, bit: bool) -> Nat {
        let mut carry = u64::from(bit);
        for limb in &mut self.limbs {
            let next = *limb >> 63;
            *limb = (*limb << 1) | carry;
            carry = next;
        }
        if carry == 1 {
            self.limbs.push(1);
        }
        self
    }

    /// The greatest common divisor (Euclid's).
    pub fn gcd(&self, other: &Nat) -> Nat {
        let (mut a, mut b) = (self.clone(), other.clone());
        while !b.is_zero() {
            let r = a.rem(&b);
            a = b;
            b = r;
        }
        a
    }
}

impl PartialOrd for Nat {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Nat {
    fn cmp(&self, other: &Self) -> Ordering {
        self.limbs
            .len()
            .cmp(&other.limbs.len())
            .then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: u128) -> Nat {
        Nat::from_be(&v.to_be_bytes())
    }

    #[test]
    fn arithmetic_matches_u128() {
        let (a, b) = (
            0x1234_5678_9abc_def0_1122_3344u128,
            0xfedc_ba98_7654_3211u128,
        );
        assert_eq!(n(a).sub(&n(b)), n(a - b));
        assert_eq!(n(a).rem(&n(b)), n(a % b));
        assert_eq!(n(b).mul(&n(12345)), n(b * 12345));
        assert_eq!(n(a).mul(&n(b)).rem(&n(a)), Nat::default());
        assert_eq!(n(48).gcd(&n(18)), n(6));
        assert_eq!(n(a).bits(), 128 - a.leading_zeros() as usize);
        assert_eq!(n(0x1_0000).to_be(), vec![1, 0, 0]);
        assert!(n(a) > n(b));
        assert_eq!(Nat::from_be(&[0, 0, 5]).limb_count(), 1);
    }
}
