//! The part of Go's `encoding/asn1` that decodes a certificate request's structures
//! (`x509.certificateRequest`, the requested extensions), with its error messages.

/// A DER tag and length (Go's `tagAndLength`).
#[derive(Debug, Clone, Copy)]
pub struct Header {
    /// The class (0 universal, 2 context-specific...).
    pub class: u8,
    /// The tag number.
    pub tag: usize,
    /// The contents' length.
    pub length: usize,
    /// Whether the encoding is constructed.
    pub compound: bool,
}

const SYNTAX: &str = "asn1: syntax error: ";
const STRUCTURE: &str = "asn1: structure error: ";

pub fn syntax(msg: &str) -> String {
    format!("{SYNTAX}{msg}")
}

pub fn structure(msg: &str) -> String {
    format!("{STRUCTURE}{msg}")
}

/// `parseBase128Int`.
fn base128(bytes: &[u8], mut offset: usize) -> Result<(usize, usize), String> {
    let mut value: u64 = 0;
    let mut shifted = 0;
    while offset < bytes.len() {
        if shifted == 5 {
            return Err(structure("base 128 integer too large"));
        }
        let b = bytes[offset];
        if shifted == 0 && b == 0x80 {
            return Err(syntax("integer is not minimally encoded"));
        }
        value = (value << 7) | u64::from(b & 0x7f);
        offset += 1;
        if b & 0x80 == 0 {
            if value > i32::MAX as u64 {
                return Err(structure("base 128 integer too large"));
            }
            return Ok((value as usize, offset));
        }
        shifted += 1;
    }
    Err(syntax("truncated base 128 integer"))
}

/// `parseTagAndLength`: the header at `offset` and the offset of its contents.
pub fn header(bytes: &[u8], mut offset: usize) -> Result<(Header, usize), String> {
    let first = bytes[offset];
    offset += 1;
    let mut tag = usize::from(first & 0x1f);
    if tag == 0x1f {
        (tag, offset) = base128(bytes, offset)?;
        if tag < 0x1f {
            return Err(syntax("non-minimal tag"));
        }
    }
    if offset >= bytes.len() {
        return Err(syntax("truncated tag or length"));
    }
    let b = bytes[offset];
    offset += 1;
    let length = if b & 0x80 == 0 {
        usize::from(b & 0x7f)
    } else {
        let count = usize::from(b & 0x7f);
        if count == 0 {
            return Err(syntax("indefinite length found (not DER)"));
        }
        let mut length = 0usize;
        for _ in 0..count {
            if offset >= bytes.len() {
                return Err(syntax("truncated tag or length"));
            }
            let b = bytes[offset];
            offset += 1;
            if length >= 1 << 23 {
                return Err(structure("length too large"));
            }
            length = (length << 8) | usize::from(b);
            if length == 0 {
                return Err(structure("superfluous leading zeros in length"));
            }
        }
        if length < 0x80 {
            return Err(structure("non-minimal length"));
        }
        length
    };
    Ok((
        Header {
            class: first >> 6,
            tag,
            length,
            compound: first & 0x20 != 0,
        },
        offset,
    ))
}

/// What a field of the decoded structure expects (Go's universal type of the field, and
/// its `asn1` tag options).
#[derive(Clone, Copy)]
pub enum Expect {
    /// A SEQUENCE decoded into the Go struct of this name.
    Struct(&'static str),
    /// INTEGER into a Go `int`.
    Int,
    /// BIT STRING.
    BitString,
    /// OBJECT IDENTIFIER.
    Oid,
    /// `asn1.RawValue`: anything.
    Any { optional: bool },
    /// `[]asn1.RawValue` with `asn1:"tag:0"`: a context-specific constructed `[0]`.
    Attributes,
    /// `[]asn1.RawValue` with `asn1:"set"`: a SET of anything.
    Set,
    /// An optional BOOLEAN (`asn1:"optional"`).
    OptionalBool,
    /// OCTET STRING into a Go `[]byte`.
    OctetString,
    /// INTEGER into a Go `*big.Int` (any size).
    BigInt,
    /// An optional INTEGER into a Go `*big.Int` (`asn1:"optional"`).
    OptionalBigInt,
}

/// Go's `%+v` of the field parameters the error of a mismatched field prints.
fn params(expect: Expect) -> &'static str {
    match expect {
        // The tag option is a pointer, which Go prints as an address.
        Expect::Attributes => {
            "{optional:false explicit:false application:false private:false defaultValue:<nil> tag:<pointer> stringType:0 timeType:0 set:false omitEmpty:false}"
        }
        _ => {
            "{optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false}"
        }
    }
}

/// One decoded field: its contents and its whole encoding.
#[derive(Clone, Copy, Default)]
pub struct Field<'a> {
    /// The contents.
    pub inner: &'a [u8],
    /// The whole encoding.
    pub full: &'a [u8],
    /// Whether the field was there (an optional one may not be).
    pub present: bool,
}

/// `parseField` for the types of `x509.certificateRequest`: checks the header at `offset`
/// against `expect` and returns the field and the offset after it.
pub fn field<'a>(
    bytes: &'a [u8],
    offset: usize,
    expect: Expect,
) -> Result<(Field<'a>, usize), String> {
    let optional = matches!(
        expect,
        Expect::Any { optional: true } | Expect::OptionalBool | Expect::OptionalBigInt
    );
    if offset == bytes.len() {
        if optional {
            return Ok((Field::default(), offset));
        }
        return Err(syntax("sequence truncated"));
    }
    let (h, start) = header(bytes, offset)?;
    let (class, tag, compound, name) = match expect {
        Expect::Struct(name) => (0, 16, Some(true), name),
        Expect::Int => (0, 2, Some(false), "int"),
        Expect::BitString => (0, 3, Some(false), "BitString"),
        Expect::Oid => (0, 6, Some(false), "ObjectIdentifier"),
        Expect::Any { .. } => (h.class, h.tag, None, "RawValue"),
        Expect::Attributes => (2, 0, Some(true), ""),
        Expect::Set => (0, 17, Some(true), ""),
        Expect::OptionalBool => (0, 1, Some(false), "bool"),
        Expect::OctetString => (0, 4, Some(false), ""),
        Expect::BigInt | Expect::OptionalBigInt => (0, 2, Some(false), ""),
    };
    if h.class != class || h.tag != tag || compound.is_some_and(|c| c != h.compound) {
        if optional {
            return Ok((Field::default(), offset));
        }
        return Err(structure(&format!(
            "tags don't match ({tag} vs {{class:{} tag:{} length:{} isCompound:{}}}) {} {name} @{start}",
            h.class,
            h.tag,
            h.length,
            h.compound,
            params(expect)
        )));
    }
    let end = start
        .checked_add(h.length)
        .filter(|e| *e <= bytes.len())
        .ok_or_else(|| syntax("data truncated"))?;
    let parsed = Field {
        inner: &bytes[start..end],
        full: &bytes[offset..end],
        present: true,
    };
    match expect {
        Expect::Int => check_int(parsed.inner)?,
        Expect::BigInt | Expect::OptionalBigInt => check_minimal(parsed.inner)?,
        Expect::BitString => {
            bit_string(parsed.inner)?;
        }
        Expect::Oid => check_oid(parsed.inner)?,
        Expect::Attributes | Expect::Set => check_raw_values(parsed.inner)?,
        Expect::OptionalBool if !matches!(parsed.inner, [0x00 | 0xff]) => {
            return Err(syntax("invalid boolean"));
        }
        _ => {}
    }
    Ok((parsed, end))
}

/// `parseInt64`'s checks.
fn check_int(bytes: &[u8]) -> Result<(), String> {
    check_minimal(bytes)?;
    if bytes.len() > 8 {
        return Err(structure("integer too large"));
    }
    Ok(())
}

/// `checkInteger`: not empty, minimally encoded.
fn check_minimal(bytes: &[u8]) -> Result<(), String> {
    if bytes.is_empty() {
        return Err(structure("empty integer"));
    }
    if bytes.len() > 1
        && ((bytes[0] == 0 && bytes[1] & 0x80 == 0) || (bytes[0] == 0xff && bytes[1] & 0x80 != 0))
    {
        return Err(structure("integer not minimally-encoded"));
    }
    Ok(())
}

/// `parseObjectIdentifier`'s checks.
pub fn check_oid(bytes: &[u8]) -> Result<(), String> {
    if bytes.is_empty() {
        return Err(syntax("zero length OBJECT IDENTIFIER"));
    }
    let mut offset = 0;
    while offset < bytes.len() {
        (_, offset) = base128(bytes, offset)?;
    }
    Ok(())
}

/// `parseBitString`, right-aligned as `BitString.RightAlign` gives it.
pub fn bit_string(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let Some((&padding, data)) = bytes.split_first() else {
        return Err(syntax("zero length BIT STRING"));
    };
    if padding > 7
        || (data.is_empty() && padding > 0)
        || data.last().is_some_and(|l| l & ((1u8 << padding) - 1) != 0)
    {
        return Err(syntax("invalid padding bits in BIT STRING"));
    }
    if padding == 0 || data.is_empty() {
        return Ok(data.to_vec());
    }
    let shift = u32::from(padding);
    let mut out = vec![0u8; data.len()];
    out[0] = data[0] >> shift;
    for i in 1..data.len() {
        out[i] = (data[i - 1] << (8 - shift)) | (data[i] >> shift);
    }
    Ok(out)
}

/// `parseSequenceOf` into `[]asn1.RawValue`: every element's header and length.
pub fn check_raw_values(bytes: &[u8]) -> Result<(), String> {
    let mut offset = 0;
    while offset < bytes.len() {
        let (h, start) = header(bytes, offset)?;
        offset = start
            .checked_add(h.length)
            .filter(|e| *e <= bytes.len())
            .ok_or_else(|| syntax("truncated sequence"))?;
    }
    Ok(())
}

/// The whole encodings of the elements `bytes` holds (already checked by
/// [`check_raw_values`]).
pub fn elements(bytes: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut out = Vec::new();
    let mut offset = 0;
    while offset < bytes.len() {
        let (h, start) = header(bytes, offset)?;
        let end = start
            .checked_add(h.length)
            .filter(|e| *e <= bytes.len())
            .ok_or_else(|| syntax("truncated sequence"))?;
        out.push(&bytes[offset..end]);
        offset = end;
    }
    Ok(out)
}

/// `parseSequenceOf`'s first pass over a SEQUENCE OF structures: each element must be a
/// universal constructed SEQUENCE.
pub fn sequence_of_structs(bytes: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut offset = 0;
    while offset < bytes.len() {
        let (h, start) = header(bytes, offset)?;
        if h.class != 0 || !h.compound || h.tag != 16 {
            return Err(structure("sequence tag mismatch"));
        }
        offset = start
            .checked_add(h.length)
            .filter(|e| *e <= bytes.len())
            .ok_or_else(|| syntax("truncated sequence"))?;
    }
    elements(bytes)
}
