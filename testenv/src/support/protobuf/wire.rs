//! The protobuf wire format: varints, length-delimited fields and keys, read as the Go code
//! gogo-protobuf generates for k8s.io/api reads them.

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

/// A field's key as Go's generated code reads it.
#[derive(Clone, Copy)]
pub(super) struct Key {
    /// `int32(wire >> 3)`: the number cut to 32 bits, as Go does (zero or negative is an
    /// illegal tag).
    pub(super) number: i32,
    /// `wire & 7`.
    pub(super) wire: u64,
    /// The whole varint (Go's illegal tag message prints it as the "wire type").
    pub(super) raw: u64,
}

impl Key {
    /// The field number, when it is a legal one.
    pub(super) fn field(&self) -> Option<u64> {
        u64::try_from(self.number).ok().filter(|&n| n > 0)
    }
}

/// Reads a protobuf encoding: the bytes Go's `Unmarshal` is given, and how far it has read.
pub(super) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader over `buf`.
    pub(super) fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    /// Whether everything has been read.
    pub(super) fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// How far it has read (Go's `iNdEx`).
    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    /// Goes back (or forward, within the bytes) to `pos`, as Go's generated code sets `iNdEx`.
    pub(super) fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.data.len());
    }

    /// The bytes not read yet.
    fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// The next varint.
    pub(super) fn varint(&mut self) -> Result<u64, DecodeError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let &b = self.rest().first().ok_or(DecodeError::Truncated)?;
            self.pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(DecodeError::VarintTooLong)
    }

    /// The next length (of a length-delimited value) and where its value ends: Go converts the
    /// varint to `int`, so one of 2⁶³ or more, or one that overflows `int` when added to the
    /// position, is a negative length; one past the end is a truncated body.
    pub(super) fn length(&mut self) -> Result<usize, DecodeError> {
        let len = i64::try_from(self.varint()?).map_err(|_| DecodeError::NegativeLength)?;
        let end = i64::try_from(self.pos)
            .ok()
            .and_then(|pos| pos.checked_add(len))
            .ok_or(DecodeError::NegativeLength)?;
        let end = usize::try_from(end).map_err(|_| DecodeError::Truncated)?;
        if end > self.data.len() {
            return Err(DecodeError::Truncated);
        }
        Ok(end)
    }

    /// The next length-delimited payload.
    pub(super) fn bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        let end = self.length()?;
        let b = &self.data[self.pos..end];
        self.pos = end;
        Ok(b)
    }

    /// The next 64-bit fixed-width value (a `double`'s IEEE 754 bits, little-endian).
    pub(super) fn fixed64(&mut self) -> Result<u64, DecodeError> {
        let (b, _) = self
            .rest()
            .split_first_chunk::<8>()
            .ok_or(DecodeError::Truncated)?;
        self.pos += 8;
        Ok(u64::from_le_bytes(*b))
    }

    /// The next key.
    pub(super) fn key(&mut self) -> Result<Key, DecodeError> {
        let raw = self.varint()?;
        Ok(Key {
            number: (raw >> 3) as u32 as i32,
            wire: raw & 7,
            raw,
        })
    }

    /// Skips a field the message does not describe, as Go's generated `skipGenerated` does:
    /// any value of wire type 0, 1, 2 or 5, and a whole group (3 to its 4); an end of group
    /// that opens none is refused, as is a wire type that does not exist.
    pub(super) fn skip(&mut self, wire: u64) -> Result<(), DecodeError> {
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
                    depth = depth
                        .checked_sub(1)
                        .ok_or(DecodeError::UnexpectedEndOfGroup)?;
                }
                _ => return Err(DecodeError::WireType(wire)),
            }
            if depth == 0 {
                return Ok(());
            }
            wire = self.key()?.wire;
        }
    }

    /// Skips `n` bytes.
    fn advance(&mut self, n: usize) -> Result<(), DecodeError> {
        if self.rest().len() < n {
            return Err(DecodeError::Truncated);
        }
        self.pos += n;
        Ok(())
    }
}
