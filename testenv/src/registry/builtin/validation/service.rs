//! Services (`ValidateService`): ports, selector, type, and what each type needs.

use std::collections::HashSet;

use serde_json::Value;

use super::errors::{
    Errors, check_dns1123_label, check_labels, check_port_num_or_name, child, dns1123_subdomain,
    duplicate, forbidden, index, invalid, invalid_str, not_supported, port_num, required,
    required_because,
};

/// The protocols a port may name, as the real server lists them.
pub const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];
const TYPES: &[&str] = &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const AFFINITIES: &[&str] = &["ClientIP", "None"];
const IP_MODES: &[&str] = &["Proxy", "VIP"];
const BAD_IP: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

fn is_headless(spec: &Value) -> bool {
    spec["clusterIP"].as_str() == Some("None")
}

fn port(port: &Value, require_name: bool, names: &mut HashSet<String>, path: &str) -> Errors {
    let mut out = Vec::new();
    let name = port["name"].as_str().unwrap_or_default();
    let name_path = child(path, "name");
    if require_name && name.is_empty() {
        out.push(required(&name_path));
    } else if !name.is_empty() {
        out.extend(check_dns1123_label(&name_path, name));
        if !names.insert(name.to_string()) {
            out.push(duplicate(&name_path, &Value::String(name.into())));
        }
    }
    let number = port["port"].as_i64().unwrap_or(0);
    for why in port_num(number) {
        out.push(invalid(&child(path, "port"), &Value::from(number), &why));
    }
    match port["protocol"].as_str().unwrap_or_default() {
        "" => out.push(required(&child(path, "protocol"))),
        p if !PROTOCOLS.contains(&p) => {
            out.push(not_supported(&child(path, "protocol"), p, PROTOCOLS));
        }
        _ => {}
    }
    let target = port.get("targetPort").cloned().unwrap_or(Value::from(0));
    out.extend(check_port_num_or_name(&child(path, "targetPort"), &target));
    out
}

/// `ValidateService` (without the metadata) of a defaulted Service.
pub fn service(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = Vec::new();
    let kind = spec["type"].as_str().unwrap_or_default();
    let ports: &[Value] = spec["ports"].as_array().map_or(&[], Vec::as_slice);
    if ports.is_empty() && !is_headless(spec) && kind != "ExternalName" {
        out.push(required("spec.ports"));
    }
    if kind == "ExternalName" {
        // The IP fields are the allocator's, which has nothing to give a name.
        let set = |f: &str| match &spec[f] {
            Value::Null => false,
            Value::Array(items) => !items.is_empty(),
            _ => true,
        };
        for field in ["clusterIPs", "ipFamilies", "ipFamilyPolicy"] {
            if set(field) {
                out.push(forbidden(
                    &format!("spec.{field}"),
                    "may not be set for ExternalName services",
                ));
            }
        }
        match spec["externalName"].as_str().unwrap_or_default() {
            "" => out.push(required("spec.externalName")),
            name => {
                let trimmed = name.strip_suffix('.').unwrap_or(name);
                for why in dns1123_subdomain(trimmed) {
                    out.push(invalid_str("spec.externalName", trimmed, &why));
                }
            }
        }
    }
    let mut names = HashSet::new();
    for (i, p) in ports.iter().enumerate() {
        out.extend(port(
            p,
            ports.len() > 1,
            &mut names,
            &index("spec.ports", i),
        ));
    }
    if spec.get("selector").is_some_and(Value::is_object) {
        out.extend(check_labels("spec.selector", spec["selector"].as_object()));
    }
    match spec["sessionAffinity"].as_str().unwrap_or_default() {
        "" => out.push(required("spec.sessionAffinity")),
        a if !AFFINITIES.contains(&a) => {
            out.push(not_supported("spec.sessionAffinity", a, AFFINITIES));
        }
        _ => {}
    }
    if !TYPES.contains(&kind) {
        out.push(not_supported("spec.type", kind, TYPES));
    }
    // The same port and protocol twice, reported with the key Go builds for it.
    let mut seen = HashSet::new();
    for (i, p) in ports.iter().enumerate() {
        let protocol = p["protocol"].as_str().unwrap_or_default();
        let number = p["port"].as_i64().unwrap_or(0);
        if !seen.insert((protocol.to_string(), number)) {
            out.push(crate::support::status::Cause {
                reason: "FieldValueDuplicate".into(),
                message: format!(
                    "Duplicate value: {{\"Name\":\"\",\"Protocol\":{protocol:?},\"AppProtocol\":null,\"Port\":{number},\"TargetPort\":0,\"NodePort\":0}}"
                ),
                field: index("spec.ports", i),
            });
        }
    }
    out
}

/// The first checks of `ValidateServiceClusterIPsRelatedFields`: `clusterIP` and
/// `clusterIPs` agree. The Service REST fills `clusterIPs` in before validating, so only a
/// create without it (through `/status`) can fail them.
pub fn cluster_ips(object: &Value) -> Errors {
    let spec = &object["spec"];
    if spec["type"] == "ExternalName" {
        return Vec::new();
    }
    let ip = spec["clusterIP"].as_str().unwrap_or_default();
    let ips: &[Value] = spec["clusterIPs"].as_array().map_or(&[], Vec::as_slice);
    let field = "spec.clusterIPs";
    let listed = || Value::Array(ips.to_vec());
    match (ip.is_empty(), ips.first()) {
        (false, None) => vec![required(field)],
        (false, Some(first)) if first.as_str() != Some(ip) => {
            vec![invalid(
                field,
                &listed(),
                "first value must match `clusterIP`",
            )]
        }
        (true, Some(_)) => vec![invalid(
            field,
            &listed(),
            "must be empty when `clusterIP` is not specified",
        )],
        _ => Vec::new(),
    }
}

/// Whether `text` is an address as Go's `netutils.ParseIPSloppy` reads it (the legacy
/// parser: IPv4 octets may have leading zeros).
fn sloppy_ip(text: &str) -> bool {
    if text.parse::<std::net::IpAddr>().is_ok() {
        return true;
    }
    let octets: Vec<&str> = text.split('.').collect();
    octets.len() == 4
        && octets.iter().all(|o| {
            !o.is_empty()
                && o.bytes().all(|b| b.is_ascii_digit())
                && o.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// `ValidateServiceStatusUpdate`'s load balancer checks (`ValidateLoadBalancerStatus`): no
/// ingress unless `spec.type` is LoadBalancer; each ingress's `ip` an address, `ipMode` set
/// exactly when `ip` is and one of Proxy or VIP, `hostname` a DNS subdomain that is not an
/// address. Ports and conditions are not checked.
pub fn status(object: &Value) -> Errors {
    let ingress: &[Value] = object["status"]["loadBalancer"]["ingress"]
        .as_array()
        .map_or(&[], Vec::as_slice);
    let path = "status.loadBalancer.ingress";
    if ingress.is_empty() {
        return Vec::new();
    }
    if object["spec"]["type"] != "LoadBalancer" {
        return vec![forbidden(
            path,
            "may only be used when `spec.type` is 'LoadBalancer'",
        )];
    }
    let mut out = Vec::new();
    for (i, item) in ingress.iter().enumerate() {
        let at = index(path, i);
        let ip = item["ip"].as_str().unwrap_or_default();
        if !ip.is_empty() && !sloppy_ip(ip) {
            out.push(invalid_str(&child(&at, "ip"), ip, BAD_IP));
        }
        let mode_path = child(&at, "ipMode");
        match item.get("ipMode").filter(|m| !m.is_null()) {
            Some(_) if ip.is_empty() => {
                out.push(forbidden(
                    &mode_path,
                    "may not be specified when `ip` is not set",
                ));
            }
            Some(mode) => {
                let mode = mode.as_str().unwrap_or_default();
                if !IP_MODES.contains(&mode) {
                    out.push(not_supported(&mode_path, mode, IP_MODES));
                }
            }
            None if !ip.is_empty() => {
                out.push(required_because(
                    &mode_path,
                    "must be specified when `ip` is set",
                ));
            }
            None => {}
        }
        let hostname = item["hostname"].as_str().unwrap_or_default();
        if !hostname.is_empty() {
            let field = child(&at, "hostname");
            for why in dns1123_subdomain(hostname) {
                out.push(invalid_str(&field, hostname, &why));
            }
            if sloppy_ip(hostname) {
                out.push(invalid_str(
                    &field,
                    hostname,
                    "must be a DNS name, not an IP address",
                ));
            }
        }
    }
    out
}

/// The standard form of an address the legacy parser accepts but a strict one would not
/// (leading zeros in IPv4, IPv4-mapped IPv6), or the RFC 5952 form of an IPv6 address
/// written otherwise: the warning `GetWarningsForIP` gives, naming `field`.
fn ip_warning(field: &str, text: &str) -> Option<String> {
    match text.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V6(v6)) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return Some(non_standard(field, text, &v4.to_string()));
            }
            let canonical = v6.to_string();
            (canonical != text).then(|| {
                format!(
                    "{field}: IPv6 address {text:?} should be in RFC 5952 canonical format ({canonical:?})"
                )
            })
        }
        Ok(std::net::IpAddr::V4(_)) => None,
        Err(_) if sloppy_ip(text) => {
            let octets: Vec<String> = text
                .split('.')
                .map(|o| o.parse::<u16>().unwrap_or_default().to_string())
                .collect();
            Some(non_standard(field, text, &octets.join(".")))
        }
        Err(_) => None,
    }
}

fn non_standard(field: &str, text: &str, standard: &str) -> String {
    format!(
        "{field}: non-standard IP address {text:?} will be considered invalid in a future Kubernetes release: use {standard:?}"
    )
}

/// The warnings of a Service's status update: ingress addresses in a non-standard form.
pub fn status_warnings(object: &Value) -> Vec<String> {
    let ingress = object["status"]["loadBalancer"]["ingress"].as_array();
    ingress
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, item)| {
            let ip = item["ip"].as_str().filter(|ip| !ip.is_empty())?;
            ip_warning(&index("status.loadBalancer.ingress", i), ip)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ports_in_range_and_required() {
        let svc = json!({"spec": {"type": "ClusterIP", "sessionAffinity": "None",
            "ports": [{"port": 0, "protocol": "TCP", "targetPort": 0}]}});
        let fields: Vec<String> = service(&svc).into_iter().map(|c| c.field).collect();
        assert_eq!(fields, ["spec.ports[0].port", "spec.ports[0].targetPort"]);
        let none = json!({"spec": {"type": "ClusterIP", "sessionAffinity": "None"}});
        assert_eq!(service(&none)[0].field, "spec.ports");
    }

    #[test]
    fn cluster_ips_agree() {
        let only_ip = json!({"spec": {"clusterIP": "None"}});
        assert_eq!(cluster_ips(&only_ip)[0].message, "Required value");
        let only_list = json!({"spec": {"clusterIPs": ["10.0.0.1"]}});
        assert!(
            cluster_ips(&only_list)[0]
                .message
                .ends_with("must be empty when `clusterIP` is not specified")
        );
        let both = json!({"spec": {"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1"]}});
        assert!(cluster_ips(&both).is_empty());
        let external = json!({"spec": {"type": "ExternalName", "clusterIP": "x"}});
        assert!(cluster_ips(&external).is_empty());
    }

    #[test]
    fn external_names_take_no_ip_fields() {
        let named = json!({"spec": {"type": "ExternalName", "externalName": "a.example.com",
            "clusterIPs": ["1.2.3.4"], "ipFamilies": [], "ipFamilyPolicy": "SingleStack",
            "sessionAffinity": "None"}});
        let fields: Vec<String> = service(&named).into_iter().map(|c| c.field).collect();
        assert_eq!(fields, ["spec.clusterIPs", "spec.ipFamilyPolicy"]);
    }

    #[test]
    fn load_balancer_status() {
        let cluster = json!({"spec": {"type": "ClusterIP"},
            "status": {"loadBalancer": {"ingress": [{"ip": "x"}]}}});
        let errors = status(&cluster);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field, "status.loadBalancer.ingress");
        let lb = json!({"spec": {"type": "LoadBalancer"}, "status": {"loadBalancer": {"ingress": [
            {"ip": "001.2.3.4", "ipMode": "VIP"},
            {"ip": "1.2.3.4/24"},
            {"hostname": "1.2.3.4", "ipMode": "Proxy"},
            {"ip": "::1", "ipMode": "Foo"}]}}});
        let fields: Vec<String> = status(&lb).into_iter().map(|c| c.field).collect();
        assert_eq!(
            fields,
            [
                "status.loadBalancer.ingress[1].ip",
                "status.loadBalancer.ingress[1].ipMode",
                "status.loadBalancer.ingress[2].ipMode",
                "status.loadBalancer.ingress[2].hostname",
                "status.loadBalancer.ingress[3].ipMode",
            ]
        );
    }

    #[test]
    fn non_standard_addresses_warn() {
        let lb = json!({"status": {"loadBalancer": {"ingress": [
            {"ip": "001.2.3.4"}, {"ip": "1.2.3.4"}, {"ip": "::ffff:1.2.3.4"}, {"ip": "2001:DB8::1"}, {"ip": "x"}]}}});
        assert_eq!(
            status_warnings(&lb),
            [
                r#"status.loadBalancer.ingress[0]: non-standard IP address "001.2.3.4" will be considered invalid in a future Kubernetes release: use "1.2.3.4""#,
                r#"status.loadBalancer.ingress[2]: non-standard IP address "::ffff:1.2.3.4" will be considered invalid in a future Kubernetes release: use "1.2.3.4""#,
                r#"status.loadBalancer.ingress[3]: IPv6 address "2001:DB8::1" should be in RFC 5952 canonical format ("2001:db8::1")"#,
            ]
        );
    }
}
