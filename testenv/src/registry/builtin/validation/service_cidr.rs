//! ServiceCIDRs (`ValidateServiceCIDR`, `ValidateServiceCIDRUpdate`): one or two CIDRs,
//! each valid, strict and canonical, two of them one per IP family; an update may only add
//! a second family to a single CIDR.

use serde_json::Value;

use super::errors::{Errors, go_value, index, invalid_str, invalid_text, required_because};
use crate::support::go_ip::{Strict, parse_sloppy, parse_strict, sloppy_string};

const PATH: &str = "spec.cidrs";

/// A create's checks past the object meta.
pub fn service_cidr(object: &Value) -> Errors {
    let cidrs = &object["spec"]["cidrs"];
    let list = strings(cidrs);
    if list.is_empty() {
        return vec![required_because(PATH, "at least one CIDR required")];
    }
    if list.len() > 2 {
        // The real server prints the Go spec struct.
        let spec = format!("{{\"CIDRs\":{cidrs}}}");
        return vec![invalid_text(PATH, &spec, "may only hold up to 2 values")];
    }
    cidrs_and_families(cidrs, &list)
}

/// An update's checks past the object meta: the CIDRs stay as they were, except that a
/// single one may get a second of the other family.
pub fn service_cidr_update(object: &Value, old: &Value) -> Errors {
    let cidrs = &object["spec"]["cidrs"];
    let (new_list, old_list) = (strings(cidrs), strings(&old["spec"]["cidrs"]));
    let immutable =
        |field: &str, value: &Value| invalid_text(field, &go_value(value), "field is immutable");
    let mut out = Vec::new();
    if new_list.len() == old_list.len() {
        for (i, (n, o)) in new_list.iter().zip(&old_list).enumerate() {
            if n != o {
                out.push(immutable(&index(PATH, i), &Value::from(*n)));
            }
        }
    } else if old_list.len() == 1 && new_list.len() == 2 {
        if new_list[0] != old_list[0] {
            out.push(immutable(&index(PATH, 0), &Value::from(new_list[0])));
        }
        out.extend(cidrs_and_families(cidrs, &new_list));
    } else {
        out.push(immutable(PATH, cidrs));
    }
    out
}

fn strings(cidrs: &Value) -> Vec<&str> {
    let list = cidrs.as_array().into_iter().flatten();
    list.map(|c| c.as_str().unwrap_or_default()).collect()
}

/// Each CIDR's errors; without any, two CIDRs must be of the two families.
fn cidrs_and_families(cidrs: &Value, list: &[&str]) -> Errors {
    let mut out = Vec::new();
    for (i, cidr) in list.iter().enumerate() {
        out.extend(
            cidr_errors(cidr)
                .iter()
                .map(|why| invalid_str(&index(PATH, i), cidr, why)),
        );
    }
    if out.is_empty() && list.len() == 2 {
        let families: Vec<Option<bool>> = list.iter().map(|c| parse(c).map(|p| p.v4)).collect();
        if families[0] == families[1] {
            out.push(invalid_text(
                PATH,
                &go_value(cidrs),
                "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64",
            ));
        }
    }
    out
}

/// A CIDR as `netutils.ParseCIDRSloppy` reads it.
struct Sloppy {
    /// The address, IPv4 as IPv4-mapped.
    bytes: [u8; 16],
    /// The prefix length.
    bits: usize,
    /// Whether the address is IPv4 (`To4` is not nil).
    v4: bool,
    /// Whether the address was written as dotted decimal (its mask is then 32 bits long).
    dotted: bool,
}

fn parse(cidr: &str) -> Option<Sloppy> {
    let (address, bits) = cidr.split_once('/')?;
    let bytes = parse_sloppy(address)?;
    let dotted = !address.contains(':');
    let max = if dotted { 32 } else { 128 };
    if bits.is_empty() || bits.len() > 3 || !bits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let bits: usize = bits.parse().ok()?;
    let v4 = std::net::Ipv6Addr::from(bytes).to_ipv4_mapped().is_some();
    (bits <= max).then_some(Sloppy {
        bytes,
        bits,
        v4,
        dotted,
    })
}

/// `IsValidCIDR` (strict, canonical): why `cidr` is refused.
fn cidr_errors(cidr: &str) -> Vec<String> {
    let Some(p) = parse(cidr) else {
        return vec!["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)".into()];
    };
    let (address, bits) = cidr.split_once('/').unwrap_or_default();
    let mut out = Vec::new();
    let strict = parse_strict(address);
    if strict.is_none() || (bits.len() > 1 && bits.starts_with('0')) {
        out.push("must not have leading 0s in IP or prefix length".to_string());
    }
    if strict == Some(Strict::V6 { mapped: true }) {
        out.push("must not have an IPv4-mapped IPv6 address".to_string());
    }
    if out.is_empty() {
        let canonical = format!("{}/{}", sloppy_string(p.bytes), p.bits);
        if canonical != cidr {
            out.push(format!("must be in canonical form ({canonical:?})"));
        }
    }
    // The bits of the address the prefix does not cover.
    let (bytes, bits) = if p.dotted {
        (&p.bytes[12..], p.bits)
    } else {
        (&p.bytes[..], p.bits)
    };
    let beyond = bytes.iter().enumerate().any(|(i, b)| {
        let covered = bits.saturating_sub(i * 8).min(8);
        let mask = if covered == 0 {
            0
        } else {
            0xffu8 << (8 - covered)
        };
        b & !mask != 0
    });
    if beyond {
        out.push("must not have bits set beyond the prefix length".to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(errors: &Errors) -> Vec<String> {
        errors
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    #[test]
    fn cidrs_are_strict_canonical_and_of_two_families() {
        let sc = json!({"spec": {"cidrs": ["10.0.0.0/33", "10.0.0.1/24"]}});
        assert_eq!(
            messages(&service_cidr(&sc)),
            [
                "spec.cidrs[0]: Invalid value: \"10.0.0.0/33\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
                "spec.cidrs[1]: Invalid value: \"10.0.0.1/24\": must not have bits set beyond the prefix length",
            ]
        );
        let sc = json!({"spec": {"cidrs": ["010.0.0.0/24", "FD00::/64"]}});
        assert_eq!(
            messages(&service_cidr(&sc)),
            [
                "spec.cidrs[0]: Invalid value: \"010.0.0.0/24\": must not have leading 0s in IP or prefix length",
                "spec.cidrs[1]: Invalid value: \"FD00::/64\": must be in canonical form (\"fd00::/64\")",
            ]
        );
        let sc = json!({"spec": {"cidrs": ["10.0.0.0/24", "10.1.0.0/24"]}});
        assert_eq!(messages(&service_cidr(&sc)).len(), 1);
        let sc = json!({"spec": {"cidrs": ["10.0.0.0/24", "fd00::/64"]}});
        assert!(service_cidr(&sc).is_empty());
    }

    #[test]
    fn an_update_only_adds_the_other_family() {
        let old = json!({"spec": {"cidrs": ["10.0.0.0/24"]}});
        let new = json!({"spec": {"cidrs": ["10.0.0.0/24", "fd00::/64"]}});
        assert!(service_cidr_update(&new, &old).is_empty());
        let new = json!({"spec": {"cidrs": []}});
        assert_eq!(
            messages(&service_cidr_update(&new, &old)),
            ["spec.cidrs: Invalid value: []: field is immutable"]
        );
    }
}
