//! APIServices (`k8s.io/kube-aggregator/pkg/apis/apiregistration/validation`,
//! `ValidateAPIService`): the name is `<version>.<group>`, the group a DNS subdomain (empty
//! only for `v1`), the version a DNS-1035 label, both priorities in range; a service needs a
//! namespace, a name and a valid port, and may not skip TLS verification with a CA bundle;
//! a local APIService (no service) may have neither.

use serde_json::Value;

use super::errors::{
    Errors, dns1123_subdomain, invalid, invalid_str, port_num, required, required_because,
};
use super::rbac::path_segment;
use crate::registry::schema::names::dns1035_label;

/// `ValidateAPIService` past the generic checks of the object meta: the name's own rule,
/// then the spec.
pub fn api_service(object: &Value) -> Errors {
    let spec = &object["spec"];
    let text = |f: &str| spec[f].as_str().unwrap_or_default();
    let (group, version) = (text("group"), text("version"));
    let mut out = Vec::new();
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let wanted = format!("{version}.{group}");
    // A name that is no path segment is refused by the generic name check already.
    if !name.is_empty() && path_segment(name).is_empty() && name != wanted {
        out.push(invalid_str(
            "metadata.name",
            name,
            &format!("must be `spec.version+\".\"+spec.group`: {wanted:?}"),
        ));
    }
    if group.is_empty() && version != "v1" {
        out.push(required_because(
            "spec.group",
            "only v1 may have an empty group and it better be legacy kube",
        ));
    }
    if !group.is_empty() {
        for why in dns1123_subdomain(group) {
            out.push(invalid_str("spec.group", group, &why));
        }
    }
    for why in dns1035_label(version) {
        out.push(invalid_str("spec.version", version, &why));
    }
    for (field, max) in [("groupPriorityMinimum", 20_000), ("versionPriority", 1_000)] {
        let value = spec[field].as_i64().unwrap_or(0);
        if value <= 0 || value > max {
            out.push(invalid(
                &format!("spec.{field}"),
                &value.into(),
                &format!("must be positive and less than {max}"),
            ));
        }
    }
    let skip_tls = spec["insecureSkipTLSVerify"].as_bool().unwrap_or(false);
    let ca_bundle = text("caBundle");
    let service = &spec["service"];
    if !service.is_object() {
        if !ca_bundle.is_empty() {
            let bytes = super::base64::decode(ca_bundle).map_or(0, |b| b.len());
            out.push(invalid_str(
                "spec.caBundle",
                &format!("{bytes} bytes"),
                "local APIServices may not have a caBundle",
            ));
        }
        if skip_tls {
            out.push(invalid(
                "spec.insecureSkipTLSVerify",
                &true.into(),
                "local APIServices may not have insecureSkipTLSVerify",
            ));
        }
        return out;
    }
    for field in ["namespace", "name"] {
        if service[field].as_str().is_none_or(str::is_empty) {
            out.push(required(&format!("spec.service.{field}")));
        }
    }
    let port = service["port"].as_i64().unwrap_or(0);
    let why = port_num(port);
    if !why.is_empty() {
        out.push(invalid(
            "spec.service.port",
            &port.into(),
            &format!("port is not valid: {}", why.join(", ")),
        ));
    }
    if skip_tls && !ca_bundle.is_empty() {
        out.push(invalid(
            "spec.insecureSkipTLSVerify",
            &true.into(),
            "may not be true if caBundle is present",
        ));
    }
    out
}
