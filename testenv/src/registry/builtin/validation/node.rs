//! A Node's own rules (`ValidateNode`, and what `ValidateNodeUpdate` adds on an update): its
//! specific annotations (`node_annotations`), its taints (reported under `metadata.taints`,
//! as the real server names them), the amounts of its status, its pod CIDRs (valid, at most
//! one of each IP family); on an update, no duplicate address, pod CIDRs and provider ID set
//! once, `spec.externalID` unchanged. Also
//! the warnings of its strategy: the deprecated `spec.externalID` and pod CIDRs written in a
//! non-standard form.

use serde_json::Value;

use super::errors::{
    Errors, child, forbidden, index, invalid, invalid_str, not_supported, required,
};
use super::node_annotations::node_annotations;
use super::service::sloppy_ip;
use crate::support::meta::{label_value_error, qualified_name_errors};
use crate::support::status::Cause;

/// The effects a taint may have, in the order the real server lists them.
const TAINT_EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// The message of a pod CIDR that does not parse.
const BAD_CIDR: &str = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

/// Why a pod CIDR may not change once set.
const CIDR_SET_ONCE: &str = "node updates may not change podCIDR except from \"\" to valid";

/// A string field, empty when unset.
fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// The items of a list field, none when unset.
fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

/// `ValidateNode` after the object meta: the node's specific annotations, the taints, the
/// status's amounts, the pod CIDRs.
pub fn node(object: &Value) -> Errors {
    let mut out = node_annotations(object, "metadata.annotations", taints);
    out.extend(taints(&object["spec"]["taints"], "metadata.taints"));
    out.extend(resources(object));
    out.extend(pod_cidrs(&object["spec"]["podCIDRs"]));
    out
}

/// `ValidateNodeUpdate` after the object meta, against the stored node `old`: the node's
/// specific annotations again, the status's amounts and addresses, the pod CIDRs and provider
/// ID that may only be set once, the taints again, and `spec.externalID`, which may not
/// change.
pub fn node_update(object: &Value, old: &Value) -> Errors {
    let mut out = node_annotations(object, "metadata.annotations", taints);
    out.extend(resources(object));
    out.extend(duplicate_addresses(object));
    let cidrs = items(&object["spec"]["podCIDRs"]);
    let old_cidrs = items(&old["spec"]["podCIDRs"]);
    if !old_cidrs.is_empty() {
        if old_cidrs.len() != cidrs.len() {
            out.push(forbidden("spec.podCIDRs", CIDR_SET_ONCE));
        } else {
            for (was, is) in old_cidrs.iter().zip(cidrs) {
                if was != is {
                    out.push(forbidden("spec.podCIDRs", CIDR_SET_ONCE));
                }
            }
        }
    }
    let provider = text(&old["spec"], "providerID");
    if !provider.is_empty() && provider != text(&object["spec"], "providerID") {
        out.push(forbidden(
            "spec.providerID",
            "node updates may not change providerID except from \"\" to valid",
        ));
    }
    out.extend(taints(&object["spec"]["taints"], "metadata.taints"));
    if text(&object["spec"], "externalID") != text(&old["spec"], "externalID") {
        out.push(forbidden("spec.externalID", "may not be updated"));
    }
    out
}

/// `validateNodeTaints`: each taint's key a qualified name, its value a label value, its
/// effect one of [`TAINT_EFFECTS`], and no two with the same key and effect.
fn taints(list: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for (i, taint) in items(list).iter().enumerate() {
        let at = index(path, i);
        let (key, value, effect) = (
            text(taint, "key"),
            text(taint, "value"),
            text(taint, "effect"),
        );
        for why in qualified_name_errors(key) {
            out.push(invalid_str(&child(&at, "key"), key, &why));
        }
        if let Some(why) = label_value_error(value) {
            out.push(invalid_str(&child(&at, "value"), value, why));
        }
        if effect.is_empty() {
            out.push(required(&child(&at, "effect")));
        } else if !TAINT_EFFECTS.contains(&effect) {
            out.push(not_supported(&child(&at, "effect"), effect, TAINT_EFFECTS));
        }
        if seen.contains(&(key, effect)) {
            let shown = format!(
                "{{\"Key\":{},\"Value\":{},\"Effect\":{},\"TimeAdded\":{}}}",
                Value::from(key),
                Value::from(value),
                Value::from(effect),
                taint["timeAdded"]
            );
            out.push(Cause {
                reason: "FieldValueDuplicate".into(),
                message: format!(
                    "Duplicate value: {shown}: taints must be unique by key and effect pair"
                ),
                field: at,
            });
            continue;
        }
        seen.push((key, effect));
    }
    out
}

/// `ValidateNodeResources`: the capacity's and the allocatable amounts, each not negative
/// and whole for counted resources.
fn resources(object: &Value) -> Errors {
    let mut out = Vec::new();
    for list in ["capacity", "allocatable"] {
        for (name, amount) in object["status"][list].as_object().into_iter().flatten() {
            let field = format!("status.{list}.{name}");
            out.extend(super::quota::quantity_value(name, amount, &field));
        }
    }
    out
}

/// No address of the status listed twice (same type and address).
fn duplicate_addresses(object: &Value) -> Errors {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for (i, address) in items(&object["status"]["addresses"]).iter().enumerate() {
        let pair = (text(address, "type"), text(address, "address"));
        if seen.contains(&pair) {
            let shown = format!(
                "{{\"Type\":{},\"Address\":{}}}",
                Value::from(pair.0),
                Value::from(pair.1)
            );
            out.push(Cause {
                reason: "FieldValueDuplicate".into(),
                message: format!("Duplicate value: {shown}"),
                field: format!("status.addresses[{i}]"),
            });
        } else {
            seen.push(pair);
        }
    }
    out
}

/// A CIDR as the legacy parser reads it (IPv4 octets may have leading zeros): its address
/// and prefix length, and whether the address is IPv6 (not IPv4-mapped).
struct Cidr {
    address: std::net::IpAddr,
    bits: u32,
}

impl Cidr {
    /// `ParseCIDRSloppy`, or `None` when it refuses `value`.
    fn parse(value: &str) -> Option<Self> {
        let (ip, bits) = value.split_once('/')?;
        if bits.is_empty() || !bits.bytes().all(|b| b.is_ascii_digit()) || bits.len() > 6 {
            return None;
        }
        let bits: u32 = bits.parse().ok()?;
        let address = match ip.parse::<std::net::IpAddr>() {
            Ok(address) => address,
            Err(_) if sloppy_ip(ip) && !ip.contains(':') => {
                let octets: Vec<u8> = ip.split('.').filter_map(|o| o.parse().ok()).collect();
                let octets: [u8; 4] = octets.try_into().ok()?;
                std::net::IpAddr::from(octets)
            }
            Err(_) => return None,
        };
        let max = if address.is_ipv4() { 32 } else { 128 };
        (bits <= max).then_some(Self { address, bits })
    }

    /// Whether the CIDR is of the IPv4 family (IPv4-mapped IPv6 included).
    fn is_ipv4(&self) -> bool {
        match self.address {
            std::net::IpAddr::V4(_) => true,
            std::net::IpAddr::V6(v6) => v6.to_ipv4_mapped().is_some(),
        }
    }

    /// The network: the address with its host bits cleared, as Go prints an `IPNet`.
    fn network(&self) -> String {
        match self.address {
            std::net::IpAddr::V4(v4) => {
                let mask = u32::MAX.checked_shl(32 - self.bits).unwrap_or(0);
                format!(
                    "{}/{}",
                    std::net::Ipv4Addr::from(u32::from(v4) & mask),
                    self.bits
                )
            }
            std::net::IpAddr::V6(v6) => {
                let mask = u128::MAX.checked_shl(128 - self.bits).unwrap_or(0);
                let net = std::net::Ipv6Addr::from(u128::from(v6) & mask);
                match net.to_ipv4_mapped() {
                    Some(v4) if self.bits >= 96 => format!("{v4}/{}", self.bits - 96),
                    _ => format!("{net}/{}", self.bits),
                }
            }
        }
    }

    /// Whether host bits are set past the prefix.
    fn has_host_bits(&self) -> bool {
        match self.address {
            std::net::IpAddr::V4(v4) => {
                u32::from(v4) & u32::MAX.checked_shr(self.bits).unwrap_or(0) != 0
            }
            std::net::IpAddr::V6(v6) => {
                u128::from(v6) & u128::MAX.checked_shr(self.bits).unwrap_or(0) != 0
            }
        }
    }

    /// The single address as a CIDR of its full length.
    fn single(&self) -> String {
        match self.address {
            std::net::IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some() => {
                format!(
                    "{}/32",
                    v6.to_ipv4_mapped()
                        .unwrap_or(std::net::Ipv4Addr::UNSPECIFIED)
                )
            }
            std::net::IpAddr::V4(v4) => format!("{v4}/32"),
            std::net::IpAddr::V6(v6) => format!("{v6}/128"),
        }
    }
}

/// The pod CIDRs: each valid, and more than one only as one of each IP family (checked as
/// the real server checks it, with the internal error its dual-stack check reports of the
/// first CIDR it cannot parse).
fn pod_cidrs(list: &Value) -> Errors {
    let cidrs: Vec<&str> = items(list)
        .iter()
        .map(|c| c.as_str().unwrap_or_default())
        .collect();
    let mut out = Vec::new();
    for (i, cidr) in cidrs.iter().enumerate() {
        if Cidr::parse(cidr).is_none() {
            out.push(invalid_str(&index("spec.podCIDRs", i), cidr, BAD_CIDR));
        }
    }
    if cidrs.len() < 2 {
        return out;
    }
    let parsed: Vec<Option<Cidr>> = cidrs.iter().map(|c| Cidr::parse(c)).collect();
    let mut dual_stack = false;
    if let Some(bad) = parsed.iter().position(Option::is_none) {
        out.push(Cause {
            reason: "InternalError".into(),
            message: format!(
                "Internal error: invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[{bad}]: <nil> (invalid CIDR address: {})",
                cidrs[bad]
            ),
            field: "spec.podCIDRs".into(),
        });
    } else {
        let v4 = parsed.iter().flatten().filter(|c| c.is_ipv4()).count();
        dual_stack = v4 > 0 && v4 < parsed.len();
    }
    if !dual_stack || cidrs.len() > 2 {
        out.push(invalid(
            "spec.podCIDRs",
            list,
            "may specify no more than one CIDR for each IP family",
        ));
    }
    out
}

/// The warnings of a Node's create or update: the deprecated `spec.externalID`, then each
/// pod CIDR written in a form other than the standard one (`GetWarningsForCIDR`).
pub fn warnings(object: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if !text(&object["spec"], "externalID").is_empty() {
        out.push("spec.externalID: this field is deprecated, and is unused by Kubernetes".into());
    }
    for (i, cidr) in items(&object["spec"]["podCIDRs"]).iter().enumerate() {
        out.extend(cidr_warnings(
            &index("spec.podCIDRs", i),
            cidr.as_str().unwrap_or_default(),
        ));
    }
    out
}

/// `GetWarningsForCIDR`: host bits set past the prefix, a non-standard form (leading zeros,
/// IPv4-mapped IPv6), or else an IPv6 CIDR not in RFC 5952 form.
fn cidr_warnings(field: &str, value: &str) -> Vec<String> {
    let Some(cidr) = Cidr::parse(value) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let network = cidr.network();
    if cidr.has_host_bits() {
        out.push(format!(
            "{field}: CIDR value {value:?} is ambiguous in this context (should be {network:?} or {:?}?)",
            cidr.single()
        ));
    }
    let (ip, bits) = value.split_once('/').unwrap_or((value, ""));
    let strict = ip.parse::<std::net::IpAddr>().is_ok() && (bits == "0" || !bits.starts_with('0'));
    let mapped = matches!(cidr.address, std::net::IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some());
    if !strict || mapped {
        out.push(format!(
            "{field}: non-standard CIDR value {value:?} will be considered invalid in a future Kubernetes release: use {network:?}"
        ));
    }
    if out.is_empty() && cidr.address.is_ipv6() {
        let canonical = format!("{}/{}", cidr.address, cidr.bits);
        if canonical != value {
            out.push(format!(
                "{field}: IPv6 CIDR value {value:?} should be in RFC 5952 canonical format ({canonical:?})"
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use super::super::errors::field_messages as messages;

    #[test]
    fn taints_are_checked_under_metadata_and_unique_by_key_and_effect() {
        let node = json!({"spec": {"taints": [{"key": "", "effect": "Bogus"},
            {"key": "a", "effect": "NoSchedule"}, {"key": "a", "effect": "NoSchedule"}]}});
        let got = messages(&super::node(&node));
        assert_eq!(got.len(), 4, "{got:?}");
        assert_eq!(
            got[0],
            "metadata.taints[0].key: Invalid value: \"\": name part must be non-empty"
        );
        assert!(got[2].starts_with("metadata.taints[0].effect: Unsupported value: \"Bogus\""));
        assert_eq!(
            got[3],
            "metadata.taints[2]: Duplicate value: {\"Key\":\"a\",\"Value\":\"\",\"Effect\":\"NoSchedule\",\"TimeAdded\":null}: taints must be unique by key and effect pair"
        );
    }

    #[test]
    fn pod_cidrs_are_one_of_each_family() {
        let ok = json!({"spec": {"podCIDRs": ["10.0.0.0/24", "fd00::/64"]}});
        assert!(super::node(&ok).is_empty());
        let bad = json!({"spec": {"podCIDRs": ["10.0.0.1/24", "bad"]}});
        let got = messages(&super::node(&bad));
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[1].ends_with("error:invalid CIDR[1]: <nil> (invalid CIDR address: bad)"));
        let same = json!({"spec": {"podCIDRs": ["10.0.0.0/24", "10.1.0.0/24"]}});
        assert_eq!(super::node(&same).len(), 1);
    }

    #[test]
    fn cidr_warnings_name_the_standard_form() {
        let node = json!({"spec": {"externalID": "x",
            "podCIDRs": ["010.0.0.1/24", "FD00::1/64", "fd00:0::/64"]}});
        let got = warnings(&node);
        assert_eq!(got.len(), 5, "{got:?}");
        assert_eq!(
            got[1],
            "spec.podCIDRs[0]: CIDR value \"010.0.0.1/24\" is ambiguous in this context (should be \"10.0.0.0/24\" or \"10.0.0.1/32\"?)"
        );
        assert!(got[2].ends_with("use \"10.0.0.0/24\""));
        assert!(got[3].contains("(should be \"fd00::/64\" or \"fd00::1/128\"?)"));
        assert!(got[4].ends_with("RFC 5952 canonical format (\"fd00::/64\")"));
    }
}
