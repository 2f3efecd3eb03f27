//! The status rules of an Ingress's status update (`ValidateIngressStatusUpdate`): each load
//! balancer ingress's `ip` an address, its `hostname` a DNS subdomain that is not an address;
//! ports and errors are not checked.

use serde_json::Value;

use super::errors::{Errors, child, index, invalid_str};
use super::service::{ingress_hostname, sloppy_ip};

/// The message of an address that is not an IP.
const BAD_IP: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/// An Ingress's load balancer status.
pub fn ingress(object: &Value) -> Errors {
    let path = "status.loadBalancer.ingress";
    let mut out = Vec::new();
    for (i, item) in object["status"]["loadBalancer"]["ingress"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = index(path, i);
        let ip = item["ip"].as_str().unwrap_or_default();
        if !ip.is_empty() && !sloppy_ip(ip) {
            out.push(invalid_str(&child(&at, "ip"), ip, BAD_IP));
        }
        out.extend(ingress_hostname(&at, item));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn load_balancer_addresses_and_names() {
        let bad = json!({"status": {"loadBalancer": {"ingress": [
            {"ip": "bad", "hostname": "1.2.3.4", "ports": [{"port": -1, "protocol": "Bogus"}]},
            {"ip": "1.2.3.4"}, {"hostname": "a.example.com"}]}}});
        let got: Vec<String> = ingress(&bad)
            .into_iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        assert_eq!(
            got,
            [
                "status.loadBalancer.ingress[0].ip: Invalid value: \"bad\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                "status.loadBalancer.ingress[0].hostname: Invalid value: \"1.2.3.4\": must be a DNS name, not an IP address",
            ]
        );
    }
}
