//! Networking: NetworkPolicies (ports, peers, policy types) and IngressClasses (the
//! controller, a domain-prefixed path that never changes), as
//! `pkg/apis/networking/validation` checks them.

use serde_json::Value;

use super::errors::{
    Errors, check_dns1123_label, child, dns1123_subdomain, forbidden, index, invalid, invalid_str,
    not_supported, port_name, port_num, required, required_because,
};
use super::label_selector::label_selector_with_values;
use super::rbac::path_segment;
use crate::support::status::Cause;

const PROTOCOLS: &[&str] = &["TCP", "UDP", "SCTP"];
const POLICY_TYPES: &[&str] = &["Ingress", "Egress"];
const MAX_CONTROLLER: usize = 250;
const HTTP_PATH: &str = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

/// `ValidateNetworkPolicyPort`.
fn port(port: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    if let Some(p) = port["protocol"].as_str()
        && !PROTOCOLS.contains(&p)
    {
        out.push(not_supported(&child(path, "protocol"), p, PROTOCOLS));
    }
    let end = port["endPort"].as_i64();
    let end_path = child(path, "endPort");
    match &port["port"] {
        Value::Null => {
            if let Some(e) = end {
                out.push(invalid(
                    &end_path,
                    &e.into(),
                    "may not be specified when `port` is not specified",
                ));
            }
        }
        Value::String(name) => {
            if let Some(e) = end {
                out.push(invalid(
                    &end_path,
                    &e.into(),
                    "may not be specified when `port` is non-numeric",
                ));
            }
            for why in port_name(name) {
                out.push(invalid_str(&child(path, "port"), name, &why));
            }
        }
        number => {
            let n = number.as_i64().unwrap_or(0);
            for why in port_num(n) {
                out.push(invalid(&child(path, "port"), &n.into(), &why));
            }
            if let Some(e) = end {
                // The real server prints the port, not the end port.
                if e < n {
                    out.push(invalid(
                        &end_path,
                        &n.into(),
                        "must be greater than or equal to `port`",
                    ));
                }
                for why in port_num(e) {
                    out.push(invalid(&end_path, &e.into(), &why));
                }
            }
        }
    }
    out
}

/// Whether `cidr` is an IPv4 or IPv6 CIDR (`10.0.0.0/8`).
fn parse_cidr(cidr: &str) -> Option<(std::net::IpAddr, u8)> {
    let (ip, bits) = cidr.split_once('/')?;
    let ip: std::net::IpAddr = ip.parse().ok()?;
    let bits: u8 = bits.parse().ok()?;
    let max = if ip.is_ipv4() { 32 } else { 128 };
    (bits <= max && !cidr.contains('+')).then_some((ip, bits))
}

fn ip_block(block: &Value, path: &str) -> Errors {
    let cidr = block["cidr"].as_str().unwrap_or_default();
    let cidr_path = child(path, "cidr");
    if cidr.is_empty() {
        return vec![required(&cidr_path)];
    }
    let mut out = Vec::new();
    if parse_cidr(cidr).is_none() {
        out.push(invalid_str(
            &cidr_path,
            cidr,
            "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ));
        return out;
    }
    for (i, except) in items(&block["except"]).iter().enumerate() {
        let text = except.as_str().unwrap_or_default();
        if parse_cidr(text).is_none() {
            out.push(invalid_str(
                &index(&child(path, "except"), i),
                text,
                "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
            ));
        }
    }
    out
}

/// `ValidateNetworkPolicyPeer`.
fn peer(peer: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let mut peers = 0;
    for f in ["podSelector", "namespaceSelector"] {
        if peer[f].is_object() {
            peers += 1;
            out.extend(label_selector_with_values(&peer[f], &child(path, f)));
        }
    }
    let has_block = peer["ipBlock"].is_object();
    if has_block {
        peers += 1;
        out.extend(ip_block(&peer["ipBlock"], &child(path, "ipBlock")));
    }
    if peers == 0 {
        out.push(required_because(path, "must specify a peer"));
    } else if peers > 1 && has_block {
        out.push(forbidden(
            path,
            "may not specify both ipBlock and another peer",
        ));
    }
    out
}

/// `ValidateNetworkPolicySpec` of a NetworkPolicy (without the metadata).
pub fn network_policy(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = label_selector_with_values(&spec["podSelector"], "spec.podSelector");
    for (direction, peers) in [("ingress", "from"), ("egress", "to")] {
        for (i, rule) in items(&spec[direction]).iter().enumerate() {
            let at = index(&child("spec", direction), i);
            for (j, p) in items(&rule["ports"]).iter().enumerate() {
                out.extend(port(p, &index(&child(&at, "ports"), j)));
            }
            for (j, p) in items(&rule[peers]).iter().enumerate() {
                out.extend(peer(p, &index(&child(&at, peers), j)));
            }
        }
    }
    let types = items(&spec["policyTypes"]);
    if types.len() > POLICY_TYPES.len() {
        out.push(invalid(
            "spec.policyTypes",
            &spec["policyTypes"],
            "may not specify more than two policyTypes",
        ));
        return out;
    }
    for (i, t) in types.iter().enumerate() {
        let t = t.as_str().unwrap_or_default();
        if !POLICY_TYPES.contains(&t) {
            out.push(not_supported(
                &index("spec.policyTypes", i),
                t,
                POLICY_TYPES,
            ));
        }
    }
    out
}

/// `IsDomainPrefixedPath` of the value at `field` (required when empty).
fn domain_prefixed_path(field: &str, value: &str) -> Errors {
    if value.is_empty() {
        return vec![required(field)];
    }
    let Some((host, path)) = value
        .split_once('/')
        .filter(|(h, p)| !h.is_empty() && !p.is_empty())
    else {
        return vec![invalid_str(
            field,
            value,
            "must be a domain-prefixed path (such as \"acme.io/foo\")",
        )];
    };
    let mut out: Errors = dns1123_subdomain(host)
        .iter()
        .map(|why| invalid_str(field, host, why))
        .collect();
    let path_ok = path
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || b"/-._~%!$&'()*+,;=:".contains(&c));
    if !path_ok {
        out.push(invalid_str(
            field,
            path,
            &format!("Invalid path (regex used for validation is '{HTTP_PATH}')"),
        ));
    }
    out
}

/// `ValidateIngressClass` (without the metadata): the controller and the parameters'
/// reference.
pub fn ingress_class(object: &Value) -> Errors {
    let spec = &object["spec"];
    let controller = spec["controller"].as_str().unwrap_or_default();
    let mut out = Vec::new();
    if controller.len() > MAX_CONTROLLER {
        out.push(Cause {
            reason: "FieldValueTooLong".into(),
            message: format!("Too long: may not be more than {MAX_CONTROLLER} bytes"),
            field: "spec.controller".into(),
        });
    }
    out.extend(domain_prefixed_path("spec.controller", controller));
    out.extend(parameters(&spec["parameters"], "spec.parameters"));
    out
}

/// `validateIngressClassParametersReference`: the reference's group (a DNS subdomain when
/// set), kind and name (path segments), then its scope and the namespace the scope wants.
fn parameters(params: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    if !params.is_object() {
        return out;
    }
    if let Some(group) = params["apiGroup"].as_str() {
        for why in dns1123_subdomain(group) {
            out.push(invalid_str(&child(path, "apiGroup"), group, &why));
        }
    }
    for f in ["kind", "name"] {
        let at = child(path, f);
        match params[f].as_str().unwrap_or_default() {
            "" => out.push(required(&at)),
            value => {
                for why in path_segment(value) {
                    out.push(invalid_str(&at, value, &why));
                }
            }
        }
    }
    let namespace = params["namespace"].as_str();
    let namespace_path = child(path, "namespace");
    // The v1 defaulting gives a reference without a scope the cluster's.
    match params["scope"].as_str().unwrap_or("Cluster") {
        "Namespace" => match namespace {
            None => out.push(required_because(
                &namespace_path,
                "`parameters.scope` is set to 'Namespace'",
            )),
            Some(ns) => out.extend(check_dns1123_label(&namespace_path, ns)),
        },
        "Cluster" => {
            if namespace.is_some() {
                out.push(forbidden(
                    &namespace_path,
                    "`parameters.scope` is set to 'Cluster'",
                ));
            }
        }
        other => out.push(not_supported(
            &child(path, "scope"),
            other,
            &["Cluster", "Namespace"],
        )),
    }
    out
}

/// An IngressClass's controller never changes.
pub fn ingress_class_update(object: &Value, old: &Value) -> Errors {
    let (new, old) = (&object["spec"]["controller"], &old["spec"]["controller"]);
    if new == old {
        Vec::new()
    } else {
        // A Go string: an unset controller is printed as `""`.
        let value = new.as_str().unwrap_or_default();
        vec![invalid_str("spec.controller", value, "field is immutable")]
    }
}
