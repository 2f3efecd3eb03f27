//! Services (`ValidateService`): ports, selector, type, and what each type needs.

use std::collections::HashSet;

use serde_json::Value;

use super::service_fields;

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
    out.extend(service_fields::app_protocol(port, path));
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
    out.extend(service_fields::headless_type(spec));
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
    out.extend(service_fields::affinity_config(spec));
    out.extend(service_fields::external_ips(spec));
    if !TYPES.contains(&kind) {
        out.push(not_supported("spec.type", kind, TYPES));
    }
    out.extend(service_fields::node_ports(spec));
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
    out.extend(service_fields::tail(object));
    out
}

/// The families a Service may ask for.
const FAMILIES: &[&str] = &["IPv4", "IPv6"];
/// The IP family policies, as the real server lists them.
const POLICIES: &[&str] = &["PreferDualStack", "RequireDualStack", "SingleStack"];

/// Whether `ip` is an IPv6 address (Go's `netutils.IsIPv6String`).
fn is_ipv6(ip: &str) -> bool {
    ip.parse::<std::net::Ipv6Addr>().is_ok()
}

/// `ValidateServiceClusterIPsRelatedFields`, the checks the Service REST's allocator makes
/// first: `clusterIP` and `clusterIPs` agree; each of `ipFamilies` is IPv4 or IPv6, once;
/// `ipFamilyPolicy` is a known one; each of `clusterIPs` is an address (`None` only first
/// and alone), at most two, one per family, of the family `ipFamilies` gives it. Nothing
/// for an ExternalName Service.
pub fn cluster_ips(object: &Value) -> Errors {
    let spec = &object["spec"];
    if spec["type"] == "ExternalName" {
        return Vec::new();
    }
    let ip = spec["clusterIP"].as_str().unwrap_or_default();
    let ips: &[Value] = spec["clusterIPs"].as_array().map_or(&[], Vec::as_slice);
    let field = "spec.clusterIPs";
    let listed = || Value::Array(ips.to_vec());
    let mut out = match (ip.is_empty(), ips.first()) {
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
    };
    let families: Vec<&str> = spec["ipFamilies"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| f.as_str().unwrap_or_default())
        .collect();
    let mut seen = HashSet::new();
    for (i, family) in families.iter().enumerate() {
        let at = index("spec.ipFamilies", i);
        if !FAMILIES.contains(family) {
            out.push(not_supported(&at, family, FAMILIES));
        }
        if !seen.insert(*family) {
            out.push(duplicate(&at, &Value::String((*family).into())));
        }
    }
    if let Some(policy) = spec["ipFamilyPolicy"].as_str()
        && !POLICIES.contains(&policy)
    {
        out.push(not_supported("spec.ipFamilyPolicy", policy, POLICIES));
    }
    let texts: Vec<&str> = ips.iter().map(|v| v.as_str().unwrap_or_default()).collect();
    let mut bad_ips = false;
    for (i, text) in texts.iter().enumerate() {
        if i == 0 && *text == "None" {
            if texts.len() > 1 {
                bad_ips = true;
                out.push(invalid(
                    field,
                    &listed(),
                    "'None' must be the first and only value",
                ));
            }
            continue;
        }
        if !sloppy_ip(text) {
            bad_ips = true;
            out.push(invalid_str(&index(field, i), text, BAD_IP));
        }
    }
    if texts.len() > 2 {
        out.push(invalid(field, &listed(), "may only hold up to 2 values"));
    }
    if bad_ips {
        return out;
    }
    if texts.len() > 1 {
        // Go's `IsDualStackIPStrings`: some address of each family.
        let v6 = texts.iter().filter(|t| is_ipv6(t)).count();
        if v6 == 0 || v6 == texts.len() {
            out.push(invalid(
                field,
                &listed(),
                "may specify no more than one IP for each IP family",
            ));
        }
    }
    if !is_headless(spec) {
        for (i, (text, family)) in texts.iter().zip(&families).enumerate() {
            let wanted = match *family {
                "IPv4" if is_ipv6(text) => "IPv4",
                "IPv6" if !is_ipv6(text) => "IPv6",
                _ => continue,
            };
            out.push(invalid_str(
                &index(field, i),
                text,
                &format!("expected an {wanted} value as indicated by `ipFamilies[{i}]`"),
            ));
        }
    }
    out
}

/// `ValidateServiceUpdate`'s checks of the addresses and families an update may change
/// (`validateUpgradeDowngradeClusterIPs` and `validateUpgradeDowngradeIPFamilies`): the
/// primary address and family stay, a second one goes only with `ipFamilyPolicy:
/// SingleStack`. Nothing when either side is ExternalName; headless Services may change
/// their families. Then the load balancer class and health check port an update may not
/// change ([`service_fields::update`]).
pub fn update(object: &Value, old: &Value) -> Errors {
    let mut out = ip_update(object, old);
    out.extend(service_fields::update(object, old));
    out
}

fn ip_update(object: &Value, old: &Value) -> Errors {
    let (spec, old_spec) = (&object["spec"], &old["spec"]);
    if spec["type"] == "ExternalName" || old_spec["type"] == "ExternalName" {
        return Vec::new();
    }
    let list = |s: &Value, f: &str| -> Vec<Value> { s[f].as_array().cloned().unwrap_or_default() };
    let (ips, old_ips) = (list(spec, "clusterIPs"), list(old_spec, "clusterIPs"));
    let (families, old_families) = (list(spec, "ipFamilies"), list(old_spec, "ipFamilies"));
    let single = spec["ipFamilyPolicy"] == "SingleStack";
    let first = "spec.clusterIPs[0]";
    let ips_value = Value::Array(ips.clone());
    let mut out = Vec::new();
    let (headless, old_headless) = (is_headless(spec), is_headless(old_spec));
    if !(headless && old_headless) {
        if ips.len() == old_ips.len() {
            for (i, (new, before)) in ips.iter().zip(&old_ips).enumerate() {
                if new != before {
                    out.push(invalid(
                        &index("spec.clusterIPs", i),
                        &ips_value,
                        "may not change once set",
                    ));
                }
            }
        } else if ips.len() < old_ips.len() {
            if ips.is_empty() {
                out.push(invalid(
                    first,
                    &ips_value,
                    "primary clusterIP can not be unset",
                ));
            } else if ips[0] != old_ips[0] {
                out.push(invalid(first, &ips_value, "may not change once set"));
            }
            if ips.len() == 1 && !single {
                out.push(invalid(
                    first,
                    &ips_value,
                    "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary clusterIP",
                ));
            }
        } else if !old_ips.is_empty() && ips[0] != old_ips[0] {
            out.push(invalid(first, &ips_value, "may not change once set"));
        }
    }
    if headless || old_headless {
        return out;
    }
    let families_value = Value::Array(families.clone());
    let first_family = "spec.ipFamilies[0]";
    if families.len() == old_families.len() {
        for (new, before) in families.iter().zip(&old_families) {
            if new != before {
                out.push(invalid(
                    first_family,
                    &families_value,
                    "may not change once set",
                ));
            }
        }
    } else if families.len() < old_families.len() {
        if ips.is_empty() {
            out.push(invalid(
                first_family,
                &families_value,
                "primary ipFamily can not be unset",
            ));
        }
        if !families.is_empty() && families[0] != old_families[0] {
            out.push(invalid(first_family, &ips_value, "may not change once set"));
        }
        if families.len() == 1 && !single {
            out.push(invalid(
                first,
                &ips_value,
                "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary ipFamily",
            ));
        }
    } else if !old_families.is_empty() && !families.is_empty() && families[0] != old_families[0] {
        out.push(invalid(first_family, &ips_value, "may not change once set"));
    }
    out
}

/// Whether `text` is an address as Go's `netutils.ParseIPSloppy` reads it (the legacy
/// parser: IPv4 octets may have leading zeros).
pub(super) fn sloppy_ip(text: &str) -> bool {
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
        out.extend(ingress_hostname(&at, item));
    }
    out
}

/// The errors of a load balancer ingress point's `hostname` at `at` (a Service's or an
/// Ingress's status): a DNS subdomain, not an IP address. None when it is unset.
pub(super) fn ingress_hostname(at: &str, item: &Value) -> Errors {
    let mut out = Vec::new();
    let hostname = item["hostname"].as_str().unwrap_or_default();
    if hostname.is_empty() {
        return out;
    }
    let field = child(at, "hostname");
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
            "internalTrafficPolicy": "Cluster",
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
    fn families_policies_and_addresses_stand_alone() {
        let fields = |spec: Value| -> Vec<(String, String)> {
            cluster_ips(&json!({"spec": spec}))
                .into_iter()
                .map(|c| (c.field, c.message))
                .collect()
        };
        assert_eq!(
            fields(json!({"ipFamilies": ["IPv4", "IPv5", "IPv4"], "ipFamilyPolicy": "Both"})),
            [
                (
                    "spec.ipFamilies[1]".to_string(),
                    r#"Unsupported value: "IPv5": supported values: "IPv4", "IPv6""#.to_string()
                ),
                (
                    "spec.ipFamilies[2]".into(),
                    r#"Duplicate value: "IPv4""#.into()
                ),
                (
                    "spec.ipFamilyPolicy".into(),
                    r#"Unsupported value: "Both": supported values: "PreferDualStack", "RequireDualStack", "SingleStack""#.into()
                ),
            ]
        );
        let three = json!({"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1", "::1", "10.0.0.2"]});
        assert_eq!(
            fields(three)[0].1,
            r#"Invalid value: ["10.0.0.1","::1","10.0.0.2"]: may only hold up to 2 values"#
        );
        let same = json!({"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1", "10.0.0.2"]});
        assert!(
            fields(same)[0]
                .1
                .ends_with("may specify no more than one IP for each IP family")
        );
        let none = json!({"clusterIP": "None", "clusterIPs": ["None", "10.0.0.2"]});
        assert!(
            fields(none)[0]
                .1
                .ends_with("'None' must be the first and only value")
        );
        let bad = json!({"clusterIP": "x", "clusterIPs": ["x", "10.0.0.2", "10.0.0.3"]});
        // A bad address stops the checks of pairs: no per-family complaint follows.
        assert_eq!(
            fields(bad).into_iter().map(|f| f.0).collect::<Vec<_>>(),
            ["spec.clusterIPs[0]", "spec.clusterIPs"]
        );
        let wrong =
            json!({"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1"], "ipFamilies": ["IPv6"]});
        assert_eq!(
            fields(wrong),
            [(
                "spec.clusterIPs[0]".to_string(),
                "Invalid value: \"10.0.0.1\": expected an IPv6 value as indicated by `ipFamilies[0]`"
                    .to_string()
            )]
        );
        let headless = json!({"clusterIP": "None", "clusterIPs": ["None"], "ipFamilies": ["IPv6"]});
        assert!(fields(headless).is_empty());
    }

    #[test]
    fn updates_keep_the_primary_address() {
        let old = json!({"spec": {"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1"],
            "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack"}});
        let mut moved = old.clone();
        moved["spec"]["clusterIPs"] = json!(["10.0.0.2"]);
        let errors = update(&moved, &old);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field, "spec.clusterIPs[0]");
        assert_eq!(
            errors[0].message,
            r#"Invalid value: ["10.0.0.2"]: may not change once set"#
        );
        assert!(update(&old, &old).is_empty());
        let mut named = moved.clone();
        named["spec"]["type"] = json!("ExternalName");
        assert!(update(&named, &old).is_empty());
        let headless = json!({"spec": {"clusterIP": "None", "clusterIPs": ["None"],
            "ipFamilies": ["IPv4", "IPv6"]}});
        let mut swapped = headless.clone();
        swapped["spec"]["ipFamilies"] = json!(["IPv6", "IPv4"]);
        assert!(update(&swapped, &headless).is_empty());
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
