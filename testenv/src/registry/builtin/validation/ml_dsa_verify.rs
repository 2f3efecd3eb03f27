//! ML-DSA signature verification (FIPS 204 Algorithms 3 and 8: pure ML-DSA with an empty
//! context, as Go's `crypto/mldsa.Verify` checks an X.509 signature), with Go's messages.
//! The public key's length is checked where the key is parsed.

use super::ml_dsa::{D, ParameterSet, SignatureConstants};
use super::ml_dsa_ring::{Poly, Q, Zetas, from_signed, matrix_entry, mul};
use super::shake::Shake;

/// Go's error for a signature of the wrong length.
pub const INVALID_LENGTH: &str = "mldsa: invalid signature length";
/// Go's error for hints that are not encoded as FIPS 204 encodes them.
pub const INVALID_ENCODING: &str = "mldsa: invalid signature encoding";
/// Go's error for every other failure.
pub const INVALID: &str = "mldsa: invalid signature";

/// `ML-DSA.Verify(pk, message, σ, ctx = "")` for the key `public_key` of `set` (of the
/// set's length).
pub fn verify(
    set: ParameterSet,
    public_key: &[u8],
    message: &[u8],
    signature: &[u8],
) -> Result<(), &'static str> {
    if signature.len() != set.signature_size() {
        return Err(INVALID_LENGTH);
    }
    let (k, l, _) = set.dimensions();
    let constants = set.signature_constants();
    let (challenge, rest) = signature.split_at(constants.challenge_bytes);
    let z_bits = constants.gamma1_bits + 1;
    let (z_bytes, hint_bytes) = rest.split_at(l * 32 * z_bits as usize);
    let hints = decode_hints(hint_bytes, k, constants.omega).ok_or(INVALID_ENCODING)?;
    let z = decode_z(z_bytes, &constants).ok_or(INVALID)?;

    // μ = H(H(pk, 64) ‖ M′, 64) with M′ = 0 ‖ |ctx| ‖ ctx ‖ M and an empty context.
    let mut input = Shake::shake256(public_key).take(64);
    input.extend([0, 0]);
    input.extend_from_slice(message);
    let mu = Shake::shake256(&input).take(64);

    let zetas = Zetas::new();
    let mut c = sample_in_ball(challenge, constants.tau);
    zetas.ntt(&mut c);
    let z_hat: Vec<Poly> = z
        .into_iter()
        .map(|mut poly| {
            zetas.ntt(&mut poly);
            poly
        })
        .collect();
    let (rho, t1) = public_key.split_at(32);
    let mut t1 = unpack(t1, 10);

    // w′ = NTT⁻¹(Â ∘ NTT(z) − NTT(c) ∘ NTT(t1 · 2^d)), then w1′ = UseHint(h, w′), encoded.
    let w1_bits = if constants.gamma2 == (Q - 1) / 88 {
        6
    } else {
        4
    };
    let mut w1 = Packer::default();
    for (r, row_hints) in hints.iter().enumerate() {
        let mut t: Poly = std::array::from_fn(|_| t1.next().unwrap_or(0) << D);
        zetas.ntt(&mut t);
        let mut w: Poly = std::array::from_fn(|i| Q - mul(c[i], t[i]));
        for (s, z) in z_hat.iter().enumerate() {
            let a = matrix_entry(rho, r, s);
            for i in 0..256 {
                w[i] = (w[i] + mul(a[i], z[i])) % Q;
            }
        }
        zetas.inverse_ntt(&mut w);
        for (coefficient, hint) in w.iter().zip(row_hints) {
            w1.push(use_hint(*hint, *coefficient, constants.gamma2), w1_bits);
        }
    }
    let mut input = mu;
    input.extend(w1.bytes);
    if Shake::shake256(&input).take(challenge.len()) == challenge {
        Ok(())
    } else {
        Err(INVALID)
    }
}

/// The coefficients of `bytes` read as consecutive `bits`-bit little-endian values.
fn unpack(bytes: &[u8], bits: u32) -> impl Iterator<Item = u32> + '_ {
    let mut held: u64 = 0;
    let mut count = 0;
    let mut bytes = bytes.iter();
    std::iter::from_fn(move || {
        while count < bits {
            held |= u64::from(*bytes.next()?) << count;
            count += 8;
        }
        let value = (held & ((1 << bits) - 1)) as u32;
        held >>= bits;
        count -= bits;
        Some(value)
    })
}

/// Values packed as consecutive little-endian bit fields.
#[derive(Default)]
struct Packer {
    bytes: Vec<u8>,
    held: u32,
    count: u32,
}

impl Packer {
    fn push(&mut self, value: u32, bits: u32) {
        self.held |= value << self.count;
        self.count += bits;
        while self.count >= 8 {
            self.bytes.push(self.held as u8);
            self.held >>= 8;
            self.count -= 8;
        }
    }
}

/// z's ℓ polynomials (each coefficient packed as γ1 − z), or none when a coefficient is
/// not below γ1 − β in absolute value (`‖z‖∞ ≥ γ1 − β`).
fn decode_z(bytes: &[u8], constants: &SignatureConstants) -> Option<Vec<Poly>> {
    let gamma1 = 1i32 << constants.gamma1_bits;
    let bound = gamma1 - constants.beta as i32;
    let mut values = unpack(bytes, constants.gamma1_bits + 1);
    let mut out = Vec::new();
    while out.len() * 256 * (constants.gamma1_bits as usize + 1) < bytes.len() * 8 {
        let mut poly = [0u32; 256];
        for coefficient in &mut poly {
            let z = gamma1 - values.next()? as i32;
            if z.abs() >= bound {
                return None;
            }
            *coefficient = from_signed(z);
        }
        out.push(poly);
    }
    Some(out)
}

/// HintBitUnpack (Algorithm 21): k rows of hint bits from the positions listed in the
/// first ω bytes, each row's end given by the last k bytes; none when the positions are
/// not strictly increasing within a row, an end goes backwards or past ω, or an unused
/// position is not zero.
fn decode_hints(bytes: &[u8], k: usize, omega: usize) -> Option<Vec<[bool; 256]>> {
    let mut rows = vec![[false; 256]; k];
    let mut index = 0;
    for (i, row) in rows.iter_mut().enumerate() {
        let end = usize::from(bytes[omega + i]);
        if end < index || end > omega {
            return None;
        }
        let first = index;
        while index < end {
            if index > first && bytes[index - 1] >= bytes[index] {
                return None;
            }
            row[usize::from(bytes[index])] = true;
            index += 1;
        }
    }
    bytes[index..omega].iter().all(|b| *b == 0).then_some(rows)
}

/// SampleInBall (Algorithm 29): the challenge polynomial with τ coefficients ±1, from
/// SHAKE256 of c̃.
fn sample_in_ball(challenge: &[u8], tau: u32) -> Poly {
    let mut shake = Shake::shake256(challenge);
    let mut signs = [0u8; 8];
    shake.read(&mut signs);
    let signs = u64::from_le_bytes(signs);
    let mut c = [0u32; 256];
    let mut byte = [0u8; 1];
    for (bit, i) in (256 - tau as usize..256).enumerate() {
        let j = loop {
            shake.read(&mut byte);
            if usize::from(byte[0]) <= i {
                break usize::from(byte[0]);
            }
        };
        c[i] = c[j];
        c[j] = if signs >> bit & 1 == 1 { Q - 1 } else { 1 };
    }
    c
}

/// UseHint (Algorithm 40) after Decompose (Algorithm 36): r's high bits, moved one step
/// towards r's low part when the hint is set.
fn use_hint(hint: bool, r: u32, gamma2: u32) -> u32 {
    let m = (Q - 1) / (2 * gamma2);
    let mut r0 = (r % (2 * gamma2)) as i64;
    if r0 > i64::from(gamma2) {
        r0 -= 2 * i64::from(gamma2);
    }
    let (r1, r0) = if i64::from(r) - r0 == i64::from(Q - 1) {
        (0, r0 - 1)
    } else {
        (((i64::from(r) - r0) / (2 * i64::from(gamma2))) as u32, r0)
    };
    match (hint, r0 > 0) {
        (false, _) => r1,
        (true, true) => (r1 + 1) % m,
        (true, false) => (r1 + m - 1) % m,
    }
}

#[cfg(test)]
mod tests {
    use super::super::ml_dsa::public_key_from_seed;
    use super::*;
    use base64::Engine;

    /// A signature made by OpenSSL 4.0 (`tests/fixtures/ml-dsa/signatures.json`).
    struct Vector {
        set: ParameterSet,
        public_key: Vec<u8>,
        message: Vec<u8>,
        signature: Vec<u8>,
        signature_with_context: Vec<u8>,
    }

    fn vectors() -> Vec<Vector> {
        let text = include_str!("../../../../tests/fixtures/ml-dsa/signatures.json");
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        let b64 = |v: &serde_json::Value| {
            base64::engine::general_purpose::STANDARD
                .decode(v.as_str().unwrap())
                .unwrap()
        };
        json["vectors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                let set = match v["set"].as_str().unwrap() {
                    "ML-DSA-44" => ParameterSet::MlDsa44,
                    "ML-DSA-65" => ParameterSet::MlDsa65,
                    _ => ParameterSet::MlDsa87,
                };
                let seed = [v["seed"].as_u64().unwrap() as u8; 32];
                Vector {
                    set,
                    public_key: public_key_from_seed(set, &seed),
                    message: v["message"].as_str().unwrap().as_bytes().to_vec(),
                    signature: b64(&v["signature"]),
                    signature_with_context: b64(&v["signature_with_context"]),
                }
            })
            .collect()
    }

    fn check(v: &Vector, signature: &[u8]) -> Result<(), &'static str> {
        verify(v.set, &v.public_key, &v.message, signature)
    }

    #[test]
    fn openssl_signatures_of_every_set_verify() {
        let vectors = vectors();
        assert_eq!(vectors.len(), 6);
        for v in &vectors {
            assert_eq!(check(v, &v.signature), Ok(()), "{:?}", v.set);
        }
    }

    #[test]
    fn another_message_context_or_key_fails() {
        for v in &vectors() {
            let mut other = v.message.clone();
            other.push(b'!');
            assert_eq!(
                verify(v.set, &v.public_key, &other, &v.signature),
                Err(INVALID)
            );
            assert_eq!(check(v, &v.signature_with_context), Err(INVALID));
            let mut key = v.public_key.clone();
            key[40] ^= 1;
            assert_eq!(verify(v.set, &key, &v.message, &v.signature), Err(INVALID));
        }
    }

    #[test]
    fn a_changed_signature_fails_and_a_resized_one_fails_on_its_length() {
        for v in &vectors() {
            let size = v.set.signature_size();
            // A bit of c̃ or of z.
            for at in [0, size / 2] {
                let mut signature = v.signature.clone();
                signature[at] ^= 0x01;
                assert_eq!(check(v, &signature), Err(INVALID), "{:?} byte {at}", v.set);
            }
            // A bit of the last hint position, unused (zero) in these signatures.
            let mut signature = v.signature.clone();
            signature[size - v.set.dimensions().0 - 1] ^= 0x01;
            assert_eq!(check(v, &signature), Err(INVALID_ENCODING), "{:?}", v.set);
            assert_eq!(check(v, &v.signature[..size - 1]), Err(INVALID_LENGTH));
            let mut longer = v.signature.clone();
            longer.push(0);
            assert_eq!(check(v, &longer), Err(INVALID_LENGTH));
        }
    }

    #[test]
    fn malformed_hints_and_large_z_are_refused() {
        let v = &vectors()[0];
        let (k, _, _) = v.set.dimensions();
        let omega = v.set.signature_constants().omega;
        let hints = v.signature.len() - omega - k;
        let ends = |s: &[u8]| s[hints + omega..].to_vec();
        let used = usize::from(*ends(&v.signature).last().unwrap());
        assert!(used >= 2 && used < omega, "the vector has hints to reorder");
        let mut signature = v.signature.clone();
        // A row end past ω.
        signature[hints + omega] = omega as u8 + 1;
        assert_eq!(decode_hints(&signature[hints..], k, omega), None);
        // An unused position that is not zero.
        let mut signature = v.signature.clone();
        signature[hints + omega - 1] = 1;
        assert_eq!(decode_hints(&signature[hints..], k, omega), None);
        // Ends going backwards.
        let mut signature = v.signature.clone();
        signature[hints + omega + k - 1] = 0;
        assert_eq!(decode_hints(&signature[hints..], k, omega), None);
        assert_eq!(check(v, &signature), Err(INVALID_ENCODING));
        // Well-formed hints, one fewer: the signature no longer verifies.
        let mut signature = v.signature.clone();
        signature[hints + used - 1] = 0;
        signature[hints + omega + k - 1] = used as u8 - 1;
        assert!(decode_hints(&signature[hints..], k, omega).is_some());
        assert_eq!(check(v, &signature), Err(INVALID));
        // Two positions of a row swapped, with z out of range too: the hints are read first.
        let row_ends = ends(&v.signature);
        let row = (0..k)
            .find(|r| row_ends[*r] - if *r == 0 { 0 } else { row_ends[r - 1] } >= 2)
            .expect("a row with two hints");
        let at = hints + usize::from(row_ends[row]);
        let mut signature = v.signature.clone();
        signature.swap(at - 2, at - 1);
        assert_eq!(decode_hints(&signature[hints..], k, omega), None);
        let challenge = v.set.signature_constants().challenge_bytes;
        signature[challenge..challenge + 2].copy_from_slice(&[0xff, 0xff]);
        signature[challenge + 2] |= 0x03;
        assert_eq!(check(v, &signature), Err(INVALID_ENCODING));
        // A z coefficient of −γ1 + 1 (packed as all ones).
        let mut signature = v.signature.clone();
        let challenge = v.set.signature_constants().challenge_bytes;
        signature[challenge] = 0xff;
        signature[challenge + 1] = 0xff;
        signature[challenge + 2] |= 0x03;
        assert_eq!(check(v, &signature), Err(INVALID));
        let constants = v.set.signature_constants();
        assert!(decode_z(&signature[challenge..hints], &constants).is_none());
        assert!(decode_z(&v.signature[challenge..hints], &constants).is_some());
    }

    #[test]
    fn hints_move_the_high_bits_towards_the_low_part() {
        let gamma2 = (Q - 1) / 32;
        // r = 3·2γ2 + 5: high bits 3, low part 5 > 0.
        let r = 3 * 2 * gamma2 + 5;
        assert_eq!(use_hint(false, r, gamma2), 3);
        assert_eq!(use_hint(true, r, gamma2), 4);
        assert_eq!(use_hint(true, 3 * 2 * gamma2, gamma2), 2);
        // Past the last multiple below q − 1 the high bits wrap to 0 (and 15 with a hint).
        assert_eq!(use_hint(false, Q - 2, gamma2), 0);
        assert_eq!(use_hint(true, Q - 2, gamma2), 15);
        assert_eq!(use_hint(true, 0, (Q - 1) / 88), 43);
    }

    #[test]
    fn the_challenge_has_tau_nonzero_coefficients_of_one_or_minus_one() {
        for tau in [39, 49, 60] {
            let c = sample_in_ball(b"challenge", tau);
            assert_eq!(c.iter().filter(|x| **x != 0).count(), tau as usize);
            assert!(c.iter().all(|x| [0, 1, Q - 1].contains(x)));
        }
    }
}
