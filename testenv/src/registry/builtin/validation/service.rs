//! Services (`ValidateService`): ports, selector, type, and what each type needs.

use std::collections::HashSet;

use serde_json::Value;

use super::errors::{
    Errors, check_dns1123_label, check_labels, check_port_num_or_name, child, dns1123_subdomain,
    duplicate, index, invalid, invalid_str, not_supported, port_num, required,
};

/// The protocols a port may name, as the real server lists them.
pub const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];
const TYPES: &[&str] = &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const AFFINITIES: &[&str] = &["ClientIP", "None"];

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
}
