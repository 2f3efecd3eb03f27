//! The protobuf wire format: varints, length-delimited fields and keys.

use super::error::DecodeError;

/// Varint (int32, int64, bool, enum).
pub(super) const VARINT: u64 = 0;
/// 64-bit fixed width (double, fixed64).
pub(super) const FIXED64: u64 = 1;
/// The start of a group (proto2).
const START_GROUP: u64 = 3;
/// The end of a group (proto2).
pub(super) const END_GROUP: u64 = 4;
/// Length-delimited (string, bytes, message, packed list).
pub(super) const LEN: u64 = 2;
/// 32-bit fixed width.
const FIXED32: u64 = 5;

/// Reads a protobuf encoding from the front of a byte slice.
pub(super) struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader over `buf`.
    pub(super) fn new(buf: &'a [u8]) -> Self {
        Reader { buf }
    }

    /// Whether everything has been read.
    pub(super) fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The next varint.
    pub(super) fn varint(&mut self) -> Result<u64, DecodeError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = self.buf.split_first().ok_or(DecodeError::Truncated)?;
            self.buf = rest;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(DecodeError::VarintTooLong)
    }

    /// The next length-delimited payload.
    pub(super) fn bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        let len = usize::try_from(self.varint()?).map_err(|_| DecodeError::Truncated)?;
        if len > self.buf.len() {
            return Err(DecodeError::Truncated);
        }
        let (b, rest) = self.buf.split_at(len);
        self.buf = rest;
        Ok(b)
    }

    /// The next 64-bit fixed-width value (a `double`'s IEEE 754 bits, little-endian).
    pub(super) fn fixed64(&mut self) -> Result<u64, DecodeError> {
        let (b, rest) = self
            .buf
            .split_first_chunk::<8>()
            .ok_or(DecodeError::Truncated)?;
        self.buf = rest;
        Ok(u64::from_le_bytes(*b))
    }

    /// The next (field number, wire type).
    pub(super) fn key(&mut self) -> Result<(u64, u64), DecodeError> {
        let k = self.varint()?;
        Ok((k >> 3, k & 7))
    }

    /// Skips a field the message does not describe, as Go's generated `skipGenerated` does:
    /// any value of wire type 0, 1, 2 or 5, and a whole group (3 to its 4); an end of group
    /// that opens none is refused (`message` names the enclosing message), as is a wire type
    /// that does not exist.
    pub(super) fn skip(&mut self, wire: u64, message: &'static str) -> Result<(), DecodeError> {
        let mut depth = 0u32;
        let mut wire = wire;
        loop {
            match wire {
                VARINT => {
                    self.varint()?;
                }
                FIXED64 => self.advance(8)?,
                LEN => {
                    self.bytes()?;
                }
                FIXED32 => self.advance(4)?,
                START_GROUP => depth += 1,
                END_GROUP => {
                    depth = depth.checked_sub(1).ok_or(DecodeError::EndGroup(message))?;
                }
                _ => return Err(DecodeError::WireType(wire)),
            }
            if depth == 0 {
                return Ok(());
            }
            wire = self.key()?.1;
        }
    }

    /// Skips `n` bytes.
    fn advance(&mut self, n: usize) -> Result<(), DecodeError> {
        if self.buf.len() < n {
            return Err(DecodeError::Truncated);
        }
        self.buf = &self.buf[n..];
        Ok(())
    }

    /// Reads a value of wire type `wire`; whether it is a zero value: a 0 varint or fixed
    /// number, or a length-delimited payload that is empty or a message of zero values only
    /// (recursively), which is how Go writes an unset struct.
    pub(super) fn zero_value(&mut self, wire: u64) -> Result<bool, DecodeError> {
        let mut fixed = |n: usize| {
            if self.buf.len() < n {
                return Err(DecodeError::Truncated);
            }
            let (b, rest) = self.buf.split_at(n);
            self.buf = rest;
            Ok(b.iter().all(|&x| x == 0))
        };
        match wire {
            VARINT => Ok(self.varint()? == 0),
            FIXED64 => fixed(8),
            FIXED32 => fixed(4),
            LEN => {
                let mut inner = Reader::new(self.bytes()?);
                while !inner.is_empty() {
                    // Anything that does not parse as a message of zeros is a value.
                    let Ok((_, wire)) = inner.key() else {
                        return Ok(false);
                    };
                    if !matches!(inner.zero_value(wire), Ok(true)) {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            _ => Err(DecodeError::WireType(wire)),
        }
    }
}
