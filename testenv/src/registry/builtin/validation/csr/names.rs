//! A certificate request's subject (`parseName`, its attribute values read as
//! `readASN1Any` reads them) and subject alternative names (`parseSANExtension`), with
//! the messages of Go's `crypto/x509`.

use super::der::{self, Reader, tag};
use crate::support::go_quote::go_quote;

const INVALID_NAME: &str = "x509: invalid RDNSequence";

/// `parseName`: a SEQUENCE of SETs of `{type, value}` SEQUENCEs.
pub fn parse_name(subject: &[u8]) -> Result<(), String> {
    let mut outer = Reader::new(subject);
    let mut rdns = Reader::new(outer.read(tag::SEQUENCE).ok_or(INVALID_NAME)?);
    while !rdns.is_empty() {
        let mut set = Reader::new(rdns.read(tag::SET).ok_or(INVALID_NAME)?);
        while !set.is_empty() {
            let mut attribute = Reader::new(
                set.read(tag::SEQUENCE)
                    .ok_or("x509: invalid RDNSequence: invalid attribute")?,
            );
            attribute
                .read_oid()
                .ok_or("x509: invalid RDNSequence: invalid attribute type")?;
            read_any(&mut attribute)
                .map_err(|e| format!("x509: invalid RDNSequence: invalid attribute value: {e}"))?;
        }
    }
    Ok(())
}

/// `readASN1Any`: the value of a name attribute, checked by its type.
fn read_any(reader: &mut Reader) -> Result<(), String> {
    let (t, _, contents) = reader.read_any().ok_or("invalid ASN.1 element")?;
    let ok = match t {
        tag::T61_STRING
        | tag::PRINTABLE_STRING
        | tag::UTF8_STRING
        | tag::BMP_STRING
        | tag::IA5_STRING
        | tag::NUMERIC_STRING => return string(t, contents),
        tag::INTEGER => der::valid_int64(contents)
            .then_some(())
            .ok_or("invalid ASN.1 integer"),
        tag::BIT_STRING => der::valid_bit_string(contents)
            .then_some(())
            .ok_or("invalid ASN.1 BIT STRING"),
        tag::OID => der::valid_oid(contents)
            .then_some(())
            .ok_or("invalid ASN.1 OBJECT IDENTIFIER"),
        tag::BOOLEAN => der::valid_bool(contents)
            .then_some(())
            .ok_or("invalid ASN.1 BOOLEAN"),
        tag::UTC_TIME => utc_time(contents)
            .then_some(())
            .ok_or("x509: malformed UTCTime"),
        tag::GENERALIZED_TIME => generalized_time(contents)
            .then_some(())
            .ok_or("x509: malformed GeneralizedTime"),
        // OCTET STRING, NULL (whatever it holds) and anything else: kept as they are.
        _ => Ok(()),
    };
    ok.map_err(String::from)
}

/// `parseASN1String`'s checks of the string types.
fn string(t: u8, value: &[u8]) -> Result<(), String> {
    let ok = match t {
        tag::PRINTABLE_STRING => value.iter().all(|b| printable(*b)),
        tag::UTF8_STRING => std::str::from_utf8(value).is_ok(),
        tag::BMP_STRING => bmp(value),
        tag::IA5_STRING => value.is_ascii(),
        tag::NUMERIC_STRING => value.iter().all(|b| b.is_ascii_digit() || *b == b' '),
        // T61String: read as Latin-1, any byte.
        _ => true,
    };
    if ok {
        return Ok(());
    }
    Err(match t {
        tag::PRINTABLE_STRING => "invalid PrintableString",
        tag::UTF8_STRING => "invalid UTF-8 string",
        tag::BMP_STRING => "invalid BMPString",
        tag::IA5_STRING => "invalid IA5String",
        _ => "invalid NumericString",
    }
    .into())
}

/// The PrintableString set, with the `*` and `&` Go lets through.
fn printable(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || (b'\''..=b')').contains(&b)
        || (b'+'..=b'/').contains(&b)
        || matches!(b, b' ' | b':' | b'=' | b'?' | b'*' | b'&')
}

/// A BMPString: UCS-2 code points (an optional terminator), no surrogates or
/// non-characters.
fn bmp(value: &[u8]) -> bool {
    if !value.len().is_multiple_of(2) {
        return false;
    }
    let value = value.strip_suffix(&[0, 0]).unwrap_or(value);
    value.chunks(2).all(|c| {
        let point = u16::from_be_bytes([c[0], c[1]]);
        !(point == 0xfffe
            || point == 0xffff
            || (0xfdd0..=0xfdef).contains(&point)
            || (0xd800..=0xdfff).contains(&point))
    })
}

/// `n` ASCII digits at the start of `s`, as a number, and what follows.
fn digits(s: &[u8], n: usize) -> Option<(u64, &[u8])> {
    let (d, rest) = s.split_at_checked(n)?;
    d.iter()
        .all(u8::is_ascii_digit)
        .then(|| d.iter().fold(0u64, |acc, b| acc * 10 + u64::from(b - b'0')))
        .map(|v| (v, rest))
}

/// A valid date and time (month, day of the month, hour, minute, second).
fn valid_date(year: u64, month: u64, day: u64, hour: u64, minute: u64, second: u64) -> bool {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day) && hour < 24 && minute < 60 && second < 60
}

/// A zone Go writes back the same: `Z`, or a non-zero `±hhmm` offset.
fn zone(s: &[u8]) -> bool {
    match s {
        [b'Z'] => true,
        [b'+' | b'-', rest @ ..] => digits(rest, 4)
            .is_some_and(|(v, r)| r.is_empty() && v != 0 && v / 100 < 24 && v % 100 < 60),
        _ => false,
    }
}

/// `ReadASN1UTCTime`: `YYMMDDhhmm[ss]` and a zone, as Go formats it back.
pub fn utc_time(s: &[u8]) -> bool {
    let Some((date, rest)) = digits(s, 10) else {
        return false;
    };
    let (second, rest) = match digits(rest, 2) {
        Some((sec, r)) => (sec, r),
        None => (0, rest),
    };
    let yy = date / 100_000_000;
    let year = if yy >= 69 { 1900 + yy } else { 2000 + yy };
    let [month, day, hour, minute] = [
        date / 1_000_000 % 100,
        date / 10_000 % 100,
        date / 100 % 100,
        date % 100,
    ];
    valid_date(year, month, day, hour, minute, second) && zone(rest)
}

/// `ReadASN1GeneralizedTime`: `YYYYMMDDhhmmss` and a zone, as Go formats it back (so no
/// fractional seconds: Go parses them but does not write them back).
pub fn generalized_time(s: &[u8]) -> bool {
    let Some((year, rest)) = digits(s, 4) else {
        return false;
    };
    let Some((time, rest)) = digits(rest, 10) else {
        return false;
    };
    let [month, day, hour, minute, second] = [
        time / 100_000_000,
        time / 1_000_000 % 100,
        time / 10_000 % 100,
        time / 100 % 100,
        time % 100,
    ];
    valid_date(year, month, day, hour, minute, second) && zone(rest)
}

/// `parseSANExtension`: the general names of a subject alternative name extension.
pub fn parse_san(value: &[u8]) -> Result<(), String> {
    let mut outer = Reader::new(value);
    let mut names = Reader::new(
        outer
            .read(tag::SEQUENCE)
            .ok_or("x509: invalid subject alternative names")?,
    );
    while !names.is_empty() {
        let (t, _, data) = names
            .read_any()
            .ok_or("x509: invalid subject alternative name")?;
        match t {
            0x81 if !data.is_ascii() => return Err("x509: SAN rfc822Name is malformed".into()),
            0x82 if !data.is_ascii() => return Err("x509: SAN dNSName is malformed".into()),
            0x86 => {
                if !data.is_ascii() {
                    return Err("x509: SAN uniformResourceIdentifier is malformed".into());
                }
                let text = String::from_utf8_lossy(data);
                super::uri::check(&text)
                    .map_err(|e| format!("x509: cannot parse URI {}: {e}", go_quote(&text)))?;
            }
            0x87 => match data.len() {
                4 => {}
                16 if data[..10].iter().all(|b| *b == 0) && data[10..12] == [0xff, 0xff] => {
                    return Err("x509: SAN iPAddress contains IPv4-mapped IPv6 address".into());
                }
                16 => {}
                n => return Err(format!("x509: cannot parse IP address of length {n}")),
            },
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(atv_value: &[u8]) -> Vec<u8> {
        // SEQUENCE { SET { SEQUENCE { OID 2.5.4.3, value } } }
        let mut atv = vec![0x06, 0x03, 0x55, 0x04, 0x03];
        atv.extend_from_slice(atv_value);
        let mut seq = vec![0x30, atv.len() as u8];
        seq.extend(atv);
        let mut set = vec![0x31, seq.len() as u8];
        set.extend(seq);
        let mut out = vec![0x30, set.len() as u8];
        out.extend(set);
        out
    }

    #[test]
    fn subject_values_are_checked_by_type() {
        let err = |v: &[u8]| parse_name(&name(v)).err();
        assert_eq!(err(b"\x13\x03a*b"), None);
        assert_eq!(
            err(b"\x13\x03a@b").as_deref(),
            Some("x509: invalid RDNSequence: invalid attribute value: invalid PrintableString")
        );
        assert_eq!(
            err(b"\x0c\x01\xff").as_deref(),
            Some("x509: invalid RDNSequence: invalid attribute value: invalid UTF-8 string")
        );
        assert_eq!(
            err(b"\x02\x02\x00\x01").as_deref(),
            Some("x509: invalid RDNSequence: invalid attribute value: invalid ASN.1 integer")
        );
        assert_eq!(err(b"\x04\x01\xff"), None);
        assert_eq!(err(b"\x05\x01x"), None);
        assert_eq!(err(b"\x17\x0d250102030405Z"), None);
        assert_eq!(
            err(b"\x17\x03abc").as_deref(),
            Some("x509: invalid RDNSequence: invalid attribute value: x509: malformed UTCTime")
        );
        assert_eq!(
            err(b"").as_deref(),
            Some("x509: invalid RDNSequence: invalid attribute value: invalid ASN.1 element")
        );
        assert_eq!(
            parse_name(b"\x02\x01\x01").err().as_deref(),
            Some(INVALID_NAME)
        );
        assert_eq!(parse_name(b"\x30\x00"), Ok(()));
    }

    #[test]
    fn times_are_read_as_go_writes_them_back() {
        assert!(utc_time(b"2501020304Z"));
        assert!(!utc_time(b"250230030405Z"));
        assert!(!utc_time(b"250102030405+0000"));
        assert!(generalized_time(b"20250102030405Z"));
        assert!(!generalized_time(b"20250102030405.5Z"));
        assert!(!generalized_time(b"20250102030460Z"));
    }

    #[test]
    fn alternative_names_get_go_messages() {
        let san = |names: &[u8]| {
            let mut v = vec![0x30, names.len() as u8];
            v.extend_from_slice(names);
            parse_san(&v).err()
        };
        assert_eq!(san(b"\x82\x03a.b\x87\x04\x01\x02\x03\x04"), None);
        assert_eq!(
            san(b"\x82\x01\x80").as_deref(),
            Some("x509: SAN dNSName is malformed")
        );
        assert_eq!(
            san(b"\x87\x05\x01\x02\x03\x04\x05").as_deref(),
            Some("x509: cannot parse IP address of length 5")
        );
        assert_eq!(
            san(b"\x86\x03a\x01b").as_deref(),
            Some(
                "x509: cannot parse URI \"a\\x01b\": parse \"a\\x01b\": net/url: invalid control character in URL"
            )
        );
        assert_eq!(
            parse_san(b"").err().as_deref(),
            Some("x509: invalid subject alternative names")
        );
    }
}
