//! IP addresses read as kube-apiserver's two Go parsers read them: the legacy one
//! (`netutils.ParseIPSloppy`, Go 1.16's `net.ParseIP`: IPv4 octets may have leading zeros,
//! no zones) and the strict one (`netip.ParseAddr`: no leading zeros in IPv4, at most four
//! hex digits to an IPv6 group, an optional zone), and the rule of an IPAddress's name built
//! on them (`IsValidIP` with the canonical-form check).

use std::net::Ipv6Addr;

/// `dtoi`'s ceiling: a run of digits worth this much or more is refused.
const BIG: u32 = 0xFF_FFFF;

/// The leading run of digits in `base` (10 or 16) of `s` and its length (Go's `dtoi` and
/// `xtoi`), or `None` when there is none or it is too big.
fn leading_number(s: &[u8], base: u32) -> Option<(u32, usize)> {
    let mut n = 0u32;
    let mut len = 0;
    for &c in s {
        let Some(d) = char::from(c).to_digit(base) else {
            break;
        };
        n = n * base + d;
        len += 1;
        if n >= BIG {
            return None;
        }
    }
    (len > 0).then_some((n, len))
}

/// Dotted decimal as the legacy parser reads it: four numbers up to 255, leading zeros
/// allowed.
fn sloppy_v4(mut s: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    for (i, octet) in out.iter_mut().enumerate() {
        if i > 0 {
            s = s.strip_prefix(b".")?;
        }
        let (n, len) = leading_number(s, 10)?;
        *octet = u8::try_from(n).ok()?;
        s = &s[len..];
    }
    s.is_empty().then_some(out)
}

/// IPv6 as the legacy parser reads it: hex groups worth at most `0xffff` (any number of
/// digits), one `::`, an IPv4 tail in the last four bytes, no zone.
fn sloppy_v6(mut s: &[u8]) -> Option<[u8; 16]> {
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if s.starts_with(b"::") {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Some(ip);
        }
    }
    let mut i = 0;
    while i < 16 {
        let (n, len) = leading_number(s, 16)?;
        if n > 0xFFFF {
            return None;
        }
        if s.get(len) == Some(&b'.') {
            if (ellipsis.is_none() && i != 12) || i + 4 > 16 {
                return None;
            }
            ip[i..i + 4].copy_from_slice(&sloppy_v4(s)?);
            s = &[];
            i += 4;
            break;
        }
        ip[i..i + 2].copy_from_slice(&u16::try_from(n).ok()?.to_be_bytes());
        i += 2;
        s = &s[len..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' || s.len() == 1 {
            return None;
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return None;
    }
    expand(ip, i, ellipsis)
}

/// Moves the groups after the `::` at `ellipsis` to the end when only `used` bytes were
/// read; the `::` must stand for at least one group.
fn expand(mut ip: [u8; 16], used: usize, ellipsis: Option<usize>) -> Option<[u8; 16]> {
    match ellipsis {
        Some(at) if used < 16 => {
            let gap = 16 - used;
            ip.copy_within(at..used, at + gap);
            ip[at..at + gap].fill(0);
            Some(ip)
        }
        Some(_) => None,
        None if used < 16 => None,
        None => Some(ip),
    }
}

/// `netutils.ParseIPSloppy`: the address as sixteen bytes (IPv4 as IPv4-mapped IPv6), or
/// `None` when the legacy parser refuses it.
pub fn parse_sloppy(s: &str) -> Option<[u8; 16]> {
    let b = s.as_bytes();
    match b.iter().find(|c| matches!(c, b'.' | b':'))? {
        b'.' => sloppy_v4(b).map(|v4| std::net::Ipv4Addr::from(v4).to_ipv6_mapped().octets()),
        _ => sloppy_v6(b),
    }
}

/// Dotted decimal as `netip.ParseAddr` reads it: exactly four fields of one to three
/// digits up to 255, no leading zeros.
fn strict_v4(s: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut fields = s.split(|c| *c == b'.');
    for octet in &mut out {
        let field = fields.next()?;
        if field.is_empty()
            || field.len() > 3
            || (field.len() > 1 && field[0] == b'0')
            || !field.iter().all(u8::is_ascii_digit)
        {
            return None;
        }
        *octet = std::str::from_utf8(field).ok()?.parse().ok()?;
    }
    fields.next().is_none().then_some(out)
}

/// IPv6 as `netip.ParseAddr` reads it: groups of one to four hex digits, one `::`, a strict
/// IPv4 tail, then an optional non-empty zone after `%`.
fn strict_v6(s: &[u8]) -> Option<[u8; 16]> {
    let s = match s.iter().position(|c| *c == b'%') {
        Some(at) if at + 1 == s.len() => return None,
        Some(at) => &s[..at],
        None => s,
    };
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    let mut rest = s;
    if rest.starts_with(b"::") {
        ellipsis = Some(0);
        rest = &rest[2..];
    }
    let mut i = 0;
    while !rest.is_empty() && i < 16 {
        let len = rest.iter().take_while(|c| c.is_ascii_hexdigit()).count();
        if len == 0 || len > 4 {
            return None;
        }
        if rest.get(len) == Some(&b'.') {
            if (ellipsis.is_none() && i != 12) || i + 4 > 16 {
                return None;
            }
            ip[i..i + 4].copy_from_slice(&strict_v4(rest)?);
            rest = &[];
            i += 4;
            break;
        }
        let group = u16::from_str_radix(std::str::from_utf8(&rest[..len]).ok()?, 16).ok()?;
        ip[i..i + 2].copy_from_slice(&group.to_be_bytes());
        i += 2;
        rest = &rest[len..];
        if rest.is_empty() {
            break;
        }
        if rest[0] != b':' || rest.len() == 1 {
            return None;
        }
        rest = &rest[1..];
        if rest[0] == b':' {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            rest = &rest[1..];
        }
    }
    if !rest.is_empty() {
        return None;
    }
    expand(ip, i, ellipsis)
}

/// An address `netip.ParseAddr` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strict {
    /// Dotted decimal.
    V4,
    /// IPv6 (with or without a zone); `mapped` when it is IPv4-mapped (`Is4In6`).
    V6 { mapped: bool },
}

/// `netip.ParseAddr`: the kind of address, or `None` when the strict parser refuses it.
pub fn parse_strict(s: &str) -> Option<Strict> {
    let b = s.as_bytes();
    match b.iter().find(|c| matches!(c, b'.' | b':' | b'%'))? {
        b'.' => strict_v4(b).map(|_| Strict::V4),
        b':' => strict_v6(b).map(|ip| Strict::V6 {
            mapped: Ipv6Addr::from(ip).to_ipv4_mapped().is_some(),
        }),
        _ => None,
    }
}

/// `net.IP.String` of sixteen bytes: dotted decimal for an IPv4(-mapped) address, RFC
/// 5952 otherwise.
pub fn sloppy_string(ip: [u8; 16]) -> String {
    let v6 = Ipv6Addr::from(ip);
    match v6.to_ipv4_mapped() {
        Some(v4) => v4.to_string(),
        None => v6.to_string(),
    }
}

/// The errors of an IPAddress's name (`ValidateIPAddressName`: `IsValidIP` strict and in
/// canonical form), in the real server's words; `generateName` gets the same rule.
pub fn ip_address_name_errors(name: &str) -> Vec<String> {
    let Some(ip) = parse_sloppy(name) else {
        return vec!["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)".into()];
    };
    let mut out = Vec::new();
    match parse_strict(name) {
        None => out.push("must not have leading 0s".to_string()),
        Some(Strict::V6 { mapped: true }) => {
            out.push("must not be an IPv4-mapped IPv6 address".to_string());
        }
        Some(_) => {}
    }
    let canonical = sloppy_string(ip);
    if out.is_empty() && canonical != name {
        out.push(format!("must be in canonical form ({canonical:?})"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legacy_parser_takes_leading_zeros_and_long_groups() {
        assert!(parse_sloppy("010.1.2.3").is_some());
        assert!(parse_sloppy("2001:00db8::1").is_some());
        assert!(parse_sloppy("::ffff:01.2.3.4").is_some());
        assert!(parse_sloppy("fe80::1%eth0").is_none());
        assert!(parse_sloppy("1.2.3").is_none());
        assert!(parse_sloppy("1.2.3.256").is_none());
        assert!(parse_sloppy("1::2::3").is_none());
        assert!(parse_sloppy("1:2:3:4:5:6:7::8").is_none());
        assert_eq!(parse_sloppy("::"), Some([0; 16]));
    }

    #[test]
    fn the_strict_parser_refuses_them_and_reads_zones() {
        assert_eq!(parse_strict("10.1.2.3"), Some(Strict::V4));
        assert_eq!(parse_strict("010.1.2.3"), None);
        assert_eq!(parse_strict("2001:00db8::1"), None);
        assert_eq!(
            parse_strict("fe80::1%eth0"),
            Some(Strict::V6 { mapped: false })
        );
        assert_eq!(parse_strict("fe80::1%"), None);
        assert_eq!(
            parse_strict("::ffff:102:304"),
            Some(Strict::V6 { mapped: true })
        );
    }

    #[test]
    fn ip_address_names_as_the_real_server_words_them() {
        let first = |s: &str| ip_address_name_errors(s).join("|");
        assert_eq!(first("10.1.2.3"), "");
        assert_eq!(first("::"), "");
        assert_eq!(first("010.1.2.3"), "must not have leading 0s");
        assert_eq!(first("::ffff:01.2.3.4"), "must not have leading 0s");
        assert_eq!(
            first("2001:DB8::1"),
            r#"must be in canonical form ("2001:db8::1")"#
        );
        assert_eq!(
            first("0:0:0:0:0:0:0:1"),
            r#"must be in canonical form ("::1")"#
        );
        assert_eq!(
            first("::FFFF:1.2.3.4"),
            "must not be an IPv4-mapped IPv6 address"
        );
        assert!(first("fe80::1%eth0").starts_with("must be a valid IP address"));
        assert!(first("abc").starts_with("must be a valid IP address"));
    }
}
