//! The Service fields `ValidateService` checks past ports and selector: the session
//! affinity's timeout, external IPs, node ports a ClusterIP Service may not have, the load
//! balancer's source ranges, class and node-port flag, the external and internal traffic
//! policies with the health check port, and the traffic distribution. [`super::service`]
//! calls each at the place Go checks it, so the causes keep the real server's order.

use serde_json::Value;

use super::errors::{
    Errors, child, forbidden, index, invalid, invalid_str, not_supported, port_num, required,
    required_because,
};
use super::special_ip::{non_special_ip, parse_sloppy};
use crate::support::meta::qualified_name_errors;

/// `core.MaxClientIPServiceAffinitySeconds`.
const MAX_AFFINITY_SECONDS: i64 = 86400;
const EXTERNAL_POLICIES: &[&str] = &["Cluster", "Local"];
const INTERNAL_POLICIES: &[&str] = &["Cluster", "Local"];
const DISTRIBUTIONS: &[&str] = &["PreferClose", "PreferSameZone", "PreferSameNode"];
const SOURCE_RANGES_ANNOTATION: &str = "service.beta.kubernetes.io/load-balancer-source-ranges";
const ONLY_LOAD_BALANCER: &str = "may only be used when `type` is 'LoadBalancer'";
const BAD_CIDR: &str = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";
const BAD_IP: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

fn kind(spec: &Value) -> &str {
    spec["type"].as_str().unwrap_or_default()
}

/// Whether `text` is an address as Go's `netutils.ParseIPSloppy` reads it.
fn sloppy_ip(text: &str) -> bool {
    parse_sloppy(text).is_some()
}

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[][..], Vec::as_slice)
}

/// A headless LoadBalancer or NodePort Service (checked with the type, before the ports).
pub(super) fn headless_type(spec: &Value) -> Errors {
    let kind = kind(spec);
    let headless = spec["clusterIP"].as_str() == Some("None");
    if !headless || !matches!(kind, "LoadBalancer" | "NodePort") {
        return Vec::new();
    }
    let first = spec["clusterIPs"][0].as_str().unwrap_or("None");
    vec![invalid_str(
        "spec.clusterIPs[0]",
        first,
        &format!("may not be set to 'None' for {kind} services"),
    )]
}

/// A port's `appProtocol`: a qualified name.
pub(super) fn app_protocol(port: &Value, path: &str) -> Errors {
    let Some(app) = port["appProtocol"].as_str() else {
        return Vec::new();
    };
    let field = child(path, "appProtocol");
    qualified_name_errors(app)
        .iter()
        .map(|why| invalid_str(&field, app, why))
        .collect()
}

/// `validateClientIPAffinityConfig` for ClientIP affinity; nothing may be set for None.
pub(super) fn affinity_config(spec: &Value) -> Errors {
    let path = "spec.sessionAffinityConfig";
    let config = &spec["sessionAffinityConfig"];
    match spec["sessionAffinity"].as_str() {
        Some("ClientIP") => {
            let why = "when session affinity type is ClientIP";
            if !config.is_object() {
                return vec![required_because(path, why)];
            }
            let client = &config["clientIP"];
            let client_path = child(path, "clientIP");
            if !client.is_object() {
                return vec![required_because(&client_path, why)];
            }
            let timeout_path = child(&client_path, "timeoutSeconds");
            match client["timeoutSeconds"].as_i64() {
                None => vec![required_because(&timeout_path, why)],
                Some(t) if t <= 0 || t > MAX_AFFINITY_SECONDS => vec![invalid(
                    &timeout_path,
                    &t.into(),
                    &format!("must be greater than 0 and less than {MAX_AFFINITY_SECONDS}"),
                )],
                Some(_) => Vec::new(),
            }
        }
        Some("None") if config.is_object() => vec![forbidden(
            path,
            "must not be set when session affinity is None",
        )],
        _ => Vec::new(),
    }
}

/// Each external IP: an address, and not a special one.
pub(super) fn external_ips(spec: &Value) -> Errors {
    let mut out = Vec::new();
    for (i, ip) in items(&spec["externalIPs"]).iter().enumerate() {
        let ip = ip.as_str().unwrap_or_default();
        let at = index("spec.externalIPs", i);
        if sloppy_ip(ip) {
            out.extend(non_special_ip(ip, &at));
        } else {
            out.push(invalid_str(&at, ip, BAD_IP));
        }
    }
    out
}

/// After the type: no node port on a ClusterIP Service, no node port twice per protocol.
pub(super) fn node_ports(spec: &Value) -> Errors {
    let ports = items(&spec["ports"]);
    let mut out = Vec::new();
    if kind(spec) == "ClusterIP" {
        for (i, p) in ports.iter().enumerate() {
            if p["nodePort"].as_i64().unwrap_or(0) != 0 {
                out.push(forbidden(
                    &child(&index("spec.ports", i), "nodePort"),
                    "may not be used when `type` is 'ClusterIP'",
                ));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    for (i, p) in ports.iter().enumerate() {
        let node_port = p["nodePort"].as_i64().unwrap_or(0);
        if node_port == 0 {
            continue;
        }
        let protocol = p["protocol"].as_str().unwrap_or_default();
        if !seen.insert((protocol, node_port)) {
            out.push(super::errors::duplicate(
                &child(&index("spec.ports", i), "nodePort"),
                &node_port.into(),
            ));
        }
    }
    out
}

/// Whether `text` is a CIDR as Go's `netutils.ParseCIDRSloppy` reads it.
fn sloppy_cidr(text: &str) -> bool {
    let Some((ip, bits)) = text.split_once('/') else {
        return false;
    };
    let max = if ip.contains(':') { 128 } else { 32 };
    sloppy_ip(ip)
        && !bits.is_empty()
        && bits.bytes().all(|b| b.is_ascii_digit())
        && bits.parse::<u32>().is_ok_and(|n| n <= max)
}

/// The checks after the ports' duplicates: source ranges (the field, else the annotation),
/// the load balancer's node-port flag and class, the traffic policies, the distribution.
pub(super) fn tail(object: &Value) -> Errors {
    let spec = &object["spec"];
    let load_balancer = kind(spec) == "LoadBalancer";
    let mut out = Vec::new();
    let ranges = items(&spec["loadBalancerSourceRanges"]);
    let annotation = object["metadata"]["annotations"][SOURCE_RANGES_ANNOTATION].as_str();
    if !ranges.is_empty() {
        let path = "spec.LoadBalancerSourceRanges";
        if !load_balancer {
            out.push(forbidden(path, ONLY_LOAD_BALANCER));
        }
        for (i, range) in ranges.iter().enumerate() {
            let range = range.as_str().unwrap_or_default().trim();
            if !sloppy_cidr(range) {
                out.push(invalid_str(&index(path, i), range, BAD_CIDR));
            }
        }
    } else if let Some(value) = annotation {
        let path = format!("metadata.annotations[{SOURCE_RANGES_ANNOTATION}]");
        if !load_balancer {
            out.push(forbidden(&path, ONLY_LOAD_BALANCER));
        }
        let value = value.trim();
        if !value.is_empty() {
            for range in value.split(',').map(str::trim) {
                if !sloppy_cidr(range) {
                    out.push(invalid_str(&path, range, BAD_CIDR));
                }
            }
        }
    }
    let allocate = &spec["allocateLoadBalancerNodePorts"];
    if !allocate.is_null() && !load_balancer {
        out.push(forbidden(
            "spec.allocateLoadBalancerNodePorts",
            ONLY_LOAD_BALANCER,
        ));
    }
    if load_balancer && allocate.is_null() {
        out.push(required("allocateLoadBalancerNodePorts"));
    }
    out.extend(load_balancer_class(spec));
    out.extend(traffic_policies(spec));
    if let Some(distribution) = spec["trafficDistribution"].as_str()
        && !DISTRIBUTIONS.contains(&distribution)
    {
        out.push(not_supported(
            "spec.trafficDistribution",
            distribution,
            DISTRIBUTIONS,
        ));
    }
    out
}

/// The create part of `validateLoadBalancerClassField`: a qualified name on a load
/// balancer, nothing on other types.
fn load_balancer_class(spec: &Value) -> Errors {
    let Some(class) = spec["loadBalancerClass"].as_str() else {
        return Vec::new();
    };
    let path = "spec.loadBalancerClass";
    if kind(spec) == "LoadBalancer" {
        qualified_name_errors(class)
            .iter()
            .map(|why| invalid_str(path, class, why))
            .collect()
    } else {
        vec![forbidden(path, ONLY_LOAD_BALANCER)]
    }
}

/// Whether the Service gets a health check node port (`NeedsHealthCheck`).
fn needs_health_check(spec: &Value) -> bool {
    kind(spec) == "LoadBalancer" && spec["externalTrafficPolicy"] == "Local"
}

/// What `ValidateServiceUpdate` adds after the addresses and families: a load balancer's
/// class never changes (then the class is checked as on create, so its errors show twice),
/// nor the health check port while both sides need one.
pub(super) fn update(object: &Value, old: &Value) -> Errors {
    let (spec, old_spec) = (&object["spec"], &old["spec"]);
    let mut out = Vec::new();
    let both_balancers = kind(spec) == "LoadBalancer" && kind(old_spec) == "LoadBalancer";
    if both_balancers && spec["loadBalancerClass"] != old_spec["loadBalancerClass"] {
        out.push(invalid(
            "spec.loadBalancerClass",
            &spec["loadBalancerClass"],
            "may not change once set",
        ));
    }
    out.extend(load_balancer_class(spec));
    if needs_health_check(spec)
        && needs_health_check(old_spec)
        && spec["healthCheckNodePort"] != old_spec["healthCheckNodePort"]
    {
        out.push(forbidden("spec.healthCheckNodePort", "field is immutable"));
    }
    out
}

/// `validateServiceExternalTrafficPolicy` (with the health check node port) and
/// `validateServiceInternalTrafficFieldsValue`.
fn traffic_policies(spec: &Value) -> Errors {
    let kind = kind(spec);
    let mut out = Vec::new();
    let external = spec["externalTrafficPolicy"].as_str().unwrap_or_default();
    let accessible = matches!(kind, "LoadBalancer" | "NodePort")
        || (kind == "ClusterIP" && !items(&spec["externalIPs"]).is_empty());
    let policy_path = "spec.externalTrafficPolicy";
    if !accessible {
        if !external.is_empty() {
            out.push(invalid_str(
                policy_path,
                external,
                "may only be set for externally-accessible services",
            ));
        }
    } else if external.is_empty() {
        out.push(required(policy_path));
    } else if !EXTERNAL_POLICIES.contains(&external) {
        out.push(not_supported(policy_path, external, EXTERNAL_POLICIES));
    }
    let health = spec["healthCheckNodePort"].as_i64().unwrap_or(0);
    let health_path = "spec.healthCheckNodePort";
    if !(kind == "LoadBalancer" && external == "Local") {
        if health != 0 {
            out.push(invalid(
                health_path,
                &health.into(),
                "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
            ));
        }
    } else if health != 0 {
        // An absent port is the allocator's to fill in, which the real REST does first.
        for why in port_num(health) {
            out.push(invalid(health_path, &health.into(), &why));
        }
    }
    let internal_path = "spec.internalTrafficPolicy";
    match spec["internalTrafficPolicy"].as_str() {
        None if matches!(kind, "NodePort" | "LoadBalancer" | "ClusterIP") => {
            out.push(required(internal_path));
        }
        Some(internal) if !INTERNAL_POLICIES.contains(&internal) => {
            out.push(not_supported(internal_path, internal, INTERNAL_POLICIES));
        }
        _ => {}
    }
    out
}
