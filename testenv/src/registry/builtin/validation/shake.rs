//! SHAKE128 and SHAKE256 (FIPS 202): the extendable-output functions ML-DSA's key
//! generation draws its matrix and secret vectors from ([`super::ml_dsa`]). Only what
//! that needs: one input absorbed at once, then output squeezed in any number of reads.

/// The round constants of Keccak-f[1600] (its ι step).
const ROUND_CONSTANTS: [u64; 24] = [
    0x0000_0000_0000_0001,
    0x0000_0000_0000_8082,
    0x8000_0000_0000_808a,
    0x8000_0000_8000_8000,
    0x0000_0000_0000_808b,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8009,
    0x0000_0000_0000_008a,
    0x0000_0000_0000_0088,
    0x0000_0000_8000_8009,
    0x0000_0000_8000_000a,
    0x0000_0000_8000_808b,
    0x8000_0000_0000_008b,
    0x8000_0000_0000_8089,
    0x8000_0000_0000_8003,
    0x8000_0000_0000_8002,
    0x8000_0000_0000_0080,
    0x0000_0000_0000_800a,
    0x8000_0000_8000_000a,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8080,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8008,
];

/// The rotation of each lane in the ρ step, indexed `x + 5 * y`.
const ROTATIONS: [u32; 25] = [
    0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
];

/// Keccak-f[1600] on a state of 25 lanes, indexed `x + 5 * y`.
fn keccak_f(state: &mut [u64; 25]) {
    for constant in ROUND_CONSTANTS {
        // θ
        let mut columns = [0u64; 5];
        for (x, column) in columns.iter_mut().enumerate() {
            *column = (0..5).fold(0, |acc, y| acc ^ state[x + 5 * y]);
        }
        for x in 0..5 {
            let d = columns[(x + 4) % 5] ^ columns[(x + 1) % 5].rotate_left(1);
            for y in 0..5 {
                state[x + 5 * y] ^= d;
            }
        }
        // ρ and π
        let mut moved = [0u64; 25];
        for x in 0..5 {
            for y in 0..5 {
                let lane = state[x + 5 * y].rotate_left(ROTATIONS[x + 5 * y]);
                moved[y + 5 * ((2 * x + 3 * y) % 5)] = lane;
            }
        }
        // χ
        for y in 0..5 {
            for x in 0..5 {
                state[x + 5 * y] =
                    moved[x + 5 * y] ^ (!moved[(x + 1) % 5 + 5 * y] & moved[(x + 2) % 5 + 5 * y]);
            }
        }
        // ι
        state[0] ^= constant;
    }
}

/// A SHAKE instance after its input: squeeze output from it with [`Shake::read`].
pub struct Shake {
    state: [u64; 25],
    /// Bytes per block: 168 for SHAKE128, 136 for SHAKE256.
    rate: usize,
    /// How many bytes of the current block have been read.
    used: usize,
}

impl Shake {
    /// SHAKE128 of `input`.
    pub fn shake128(input: &[u8]) -> Self {
        Self::absorb(168, input)
    }

    /// SHAKE256 of `input`.
    pub fn shake256(input: &[u8]) -> Self {
        Self::absorb(136, input)
    }

    fn absorb(rate: usize, input: &[u8]) -> Self {
        let mut state = [0u64; 25];
        let mut padded = input.to_vec();
        padded.push(0x1f);
        while !padded.len().is_multiple_of(rate) {
            padded.push(0);
        }
        if let Some(last) = padded.last_mut() {
            *last |= 0x80;
        }
        for block in padded.chunks(rate) {
            for (lane, bytes) in state.iter_mut().zip(block.chunks(8)) {
                let mut word = [0u8; 8];
                word.copy_from_slice(bytes);
                *lane ^= u64::from_le_bytes(word);
            }
            keccak_f(&mut state);
        }
        Shake {
            state,
            rate,
            used: 0,
        }
    }

    /// Fills `out` with the next bytes of output.
    pub fn read(&mut self, out: &mut [u8]) {
        for byte in out {
            if self.used == self.rate {
                keccak_f(&mut self.state);
                self.used = 0;
            }
            *byte = self.state[self.used / 8].to_le_bytes()[self.used % 8];
            self.used += 1;
        }
    }

    /// The next `n` bytes of output.
    pub fn take(&mut self, n: usize) -> Vec<u8> {
        let mut out = vec![0; n];
        self.read(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn empty_input_gives_the_fips_202_outputs() {
        assert_eq!(
            hex(&Shake::shake128(b"").take(32)),
            "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26"
        );
        assert_eq!(
            hex(&Shake::shake256(b"").take(64)),
            "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762fd75dc4ddd8c0f200cb05019d67b592f6fc821c49479ab48640292eacb3b7c4be"
        );
    }

    #[test]
    fn long_inputs_and_outputs_cross_blocks() {
        // Python's hashlib (OpenSSL's SHAKE) of 200 bytes 0xa3, 300 bytes read in pieces.
        let input = [0xa3u8; 200];
        let mut shake = Shake::shake128(&input);
        let mut out = shake.take(100);
        out.extend(shake.take(200));
        assert_eq!(out, Shake::shake128(&input).take(300));
        assert_eq!(hex(&out[290..]), SHAKE128_A3_TAIL);
        assert_eq!(
            hex(&Shake::shake256(&input).take(300)[290..]),
            SHAKE256_A3_TAIL
        );
    }

    const SHAKE128_A3_TAIL: &str = "7e01f89c0c002c59bfec";
    const SHAKE256_A3_TAIL: &str = "7ad0e141c24c7839064c";
}
