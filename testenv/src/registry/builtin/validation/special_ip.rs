//! Addresses as the legacy Go parser reads them, and `ValidateNonSpecialIP`: the rule the
//! addresses of Endpoints and a Service's external IPs share (not unspecified, loopback or
//! link-local).

use std::net::{IpAddr, Ipv6Addr};

use super::errors::{Errors, invalid_str};
use crate::support::go_ip;

/// An address as the legacy parser reads it (IPv4 octets may have leading zeros; an
/// IPv4-mapped IPv6 address is its IPv4 address), or `None`.
pub(super) fn parse_sloppy(ip: &str) -> Option<IpAddr> {
    let v6 = Ipv6Addr::from(go_ip::parse_sloppy(ip)?);
    Some(match v6.to_ipv4_mapped() {
        Some(v4) => v4.into(),
        None => v6.into(),
    })
}

/// `ValidateNonSpecialIP`: an IP that is not unspecified, loopback, link-local unicast or
/// link-local multicast.
pub(super) fn non_special_ip(ip: &str, field: &str) -> Errors {
    let Some(address) = parse_sloppy(ip) else {
        return vec![invalid_str(field, ip, "must be a valid IP address")];
    };
    let (unspecified, loopback, link_local, link_local_multicast) = match address {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            (
                v4.is_unspecified(),
                v4.is_loopback(),
                o[0] == 169 && o[1] == 254,
                o[0] == 224 && o[1] == 0 && o[2] == 0,
            )
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            (
                v6.is_unspecified(),
                v6.is_loopback(),
                s[0] & 0xffc0 == 0xfe80,
                s[0] & 0xff0f == 0xff02,
            )
        }
    };
    let mut out = Vec::new();
    if unspecified {
        out.push(invalid_str(
            field,
            ip,
            &format!("may not be unspecified ({ip})"),
        ));
    }
    if loopback {
        out.push(invalid_str(
            field,
            ip,
            "may not be in the loopback range (127.0.0.0/8, ::1/128)",
        ));
    }
    if link_local {
        out.push(invalid_str(
            field,
            ip,
            "may not be in the link-local range (169.254.0.0/16, fe80::/10)",
        ));
    }
    if link_local_multicast {
        out.push(invalid_str(
            field,
            ip,
            "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)",
        ));
    }
    out
}
