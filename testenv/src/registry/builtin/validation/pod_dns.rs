//! A pod's name resolution and readiness settings (`validatePodDNSConfig`,
//! `validateReadinessGates` and `ValidateHostAliases` of `ValidatePodSpec`): the DNS
//! configuration `dnsPolicy: None` requires (at most three nameservers, each an IP; search
//! domains, a trailing dot allowed; named options), readiness gates' condition types, and
//! host aliases' addresses and host names.

use serde_json::Value;

use super::errors::{
    Errors, child, dns1123_subdomain, index, invalid, invalid_str, required_because,
};
use crate::support::go_ip;
use crate::support::meta::qualified_name_errors;

const BAD_IP: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
const MAX_NAMESERVERS: usize = 3;
const MAX_SEARCH_PATHS: usize = 32;
const MAX_SEARCH_CHARS: usize = 2048;

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| v.as_str().unwrap_or_default())
        .collect()
}

/// `IsValidIPForLegacyField`: an address as the legacy parser reads it (leading zeros
/// allowed).
fn ip(value: &str, path: &str) -> Errors {
    if go_ip::parse_sloppy(value).is_some() {
        Vec::new()
    } else {
        vec![invalid_str(path, value, BAD_IP)]
    }
}

/// `IsDNS1123SubdomainWithUnderscore`'s errors, in its words.
fn subdomain_with_underscore(value: &str) -> Vec<String> {
    let label = |part: &str| {
        let part = part.strip_prefix('_').unwrap_or(part);
        let bytes = part.as_bytes();
        let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
        !bytes.is_empty()
            && bytes.first().is_some_and(alnum)
            && bytes.last().is_some_and(alnum)
            && bytes.iter().all(|b| alnum(b) || *b == b'-' || *b == b'_')
    };
    let mut out = Vec::new();
    if value.len() > 253 {
        out.push("must be no more than 253 characters".to_string());
    }
    if !value.split('.').all(label) {
        out.push("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')".to_string());
    }
    out
}

/// `validatePodDNSConfig` of the spec's `dnsConfig` at `path`, with the spec's DNS policy.
pub fn dns_config(spec: &Value, path: &str) -> Errors {
    let config = &spec["dnsConfig"];
    let nameservers = strings(&config["nameservers"]);
    if spec["dnsPolicy"] == "None" {
        if !config.is_object() {
            let why = "must provide `dnsConfig` when `dnsPolicy` is None";
            return vec![required_because(path, why)];
        }
        if nameservers.is_empty() {
            let why = "must provide at least one DNS nameserver when `dnsPolicy` is None";
            return vec![required_because(&child(path, "nameservers"), why)];
        }
    }
    if !config.is_object() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let ns_path = child(path, "nameservers");
    if nameservers.len() > MAX_NAMESERVERS {
        let why = format!("must not have more than {MAX_NAMESERVERS} nameservers");
        out.push(invalid(&ns_path, &config["nameservers"], &why));
    }
    for (i, ns) in nameservers.iter().enumerate() {
        out.extend(ip(ns, &index(&ns_path, i)));
    }
    let searches = strings(&config["searches"]);
    let search_path = child(path, "searches");
    if searches.len() > MAX_SEARCH_PATHS {
        let why = format!("must not have more than {MAX_SEARCH_PATHS} search paths");
        out.push(invalid(&search_path, &config["searches"], &why));
    }
    if searches.join(" ").len() > MAX_SEARCH_CHARS {
        let why = format!(
            "must not have more than {MAX_SEARCH_CHARS} characters (including spaces) in the search list"
        );
        out.push(invalid(&search_path, &config["searches"], &why));
    }
    for (i, search) in searches.iter().enumerate() {
        // The root domain alone is allowed; otherwise one trailing dot is.
        if *search == "." {
            continue;
        }
        let search = search.strip_suffix('.').unwrap_or(search);
        for why in subdomain_with_underscore(search) {
            out.push(invalid_str(&index(&search_path, i), search, &why));
        }
    }
    let options_path = child(path, "options");
    for (i, option) in config["options"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        if option["name"].as_str().unwrap_or_default().is_empty() {
            out.push(required_because(
                &index(&options_path, i),
                "must not be empty",
            ));
        }
    }
    out
}

/// `validateReadinessGates`: each condition type a qualified name.
pub fn readiness_gates(spec: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for (i, gate) in spec["readinessGates"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let kind = gate["conditionType"].as_str().unwrap_or_default();
        let at = child(&index(path, i), "conditionType");
        out.extend(
            qualified_name_errors(kind)
                .iter()
                .map(|why| invalid_str(&at, kind, why)),
        );
    }
    out
}

/// `ValidateHostAliases`: each alias's address, then its host names (DNS subdomains).
pub fn host_aliases(spec: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for (i, alias) in spec["hostAliases"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = index(path, i);
        out.extend(ip(
            alias["ip"].as_str().unwrap_or_default(),
            &child(&at, "ip"),
        ));
        let names_path = child(&at, "hostnames");
        for (j, name) in strings(&alias["hostnames"]).iter().enumerate() {
            for why in dns1123_subdomain(name) {
                out.push(invalid_str(&index(&names_path, j), name, &why));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn search_domains_may_end_in_one_dot_and_the_root_is_allowed() {
        let spec = json!({"dnsConfig": {"searches": [".", "a.", "x_y.", "b..", "A"]}});
        let errors = dns_config(&spec, "spec.dnsConfig");
        let fields: Vec<&str> = errors.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(
            fields,
            ["spec.dnsConfig.searches[3]", "spec.dnsConfig.searches[4]"]
        );
        assert!(
            errors[0]
                .message
                .starts_with("Invalid value: \"b.\": a lowercase RFC 1123 subdomain"),
            "{}",
            errors[0].message
        );
    }

    #[test]
    fn none_policy_needs_a_config_with_a_nameserver() {
        let none = json!({"dnsPolicy": "None"});
        assert_eq!(
            dns_config(&none, "spec.dnsConfig")[0].field,
            "spec.dnsConfig"
        );
        let empty = json!({"dnsPolicy": "None", "dnsConfig": {}});
        assert_eq!(
            dns_config(&empty, "spec.dnsConfig")[0].field,
            "spec.dnsConfig.nameservers"
        );
    }
}
