//! Ingresses, as `pkg/apis/networking/validation` checks them (`ValidateIngressCreate`,
//! `ValidateIngressUpdate`): a default backend or rules, each rule's host (a DNS name, a
//! wildcard only as the first label) and HTTP paths (their type, absolute and clean paths),
//! each backend (a service xor a resource, a port name xor number), the TLS hosts and secret
//! names, the class name; on a create, the deprecated class annotation must agree with
//! `ingressClassName` (alone, it draws a warning, `pkg/registry/networking/ingress`).

use serde_json::Value;

use super::errors::{
    Errors, child, dns1123_subdomain, index, invalid, invalid_str, not_supported, port_name,
    port_num, required, required_because,
};
use super::rbac::path_segment;
use crate::registry::schema::names::dns1035_label;

const CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";
const PATH_TYPES: &[&str] = &["Exact", "ImplementationSpecific", "Prefix"];
const BAD_SEQUENCES: &[&str] = &["//", "/./", "/../", "%2f", "%2F"];
const BAD_SUFFIXES: &[&str] = &["/..", "/."];
const WILDCARD_SUBDOMAIN: &str = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// `IsWildcardDNS1123Subdomain`: `*.` then a DNS subdomain, at most 253 characters.
fn wildcard_subdomain(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    if value.len() > 253 {
        out.push("must be no more than 253 characters".to_string());
    }
    let ok = value.strip_prefix("*.").is_some_and(|rest| {
        !dns1123_subdomain(rest)
            .iter()
            .any(|why| why.starts_with("a lowercase"))
    });
    if !ok {
        out.push(WILDCARD_SUBDOMAIN.to_string());
    }
    out
}

/// Whether `host` parses as an IP address the way `netutils.ParseIPSloppy` does (IPv4
/// parts may have leading zeros).
fn is_ip(host: &str) -> bool {
    if host.parse::<std::net::Ipv6Addr>().is_ok() {
        return true;
    }
    let parts: Vec<&str> = host.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|c| c.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// A host as a rule or a TLS entry names it: a wildcard subdomain when it holds a `*`, a
/// DNS subdomain otherwise.
fn host_errors(field: &str, host: &str) -> Errors {
    let whys = if host.contains('*') {
        wildcard_subdomain(host)
    } else {
        dns1123_subdomain(host)
    };
    whys.iter()
        .map(|why| invalid_str(field, host, why))
        .collect()
}

/// `validateIngressTypedLocalObjectReference` of a resource backend.
fn resource_backend(resource: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    if let Some(group) = resource["apiGroup"].as_str() {
        for why in dns1123_subdomain(group) {
            out.push(invalid_str(&child(path, "apiGroup"), group, &why));
        }
    }
    for f in ["kind", "name"] {
        let value = text(resource, f);
        if value.is_empty() {
            out.push(required(&child(path, f)));
        }
        for why in path_segment(value) {
            out.push(invalid_str(&child(path, f), value, &why));
        }
    }
    out
}

/// `validateIngressBackend`: a service xor a resource; a service's name (a DNS-1035 label)
/// and its port, by name xor number.
fn backend(backend: &Value, path: &str) -> Errors {
    let (resource, service) = (&backend["resource"], &backend["service"]);
    match (resource.is_object(), service.is_object()) {
        (true, true) => vec![invalid_str(
            path,
            "",
            "cannot set both resource and service backends",
        )],
        (true, false) => resource_backend(resource, &child(path, "resource")),
        (false, true) => {
            let mut out = Vec::new();
            let name = text(service, "name");
            let name_path = child(path, "service.name");
            if name.is_empty() {
                out.push(required(&name_path));
            } else {
                for why in dns1035_label(name) {
                    out.push(invalid_str(&name_path, name, &why));
                }
            }
            let port = &service["port"];
            let port_name_value = text(port, "name");
            let number = port["number"].as_i64().unwrap_or(0);
            match (port_name_value.is_empty(), number == 0) {
                (false, false) => out.push(invalid_str(
                    path,
                    "",
                    "cannot set both port name & port number",
                )),
                (false, true) => {
                    for why in port_name(port_name_value) {
                        out.push(invalid_str(
                            &child(path, "service.port.name"),
                            port_name_value,
                            &why,
                        ));
                    }
                }
                (true, false) => {
                    for why in port_num(number) {
                        out.push(invalid(
                            &child(path, "service.port.number"),
                            &number.into(),
                            &why,
                        ));
                    }
                }
                (true, true) => {
                    out.push(required_because(path, "port name or number is required"));
                }
            }
            out
        }
        (false, false) => vec![invalid_str(
            path,
            "",
            "resource or service backend is required",
        )],
    }
}

/// `validateHTTPIngressPath`: a path type is required, and decides what the path may be.
fn http_path(entry: &Value, path: &str) -> Errors {
    let Some(path_type) = entry["pathType"].as_str() else {
        return vec![required_because(
            &child(path, "pathType"),
            "pathType must be specified",
        )];
    };
    let mut out = Vec::new();
    let value = text(entry, "path");
    let path_field = child(path, "path");
    match path_type {
        "Exact" | "Prefix" => {
            if !value.starts_with('/') {
                out.push(invalid_str(&path_field, value, "must be an absolute path"));
            }
            for bad in BAD_SEQUENCES.iter().filter(|bad| value.contains(**bad)) {
                out.push(invalid_str(
                    &path_field,
                    value,
                    &format!("must not contain '{bad}'"),
                ));
            }
            for bad in BAD_SUFFIXES.iter().filter(|bad| value.ends_with(**bad)) {
                out.push(invalid_str(
                    &path_field,
                    value,
                    &format!("cannot end with '{bad}'"),
                ));
            }
        }
        "ImplementationSpecific" => {
            if !value.is_empty() && !value.starts_with('/') {
                out.push(invalid_str(&path_field, value, "must be an absolute path"));
            }
        }
        other => out.push(not_supported(&child(path, "pathType"), other, PATH_TYPES)),
    }
    out.extend(backend(&entry["backend"], &child(path, "backend")));
    out
}

/// `validateIngressRules`: each rule's host, then its HTTP paths.
fn rules(rules: &[Value], path: &str) -> Errors {
    let mut out = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let at = index(path, i);
        let host = text(rule, "host");
        if !host.is_empty() {
            let host_path = child(&at, "host");
            if is_ip(host) {
                out.push(invalid_str(
                    &host_path,
                    host,
                    "must be a DNS name, not an IP address",
                ));
            }
            out.extend(host_errors(&host_path, host));
        }
        let http = &rule["http"];
        if http.is_object() {
            let paths_path = child(&at, "http.paths");
            let paths = items(&http["paths"]);
            if paths.is_empty() {
                out.push(required(&paths_path));
            }
            for (j, entry) in paths.iter().enumerate() {
                out.extend(http_path(entry, &index(&paths_path, j)));
            }
        }
    }
    out
}

/// `validateIngressTLS`: each entry's hosts and secret name.
fn tls(entries: &[Value], path: &str) -> Errors {
    let mut out = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let at = index(path, i);
        for (j, host) in items(&entry["hosts"]).iter().enumerate() {
            let host = host.as_str().unwrap_or_default();
            out.extend(host_errors(&index(&child(&at, "hosts"), j), host));
        }
        let secret = text(entry, "secretName");
        if !secret.is_empty() {
            for why in dns1123_subdomain(secret) {
                out.push(invalid_str(&child(&at, "secretName"), secret, &why));
            }
        }
    }
    out
}

/// `ValidateIngressSpec` of an Ingress (without the metadata).
pub fn ingress(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = Vec::new();
    let rule_list = items(&spec["rules"]);
    let default_backend = &spec["defaultBackend"];
    if rule_list.is_empty() && !default_backend.is_object() {
        let rules_value = if spec["rules"].is_array() {
            spec["rules"].clone()
        } else {
            Value::Null
        };
        out.push(invalid(
            "spec",
            &rules_value,
            "either `defaultBackend` or `rules` must be specified",
        ));
    }
    if default_backend.is_object() {
        out.extend(backend(default_backend, "spec.defaultBackend"));
    }
    out.extend(rules(rule_list, "spec.rules"));
    out.extend(tls(items(&spec["tls"]), "spec.tls"));
    if let Some(class) = spec["ingressClassName"].as_str() {
        for why in dns1123_subdomain(class) {
            out.push(invalid_str("spec.ingressClassName", class, &why));
        }
    }
    out
}

/// What `ValidateIngressCreate` adds after the spec: the deprecated class annotation must
/// name the class `ingressClassName` names, when both are given.
pub fn ingress_create(object: &Value) -> Errors {
    let annotation = object["metadata"]["annotations"][CLASS_ANNOTATION].as_str();
    match (annotation, object["spec"]["ingressClassName"].as_str()) {
        (Some(annotation), Some(class)) if annotation != class => vec![invalid_str(
            &child("annotations", CLASS_ANNOTATION),
            annotation,
            "must match `ingressClassName` when both are specified",
        )],
        _ => Vec::new(),
    }
}

/// The warning of a created Ingress that carries the deprecated class annotation without
/// `ingressClassName` (an update warns of nothing).
pub fn warnings(object: &Value, old: Option<&Value>) -> Vec<String> {
    let annotated = object["metadata"]["annotations"]
        .get(CLASS_ANNOTATION)
        .is_some();
    let classless = object["spec"]["ingressClassName"].is_null();
    if old.is_none() && annotated && classless {
        vec![format!(
            "annotation {CLASS_ANNOTATION:?} is deprecated, please use 'spec.ingressClassName' instead"
        )]
    } else {
        Vec::new()
    }
}
