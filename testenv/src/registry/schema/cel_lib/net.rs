//! Kubernetes' IP and CIDR libraries: `ip()`, `isIP()`, `ip.isCanonical()`, `cidr()`,
//! `isCIDR()` and the methods of `net.IP` (`family`, `isUnspecified`, `isLoopback`,
//! `isLinkLocalMulticast`, `isLinkLocalUnicast`, `isGlobalUnicast`) and `net.CIDR`
//! (`containsIP`, `containsCIDR`, `ip`, `masked`, `prefixLength`).
//!
//! Like the real library, IPv4-mapped IPv6 addresses and zones are refused.

use super::overload::{fail, opaque_arg, opaque_type, str_arg, value_fn};
use cel::common::types::STRING_TYPE;
use cel::objects::Opaque;
use cel::{DeclarationError, Env, ExecutionError, Value};
use std::net::IpAddr;
use std::sync::Arc;

const IP_TYPE: &str = "net.IP";
const CIDR_TYPE: &str = "net.CIDR";

/// An IP address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ip(IpAddr);

/// A CIDR: the address as written and the prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

impl Opaque for Ip {
    fn runtime_type_name(&self) -> &str {
        IP_TYPE
    }
}

impl Opaque for Cidr {
    fn runtime_type_name(&self) -> &str {
        CIDR_TYPE
    }
}

fn parse_ip(s: &str) -> Result<IpAddr, String> {
    let ip: IpAddr = s
        .parse()
        .map_err(|_| format!("IP Address {s:?} parse error during conversion from string"))?;
    if let IpAddr::V6(v6) = ip
        && v6.to_ipv4_mapped().is_some()
    {
        return Err(format!("IPv4-mapped IPv6 address {s:?} is not allowed"));
    }
    Ok(ip)
}

fn parse_cidr(s: &str) -> Result<Cidr, String> {
    let err = || format!("network address {s:?} parse error during conversion from string");
    let (addr, prefix) = s.split_once('/').ok_or_else(err)?;
    let addr = parse_ip(addr).map_err(|_| err())?;
    let prefix: u8 = prefix.parse().map_err(|_| err())?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    if prefix > max {
        return Err(err());
    }
    Ok(Cidr { addr, prefix })
}

fn bits(ip: IpAddr) -> (u128, u8) {
    match ip {
        IpAddr::V4(v4) => (u32::from(v4) as u128, 32),
        IpAddr::V6(v6) => (u128::from(v6), 128),
    }
}

fn mask(ip: IpAddr, prefix: u8) -> IpAddr {
    let (b, width) = bits(ip);
    let keep = if prefix == 0 {
        0
    } else {
        (!0u128 << (width - prefix))
            & if width == 32 {
                u32::MAX as u128
            } else {
                u128::MAX
            }
    };
    let masked = b & keep;
    match ip {
        IpAddr::V4(_) => IpAddr::V4((masked as u32).into()),
        IpAddr::V6(_) => IpAddr::V6(masked.into()),
    }
}

fn contains(c: &Cidr, ip: IpAddr) -> bool {
    ip.is_ipv4() == c.addr.is_ipv4() && mask(ip, c.prefix) == mask(c.addr, c.prefix)
}

fn ip_value(ip: IpAddr) -> Value {
    Value::Opaque(Arc::new(Ip(ip)))
}

fn ip_arg(a: &[Value], i: usize) -> Result<IpAddr, ExecutionError> {
    match a.get(i) {
        Some(Value::String(s)) => parse_ip(s).map_err(|e| fail("ip", e)),
        _ => opaque_arg::<Ip>(a, i).map(|ip| ip.0),
    }
}

fn cidr_arg(a: &[Value], i: usize) -> Result<Cidr, ExecutionError> {
    match a.get(i) {
        Some(Value::String(s)) => parse_cidr(s).map_err(|e| fail("cidr", e)),
        _ => opaque_arg::<Cidr>(a, i).copied(),
    }
}

/// The CEL type of an IP address.
fn ip_type() -> cel::common::types::Type {
    opaque_type(IP_TYPE)
}

/// The CEL type of a CIDR.
fn cidr_type() -> cel::common::types::Type {
    opaque_type(CIDR_TYPE)
}

/// Declares this library's functions on `env` (called once, when the environment is built).
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload("ip", "string_to_ip", vec![STRING_TYPE], to_ip)?;
    env.add_overload("isIP", "is_ip", vec![STRING_TYPE], is_ip)?;
    env.add_overload(
        "ip.isCanonical",
        "ip_is_canonical",
        vec![STRING_TYPE],
        is_canonical,
    )?;
    env.add_member_overload("family", "ip_family", ip_type(), vec![], family)?;
    for (name, f) in [
        (
            "isUnspecified",
            is_unspecified as cel::common::functions::Function,
        ),
        ("isLoopback", is_loopback),
        ("isLinkLocalMulticast", is_ll_multicast),
        ("isLinkLocalUnicast", is_ll_unicast),
        ("isGlobalUnicast", is_global_unicast),
    ] {
        env.add_member_overload(name, &format!("ip_{name}"), ip_type(), vec![], f)?;
    }
    env.add_overload("cidr", "string_to_cidr", vec![STRING_TYPE], to_cidr)?;
    env.add_overload("isCIDR", "is_cidr", vec![STRING_TYPE], is_cidr)?;
    env.add_member_overload(
        "containsIP",
        "cidr_contains_ip_ip",
        cidr_type(),
        vec![ip_type()],
        contains_ip,
    )?;
    env.add_member_overload(
        "containsIP",
        "cidr_contains_ip_string",
        cidr_type(),
        vec![STRING_TYPE],
        contains_ip,
    )?;
    env.add_member_overload(
        "containsCIDR",
        "cidr_contains_cidr",
        cidr_type(),
        vec![cidr_type()],
        contains_cidr,
    )?;
    env.add_member_overload(
        "containsCIDR",
        "cidr_contains_cidr_string",
        cidr_type(),
        vec![STRING_TYPE],
        contains_cidr,
    )?;
    env.add_member_overload("ip", "cidr_ip", cidr_type(), vec![], cidr_ip)?;
    env.add_member_overload("masked", "cidr_masked", cidr_type(), vec![], masked)?;
    env.add_member_overload(
        "prefixLength",
        "cidr_prefix_length",
        cidr_type(),
        vec![],
        prefix_length,
    )?;
    Ok(())
}

value_fn!(to_ip, |a| ip_arg(a, 0).map(ip_value));
value_fn!(is_ip, |a| Ok(Value::Bool(parse_ip(str_arg(a, 0)?).is_ok())));
value_fn!(is_canonical, |a| {
    let s = str_arg(a, 0)?;
    let ip = parse_ip(s).map_err(|e| fail("ip.isCanonical", e))?;
    Ok(Value::Bool(ip.to_string() == s))
});
value_fn!(family, |a| Ok(Value::Int(if ip_arg(a, 0)?.is_ipv4() {
    4
} else {
    6
})));
value_fn!(is_unspecified, |a| Ok(Value::Bool(
    ip_arg(a, 0)?.is_unspecified()
)));
value_fn!(is_loopback, |a| Ok(Value::Bool(
    ip_arg(a, 0)?.is_loopback()
)));
value_fn!(is_ll_multicast, |a| Ok(Value::Bool(match ip_arg(a, 0)? {
    IpAddr::V4(v4) => v4.octets()[..3] == [224, 0, 0],
    IpAddr::V6(v6) => v6.segments()[0] & 0xff0f == 0xff02,
})));
value_fn!(is_ll_unicast, |a| Ok(Value::Bool(match ip_arg(a, 0)? {
    IpAddr::V4(v4) => v4.is_link_local(),
    IpAddr::V6(v6) => v6.segments()[0] & 0xffc0 == 0xfe80,
})));
value_fn!(is_global_unicast, |a| {
    let ip = ip_arg(a, 0)?;
    let ll = match ip {
        IpAddr::V4(v4) => v4.is_link_local() || v4.is_broadcast(),
        IpAddr::V6(v6) => v6.segments()[0] & 0xffc0 == 0xfe80,
    };
    Ok(Value::Bool(
        !(ip.is_unspecified() || ip.is_loopback() || ip.is_multicast() || ll),
    ))
});
value_fn!(to_cidr, |a| cidr_arg(a, 0)
    .map(|c| Value::Opaque(Arc::new(c))));
value_fn!(is_cidr, |a| Ok(Value::Bool(
    parse_cidr(str_arg(a, 0)?).is_ok()
)));
value_fn!(contains_ip, |a| {
    let c = cidr_arg(a, 0)?;
    Ok(Value::Bool(contains(&c, ip_arg(a, 1)?)))
});
value_fn!(contains_cidr, |a| {
    let (outer, inner) = (cidr_arg(a, 0)?, cidr_arg(a, 1)?);
    Ok(Value::Bool(
        inner.prefix >= outer.prefix && contains(&outer, inner.addr),
    ))
});
value_fn!(cidr_ip, |a| Ok(ip_value(cidr_arg(a, 0)?.addr)));
value_fn!(masked, |a| {
    let c = cidr_arg(a, 0)?;
    Ok(Value::Opaque(Arc::new(Cidr {
        addr: mask(c.addr, c.prefix),
        prefix: c.prefix,
    })))
});
value_fn!(prefix_length, |a| Ok(Value::Int(
    cidr_arg(a, 0)?.prefix as i64
)));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cidr_containment() {
        let c = parse_cidr("10.0.0.0/8").unwrap();
        assert!(contains(&c, "10.1.2.3".parse().unwrap()));
        assert!(!contains(&c, "11.0.0.1".parse().unwrap()));
        assert!(!contains(&c, "::1".parse().unwrap()));
        assert_eq!(
            mask("192.168.1.7".parse().unwrap(), 24).to_string(),
            "192.168.1.0"
        );
        assert!(parse_cidr("10.0.0.0/33").is_err());
        assert!(parse_ip("::ffff:1.2.3.4").is_err());
    }
}
