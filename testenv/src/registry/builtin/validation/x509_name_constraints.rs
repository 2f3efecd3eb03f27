//! A certificate's name constraints extension read as Go's `x509.ParseCertificate` reads
//! it (`parseNameConstraintsExtension`), with its messages: the permitted and excluded
//! subtrees (not both empty), and each DNS, email, IP and URI constraint checked the way Go
//! checks it (IA5 text, a domain name, an RFC 2821 mailbox, an address with a mask, a URI
//! domain that is not an IP address). Other name forms are kept unread, as Go keeps them.

use super::csr::der::{Reader, tag};
use super::csr::netip::parse_addr;
use crate::support::go_quote::go_quote;

const INVALID: &str = "x509: invalid NameConstraints extension";

/// `parseNameConstraintsExtension`'s checks of an extension value.
pub fn check(value: &[u8]) -> Result<(), String> {
    let mut outer = Reader::new(value);
    let mut top = outer.read(tag::SEQUENCE).map(Reader::new).ok_or(INVALID)?;
    if !outer.is_empty() {
        return Err(INVALID.into());
    }
    let mut subtrees = [&[] as &[u8]; 2];
    for (slot, subtree_tag) in subtrees.iter_mut().zip([0xa0, 0xa1]) {
        if top.peek(subtree_tag) {
            *slot = top.read(subtree_tag).ok_or(INVALID)?;
        }
    }
    if !top.is_empty() {
        return Err(INVALID.into());
    }
    if subtrees.iter().all(|s| s.is_empty()) {
        return Err("x509: empty name constraints extension".into());
    }
    subtrees.iter().try_for_each(|s| values(s))
}

/// The constraints of one list of subtrees.
fn values(subtrees: &[u8]) -> Result<(), String> {
    let mut reader = Reader::new(subtrees);
    while !reader.is_empty() {
        let (constraint_tag, _, value) = reader
            .read(tag::SEQUENCE)
            .and_then(|s| Reader::new(s).read_any())
            .ok_or(INVALID)?;
        match constraint_tag {
            0x82 => {
                let domain = ia5(value)?;
                if !domain_name_valid(domain, true) {
                    return Err(format!(
                        "x509: failed to parse dnsName constraint {}",
                        go_quote(domain)
                    ));
                }
            }
            0x87 => ip_constraint(value)?,
            0x81 => {
                let constraint = ia5(value)?;
                let valid = if constraint.contains('@') {
                    mailbox(constraint.as_bytes())
                } else {
                    domain_name_valid(constraint, true)
                };
                if !valid {
                    return Err(format!(
                        "x509: failed to parse rfc822Name constraint {}",
                        go_quote(constraint)
                    ));
                }
            }
            0x86 => {
                let domain = ia5(value)?;
                if parse_addr(domain).is_ok() && !domain.contains('%') {
                    return Err(format!(
                        "x509: failed to parse URI constraint {}: cannot be IP address",
                        go_quote(domain)
                    ));
                }
                if !domain_name_valid(domain, true) {
                    return Err(format!(
                        "x509: failed to parse URI constraint {}",
                        go_quote(domain)
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// `isIA5String`: ASCII text, or Go's error for it.
fn ia5(value: &[u8]) -> Result<&str, String> {
    match std::str::from_utf8(value) {
        Ok(text) if text.is_ascii() => Ok(text),
        _ => Err(format!(
            "x509: invalid constraint value: x509: {} cannot be encoded as an IA5String",
            quote_bytes(value)
        )),
    }
}

/// Go's `%q` of a string that may not be UTF-8 (bytes that are not as `\x..`).
fn quote_bytes(value: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in value.utf8_chunks() {
        let quoted = go_quote(chunk.valid());
        out.push_str(&quoted[1..quoted.len() - 1]);
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.push('"');
    out
}

/// An IP constraint: an IPv4 or IPv6 address and a mask of leading ones, not an
/// IPv4-mapped IPv6 address.
fn ip_constraint(value: &[u8]) -> Result<(), String> {
    let (ip, mask) = match value.len() {
        8 | 32 => value.split_at(value.len() / 2),
        n => return Err(format!("x509: IP constraint contained value of length {n}")),
    };
    if !valid_mask(mask) {
        let hex: String = mask.iter().map(|b| format!("{b:02x}")).collect();
        return Err(format!("x509: IP constraint contained invalid mask {hex}"));
    }
    if ip.len() == 16 && ip[..10].iter().all(|b| *b == 0) && ip[10..12] == [0xff, 0xff] {
        return Err("x509: IP constraint contained IPv4-mapped IPv6 address".into());
    }
    Ok(())
}

/// `isValidIPMask`: ones, then zeros.
fn valid_mask(mask: &[u8]) -> bool {
    let mut seen_zero = false;
    for &b in mask {
        if seen_zero {
            if b != 0 {
                return false;
            }
            continue;
        }
        match b {
            0x00 | 0x80 | 0xc0 | 0xe0 | 0xf0 | 0xf8 | 0xfc | 0xfe => seen_zero = true,
            0xff => {}
            _ => return false,
        }
    }
    true
}

/// `domainNameValid`: printable ASCII labels, none empty, no trailing dot (a constraint
/// may start with one); the empty name is valid.
pub fn domain_name_valid(name: &str, constraint: bool) -> bool {
    if name.is_empty() {
        return true;
    }
    if name.ends_with('.') {
        return false;
    }
    let name = if constraint {
        name.strip_prefix('.').unwrap_or(name)
    } else {
        name
    };
    name.split('.')
        .all(|label| !label.is_empty() && label.bytes().all(|b| (33..=126).contains(&b)))
}

/// `parseRFC2821Mailbox`: a quoted string or dot-atoms (escapes allowed), `@`, and a domain
/// the domain check accepts, with no other `@`.
fn mailbox(input: &[u8]) -> bool {
    let Some(&first) = input.first() else {
        return false;
    };
    let mut rest = input;
    if first == b'"' {
        rest = &rest[1..];
        loop {
            let Some((&c, after)) = rest.split_first() else {
                return false;
            };
            rest = after;
            match c {
                b'"' => break,
                b'\\' => match rest.split_first() {
                    Some((1..=9 | 11 | 12 | 14..=127, after)) => rest = after,
                    _ => return false,
                },
                1..=8 | 11 | 12 | 14..=31 | 32 | 33 | 35..=91 | 93..=127 => {}
                _ => return false,
            }
        }
    } else {
        let mut local = Vec::new();
        while let Some(&c) = rest.first() {
            if c == b'\\' {
                rest = &rest[1..];
                let Some(&escaped) = rest.first() else {
                    return false;
                };
                local.push(escaped);
                rest = &rest[1..];
                continue;
            }
            let atext = c.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~.".contains(&c);
            if !atext {
                break;
            }
            local.push(c);
            rest = &rest[1..];
        }
        if local.is_empty()
            || local[0] == b'.'
            || local[local.len() - 1] == b'.'
            || local.windows(2).any(|w| w == b"..")
        {
            return false;
        }
    }
    let Some(domain) = rest.strip_prefix(b"@") else {
        return false;
    };
    // Go 1.27 also refuses a second `@` (the real server's answer for `a@@b`, `a@b@c`).
    std::str::from_utf8(domain).is_ok_and(|d| !d.contains('@') && domain_name_valid(d, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tlv(t: u8, contents: &[u8]) -> Vec<u8> {
        assert!(contents.len() < 0x80);
        [vec![t, contents.len() as u8], contents.to_vec()].concat()
    }

    fn permitted(name_tag: u8, value: &[u8]) -> Option<String> {
        let subtree = tlv(0x30, &tlv(name_tag, value));
        check(&tlv(0x30, &tlv(0xa0, &subtree))).err()
    }

    #[test]
    fn constraints_get_go_messages() {
        assert_eq!(permitted(0x82, b".a.com"), None);
        assert_eq!(
            permitted(0x82, b"a..b").as_deref(),
            Some("x509: failed to parse dnsName constraint \"a..b\"")
        );
        assert_eq!(
            permitted(0x82, b"\xff").as_deref(),
            Some(
                "x509: invalid constraint value: x509: \"\\xff\" cannot be encoded as an IA5String"
            )
        );
        assert_eq!(
            permitted(0x87, b"1234").as_deref(),
            Some("x509: IP constraint contained value of length 4")
        );
        assert_eq!(
            permitted(0x87, b"\x0a\x00\x00\x00\xff\x00\xff\x00").as_deref(),
            Some("x509: IP constraint contained invalid mask ff00ff00")
        );
        assert_eq!(permitted(0x81, b"\"a b\"@c.d"), None);
        assert_eq!(
            permitted(0x81, b"a@@b").as_deref(),
            Some("x509: failed to parse rfc822Name constraint \"a@@b\"")
        );
        assert_eq!(
            permitted(0x86, b"1.2.3.4").as_deref(),
            Some("x509: failed to parse URI constraint \"1.2.3.4\": cannot be IP address")
        );
        assert_eq!(permitted(0xa4, b""), None);
        assert_eq!(
            check(&tlv(0x30, &tlv(0xa0, b""))).err().as_deref(),
            Some("x509: empty name constraints extension")
        );
        assert_eq!(check(&[0x05, 0x00]).err().as_deref(), Some(INVALID));
    }
}
