//! EndpointSlices (`ValidateEndpointSlice`): the address type, the ports (names, protocol,
//! application protocol), then each endpoint (its addresses for the slice's address type,
//! node name, hostname, zone and node hints), in the order kube-apiserver v1.34 reports
//! them. An update whose endpoints did not change does not check them again, and the
//! address type never changes.

use std::collections::HashSet;

use serde_json::Value;

use super::errors::{
    Errors, check_dns1123_label, child, dns1123_label, dns1123_subdomain, duplicate, immutable,
    index, invalid_str, not_supported, required, required_because,
};
use crate::support::go_ip::{Strict, parse_sloppy, parse_strict, sloppy_string};
use crate::support::meta::{label_value_error, qualified_name_errors};
use crate::support::status::Cause;

const ADDRESS_TYPES: &[&str] = &["FQDN", "IPv4", "IPv6"];
const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];
const MAX_ADDRESSES: usize = 100;
const MAX_PORTS: usize = 20000;
const MAX_ENDPOINTS: usize = 1000;
const MAX_ZONE_HINTS: usize = 8;
const MAX_NODE_HINTS: usize = 8;

fn items(value: &Value) -> &[Value] {
    value.as_array().map(Vec::as_slice).unwrap_or_default()
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// `field.TooMany` of a list of `len` items allowed `max`.
fn too_many(field: &str, len: usize, max: usize) -> Cause {
    Cause {
        reason: "FieldValueTooMany".into(),
        message: format!("Too many: {len}: must have at most {max} items"),
        field: field.into(),
    }
}

/// A create's checks of a slice past its object meta.
pub fn endpoint_slice(object: &Value) -> Errors {
    let mut out = address_type(object);
    out.extend(ports(&object["ports"]));
    out.extend(endpoints(object));
    out
}

/// An update's checks past the object meta: those of a create (the endpoints only when
/// they changed), then the address type that may not change.
pub fn endpoint_slice_update(object: &Value, old: &Value) -> Errors {
    let mut out = address_type(object);
    out.extend(ports(&object["ports"]));
    if object["endpoints"] != old["endpoints"] {
        out.extend(endpoints(object));
    }
    if object["addressType"] != old["addressType"] {
        out.push(immutable("addressType", &object["addressType"]));
    }
    out
}

fn address_type(object: &Value) -> Errors {
    match text(object, "addressType") {
        "" => vec![required("addressType")],
        t if !ADDRESS_TYPES.contains(&t) => vec![not_supported("addressType", t, ADDRESS_TYPES)],
        _ => Vec::new(),
    }
}

fn ports(list: &Value) -> Errors {
    let list = items(list);
    if list.len() > MAX_PORTS {
        return vec![too_many("ports", list.len(), MAX_PORTS)];
    }
    let mut out = Vec::new();
    let mut names = HashSet::new();
    for (i, port) in list.iter().enumerate() {
        let at = index("ports", i);
        let name = text(port, "name");
        if !name.is_empty() {
            out.extend(check_dns1123_label(&child(&at, "name"), name));
        }
        if !names.insert(name) {
            out.push(duplicate(&child(&at, "name"), &Value::from(name)));
        }
        match port["protocol"].as_str() {
            None => out.push(required(&child(&at, "protocol"))),
            Some(p) if !PROTOCOLS.contains(&p) => {
                out.push(not_supported(&child(&at, "protocol"), p, PROTOCOLS));
            }
            Some(_) => {}
        }
        if let Some(app) = port["appProtocol"].as_str() {
            for why in qualified_name_errors(app) {
                out.push(invalid_str(&child(&at, "appProtocol"), app, &why));
            }
        }
    }
    out
}

fn endpoints(object: &Value) -> Errors {
    let list = items(&object["endpoints"]);
    if list.len() > MAX_ENDPOINTS {
        return vec![too_many("endpoints", list.len(), MAX_ENDPOINTS)];
    }
    let address_type = text(object, "addressType");
    let mut out = Vec::new();
    for (i, endpoint) in list.iter().enumerate() {
        let at = index("endpoints", i);
        let path = child(&at, "addresses");
        let addresses = items(&endpoint["addresses"]);
        if addresses.is_empty() {
            out.push(required_because(&path, "must contain at least 1 address"));
        } else if addresses.len() > MAX_ADDRESSES {
            out.push(too_many(&path, addresses.len(), MAX_ADDRESSES));
        }
        for (j, address) in addresses.iter().enumerate() {
            let address = address.as_str().unwrap_or_default();
            let field = index(&path, j);
            match address_type {
                "IPv4" | "IPv6" => out.extend(ip(address, address_type, &path, &field)),
                "FQDN" => out.extend(fqdn(address, &field)),
                _ => {}
            }
        }
        if let Some(node) = endpoint["nodeName"].as_str() {
            let field = child(&at, "nodeName");
            out.extend(
                dns1123_subdomain(node)
                    .iter()
                    .map(|w| invalid_str(&field, node, w)),
            );
        }
        if let Some(host) = endpoint["hostname"].as_str() {
            out.extend(check_dns1123_label(&child(&at, "hostname"), host));
        }
        if endpoint["hints"].is_object() {
            out.extend(hints(&endpoint["hints"], &child(&at, "hints")));
        }
    }
    out
}

/// An address of an IPv4 or IPv6 slice: parsed as the legacy parser does (its errors at
/// the address), an IPv6 slice's in strict and canonical form; the family is reported on
/// the list, then the special ranges no endpoint may use.
fn ip(address: &str, family: &str, list: &str, field: &str) -> Errors {
    let Some(bytes) = parse_sloppy(address) else {
        let why = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
        return vec![invalid_str(field, address, why)];
    };
    let v4 = std::net::Ipv6Addr::from(bytes).to_ipv4_mapped();
    if family == "IPv6" {
        let strict = match parse_strict(address) {
            None => Some("must not have leading 0s".to_string()),
            Some(Strict::V6 { mapped: true }) => {
                Some("must not be an IPv4-mapped IPv6 address".to_string())
            }
            Some(_) if sloppy_string(bytes) != address => Some(format!(
                "must be in canonical form ({:?})",
                sloppy_string(bytes)
            )),
            Some(_) => None,
        };
        if let Some(why) = strict {
            return vec![invalid_str(field, address, &why)];
        }
    }
    let mut out = Vec::new();
    match (family, v4) {
        ("IPv4", None) => out.push(invalid_str(list, address, "must be an IPv4 address")),
        ("IPv6", Some(_)) => out.push(invalid_str(list, address, "must be an IPv6 address")),
        _ => {}
    }
    out.extend(special(address, bytes, field));
    out
}

/// `ValidateNonSpecialIP`: not unspecified, loopback, link-local or link-local multicast.
fn special(address: &str, bytes: [u8; 16], field: &str) -> Errors {
    let v6 = std::net::Ipv6Addr::from(bytes);
    let (unspecified, loopback, link_local, multicast) = match v6.to_ipv4_mapped() {
        Some(v4) => {
            let o = v4.octets();
            (
                v4.is_unspecified(),
                v4.is_loopback(),
                o[0] == 169 && o[1] == 254,
                o[0] == 224 && o[1] == 0 && o[2] == 0,
            )
        }
        None => {
            let s = v6.segments();
            (
                v6.is_unspecified(),
                v6.is_loopback(),
                s[0] & 0xffc0 == 0xfe80,
                bytes[0] == 0xff && bytes[1] & 0x0f == 0x02,
            )
        }
    };
    let rules = [
        (unspecified, format!("may not be unspecified ({address})")),
        (
            loopback,
            "may not be in the loopback range (127.0.0.0/8, ::1/128)".into(),
        ),
        (
            link_local,
            "may not be in the link-local range (169.254.0.0/16, fe80::/10)".into(),
        ),
        (
            multicast,
            "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)".into(),
        ),
    ];
    rules
        .iter()
        .filter(|(broken, _)| *broken)
        .map(|(_, why)| invalid_str(field, address, why))
        .collect()
}

/// `IsFullyQualifiedDomainName`: a subdomain (a trailing dot aside) of at least two
/// labels, each at most 63 characters.
fn fqdn(address: &str, field: &str) -> Errors {
    if address.is_empty() {
        return vec![required(field)];
    }
    let name = address.strip_suffix('.').unwrap_or(address);
    let errors = dns1123_subdomain(name);
    if !errors.is_empty() {
        return errors.iter().map(|w| invalid_str(field, name, w)).collect();
    }
    if !name.contains('.') {
        let why = "should be a domain with at least two segments separated by dots";
        return vec![invalid_str(field, name, why)];
    }
    for label in name.split('.') {
        let errors = dns1123_label(label);
        if !errors.is_empty() {
            return errors
                .iter()
                .map(|w| invalid_str(field, label, w))
                .collect();
        }
    }
    Vec::new()
}

/// The zone hints (label values, no duplicates) and node hints (node names, no duplicates).
fn hints(hints: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let zones = items(&hints["forZones"]);
    let zones_path = child(path, "forZones");
    if zones.len() > MAX_ZONE_HINTS {
        return vec![too_many(&zones_path, zones.len(), MAX_ZONE_HINTS)];
    }
    let mut seen = HashSet::new();
    for (i, zone) in zones.iter().enumerate() {
        let field = child(&index(&zones_path, i), "name");
        let name = text(zone, "name");
        if !seen.insert(name) {
            out.push(duplicate(&field, &Value::from(name)));
        }
        if let Some(why) = label_value_error(name) {
            out.push(invalid_str(&field, name, why));
        }
    }
    let nodes = items(&hints["forNodes"]);
    let nodes_path = child(path, "forNodes");
    if nodes.len() > MAX_NODE_HINTS {
        out.push(too_many(&nodes_path, nodes.len(), MAX_NODE_HINTS));
        return out;
    }
    let mut seen = HashSet::new();
    for (i, node) in nodes.iter().enumerate() {
        let field = child(&index(&nodes_path, i), "name");
        let name = text(node, "name");
        if !seen.insert(name) {
            out.push(duplicate(&field, &Value::from(name)));
        }
        out.extend(
            dns1123_subdomain(name)
                .iter()
                .map(|w| invalid_str(&field, name, w)),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(errors: &Errors) -> Vec<String> {
        errors
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    #[test]
    fn addresses_follow_the_family() {
        let slice = json!({"addressType": "IPv4", "endpoints": [{"addresses":
            ["bad", "::1", "::ffff:127.0.0.1", "1.2.3.04", "fd00::1"]}]});
        assert_eq!(
            lines(&endpoint_slice(&slice)),
            [
                "endpoints[0].addresses[0]: Invalid value: \"bad\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                "endpoints[0].addresses: Invalid value: \"::1\": must be an IPv4 address",
                "endpoints[0].addresses[1]: Invalid value: \"::1\": may not be in the loopback range (127.0.0.0/8, ::1/128)",
                "endpoints[0].addresses[2]: Invalid value: \"::ffff:127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128)",
                "endpoints[0].addresses: Invalid value: \"fd00::1\": must be an IPv4 address",
            ]
        );
        let slice = json!({"addressType": "IPv6", "endpoints": [{"addresses":
            ["127.0.0.1", "010.0.0.1", "::ffff:1.2.3.4", "FD00::1", "ff02::1"]}]});
        assert_eq!(
            lines(&endpoint_slice(&slice)),
            [
                "endpoints[0].addresses: Invalid value: \"127.0.0.1\": must be an IPv6 address",
                "endpoints[0].addresses[0]: Invalid value: \"127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128)",
                "endpoints[0].addresses[1]: Invalid value: \"010.0.0.1\": must not have leading 0s",
                "endpoints[0].addresses[2]: Invalid value: \"::ffff:1.2.3.4\": must not be an IPv4-mapped IPv6 address",
                "endpoints[0].addresses[3]: Invalid value: \"FD00::1\": must be in canonical form (\"fd00::1\")",
                "endpoints[0].addresses[4]: Invalid value: \"ff02::1\": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)",
            ]
        );
    }

    #[test]
    fn fqdn_addresses_have_two_labels() {
        let slice =
            json!({"addressType": "FQDN", "endpoints": [{"addresses": ["a.b.", "x", "A.b"]}]});
        let fields: Vec<String> = endpoint_slice(&slice)
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(
            fields,
            ["endpoints[0].addresses[1]", "endpoints[0].addresses[2]"]
        );
    }
}
