//! An Endpoints object's subsets (`validateEndpointSubsets`, the same on a create and on an
//! update): each with addresses or not-ready addresses; each address a routable IP (not
//! unspecified, loopback or link-local; an address that does not parse is reported twice, by
//! the IP check and by the special-range check), a hostname that is a DNS label and a node
//! name that is a DNS subdomain; each port named (a DNS label, required when there are
//! several), numbered and of a known protocol. Also the warnings of addresses written in a
//! non-standard form.

use serde_json::Value;

use super::errors::{
    Errors, check_dns1123_label, child, dns1123_subdomain, index, invalid, invalid_str,
    not_supported, port_num, required, required_because,
};
use super::service::sloppy_ip;
use super::special_ip::{non_special_ip, parse_sloppy};
use crate::support::meta::qualified_name_errors;

/// The protocols a port may have, as the real server lists them.
const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];

/// A string field, empty when unset.
fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// The items of a list field, none when unset.
fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

/// The subsets of an Endpoints object.
pub fn endpoints(object: &Value) -> Errors {
    let mut out = Vec::new();
    for (i, subset) in items(&object["subsets"]).iter().enumerate() {
        let at = index("subsets", i);
        let ready = items(&subset["addresses"]);
        let not_ready = items(&subset["notReadyAddresses"]);
        if ready.is_empty() && not_ready.is_empty() {
            out.push(required_because(
                &at,
                "must specify `addresses` or `notReadyAddresses`",
            ));
        }
        for (list, name) in [(ready, "addresses"), (not_ready, "notReadyAddresses")] {
            for (j, address) in list.iter().enumerate() {
                out.extend(endpoint_address(address, &index(&child(&at, name), j)));
            }
        }
        let ports = items(&subset["ports"]);
        for (j, port) in ports.iter().enumerate() {
            out.extend(endpoint_port(
                port,
                ports.len() > 1,
                &index(&child(&at, "ports"), j),
            ));
        }
    }
    out
}

/// One address: its IP, hostname and node name, then the ranges its IP may not be in.
fn endpoint_address(address: &Value, at: &str) -> Errors {
    let ip = text(address, "ip");
    let ip_path = child(at, "ip");
    let mut out = Vec::new();
    if !sloppy_ip(ip) {
        out.push(invalid_str(
            &ip_path,
            ip,
            "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
        ));
    }
    let hostname = text(address, "hostname");
    if !hostname.is_empty() {
        out.extend(check_dns1123_label(&child(at, "hostname"), hostname));
    }
    if let Some(node) = address["nodeName"].as_str() {
        for why in dns1123_subdomain(node) {
            out.push(invalid_str(&child(at, "nodeName"), node, &why));
        }
    }
    out.extend(non_special_ip(ip, &ip_path));
    out
}

/// One port: its name (required when the subset has several), number, protocol and
/// application protocol.
fn endpoint_port(port: &Value, require_name: bool, at: &str) -> Errors {
    let mut out = Vec::new();
    let name = text(port, "name");
    if require_name && name.is_empty() {
        out.push(required(&child(at, "name")));
    } else if !name.is_empty() {
        out.extend(check_dns1123_label(&child(at, "name"), name));
    }
    let number = port["port"].as_i64().unwrap_or(0);
    for why in port_num(number) {
        out.push(invalid(&child(at, "port"), &number.into(), &why));
    }
    let protocol = text(port, "protocol");
    if protocol.is_empty() {
        out.push(required(&child(at, "protocol")));
    } else if !PROTOCOLS.contains(&protocol) {
        out.push(not_supported(&child(at, "protocol"), protocol, PROTOCOLS));
    }
    if let Some(app) = port["appProtocol"].as_str() {
        for why in qualified_name_errors(app) {
            out.push(invalid_str(&child(at, "appProtocol"), app, &why));
        }
    }
    out
}

/// The warnings of an Endpoints object's addresses written in a non-standard form, each
/// subset's ready addresses then its not-ready ones.
pub fn warnings(object: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (i, subset) in items(&object["subsets"]).iter().enumerate() {
        for name in ["addresses", "notReadyAddresses"] {
            for (j, address) in items(&subset[name]).iter().enumerate() {
                let field = child(&index(&child(&index("subsets", i), name), j), "ip");
                out.extend(ip_warning(&field, text(address, "ip")));
            }
        }
    }
    out
}

/// `GetWarningsForIP`: an address the legacy parser alone accepts (leading zeros in IPv4,
/// IPv4-mapped IPv6) in its standard form, or an IPv6 address not in RFC 5952 form.
fn ip_warning(field: &str, ip: &str) -> Option<String> {
    let address = parse_sloppy(ip)?;
    let mapped = ip.contains(':') && address.is_ipv4();
    if ip.parse::<std::net::IpAddr>().is_err() || mapped {
        return Some(format!(
            "{field}: non-standard IP address {ip:?} will be considered invalid in a future Kubernetes release: use \"{address}\""
        ));
    }
    let canonical = address.to_string();
    (address.is_ipv6() && canonical != ip).then(|| {
        format!(
            "{field}: IPv6 address {ip:?} should be in RFC 5952 canonical format ({canonical:?})"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use super::super::errors::field_messages as messages;

    #[test]
    fn addresses_are_routable_and_ports_named() {
        let object = json!({"subsets": [{"addresses": [{"ip": "300.1.1.1"}, {"ip": "127.0.0.1"},
            {"ip": "169.254.169.254", "hostname": "Bad_Host"}],
            "ports": [{"port": 0, "protocol": "XTP"}, {"port": 81, "protocol": "TCP"}]}, {}]});
        let got = messages(&endpoints(&object));
        assert_eq!(got.len(), 10, "{got:?}");
        assert_eq!(
            got[0],
            "subsets[0].addresses[0].ip: Invalid value: \"300.1.1.1\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
        );
        assert_eq!(
            got[1],
            "subsets[0].addresses[0].ip: Invalid value: \"300.1.1.1\": must be a valid IP address"
        );
        assert!(got[2].ends_with("may not be in the loopback range (127.0.0.0/8, ::1/128)"));
        assert!(got[3].starts_with("subsets[0].addresses[2].hostname"));
        assert_eq!(got[5], "subsets[0].ports[0].name: Required value");
        assert_eq!(
            got[9],
            "subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`"
        );
    }
}
