//! The reads of Go's `cryptobyte` that `crypto/x509` parses names with: one DER element at
//! a time, with cryptobyte's strictness (low tag numbers only, minimal definite lengths),
//! answering only whether a read succeeded, as cryptobyte does.

/// Universal tags (with their constructed bit where they have one).
pub mod tag {
    /// BOOLEAN.
    pub const BOOLEAN: u8 = 0x01;
    /// INTEGER.
    pub const INTEGER: u8 = 0x02;
    /// BIT STRING.
    pub const BIT_STRING: u8 = 0x03;
    /// OBJECT IDENTIFIER.
    pub const OID: u8 = 0x06;
    /// UTF8String.
    pub const UTF8_STRING: u8 = 0x0c;
    /// NumericString.
    pub const NUMERIC_STRING: u8 = 0x12;
    /// PrintableString.
    pub const PRINTABLE_STRING: u8 = 0x13;
    /// T61String.
    pub const T61_STRING: u8 = 0x14;
    /// IA5String.
    pub const IA5_STRING: u8 = 0x16;
    /// UTCTime.
    pub const UTC_TIME: u8 = 0x17;
    /// GeneralizedTime.
    pub const GENERALIZED_TIME: u8 = 0x18;
    /// BMPString.
    pub const BMP_STRING: u8 = 0x1e;
    /// A constructed SEQUENCE.
    pub const SEQUENCE: u8 = 0x30;
    /// A constructed SET.
    pub const SET: u8 = 0x31;
}

/// Bytes being read, element by element (a `cryptobyte.String`).
#[derive(Debug, Clone, Copy)]
pub struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { rest: bytes }
    }

    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// `PeekASN1Tag`: whether the next element's tag byte is `tag`.
    pub fn peek(&self, tag: u8) -> bool {
        self.rest.first() == Some(&tag)
    }

    /// `ReadAnyASN1Element`: the next element's tag, whole encoding and contents.
    pub fn read_any(&mut self) -> Option<(u8, &'a [u8], &'a [u8])> {
        let bytes = self.rest;
        let (&tag, after) = bytes.split_first()?;
        if tag & 0x1f == 0x1f {
            return None;
        }
        let (&first, after) = after.split_first()?;
        let (length, header) = if first & 0x80 == 0 {
            (usize::from(first), 2)
        } else {
            let count = usize::from(first & 0x7f);
            if count == 0 || count > 4 || after.len() < count {
                return None;
            }
            let length = after[..count]
                .iter()
                .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
            if length < 0x80 || after[0] == 0 {
                return None;
            }
            (length, 2 + count)
        };
        let end = header.checked_add(length).filter(|e| *e <= bytes.len())?;
        self.rest = &bytes[end..];
        Some((tag, &bytes[..end], &bytes[header..end]))
    }

    /// `ReadASN1`: the contents of the next element, which must have `tag`.
    pub fn read(&mut self, tag: u8) -> Option<&'a [u8]> {
        let mut copy = *self;
        let (t, _, contents) = copy.read_any()?;
        if t != tag {
            return None;
        }
        *self = copy;
        Some(contents)
    }

    /// `ReadASN1ObjectIdentifier`: the contents of a well-formed OBJECT IDENTIFIER.
    pub fn read_oid(&mut self) -> Option<&'a [u8]> {
        let mut copy = *self;
        let contents = copy.read(tag::OID)?;
        valid_oid(contents).then(|| {
            *self = copy;
            contents
        })
    }
}

/// Whether OID contents hold base-128 numbers cryptobyte accepts (minimal, at most 31 bits).
pub fn valid_oid(contents: &[u8]) -> bool {
    if contents.is_empty() {
        return false;
    }
    let mut value: u64 = 0;
    let mut digits = 0;
    for &b in contents {
        if digits == 0 && b == 0x80 {
            return false;
        }
        if digits == 5 || value >= 1 << (31 - 7) {
            return false;
        }
        value = (value << 7) | u64::from(b & 0x7f);
        digits += 1;
        if b & 0x80 == 0 {
            value = 0;
            digits = 0;
        }
    }
    digits == 0
}

/// `ReadASN1Integer` into an `int64`: minimal, at most eight bytes.
pub fn valid_int64(contents: &[u8]) -> bool {
    match contents {
        [] => false,
        [0, b, ..] if b & 0x80 == 0 => false,
        [0xff, b, ..] if b & 0x80 != 0 => false,
        _ => contents.len() <= 8,
    }
}

/// `ReadASN1BitString`'s checks.
pub fn valid_bit_string(contents: &[u8]) -> bool {
    let Some((&padding, data)) = contents.split_first() else {
        return false;
    };
    !(padding > 7
        || (data.is_empty() && padding > 0)
        || data.last().is_some_and(|l| l & ((1u8 << padding) - 1) != 0))
}

/// `ReadASN1Boolean`'s checks.
pub fn valid_bool(contents: &[u8]) -> bool {
    matches!(contents, [0x00 | 0xff])
}
