//! What kube-apiserver allocates on write: Service cluster IPs and node ports (kept across
//! updates that omit them, as `patchAllocatedValues` does) and IP family fields, and a Pod's
//! QoS class.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::registry::builtin::validation::errors::invalid;
use crate::registry::validation::Errors;
use crate::storage::Store;
use crate::support::status::Cause;

fn unset(v: &Value) -> bool {
    v.is_null() || v.as_str() == Some("") || v.as_i64() == Some(0)
}

/// The IP families this cluster serves: single-stack IPv4, as a kube-apiserver whose
/// `--service-cluster-ip-range` is one IPv4 range.
const CLUSTER_FAMILIES: &[&str] = &["IPv4"];
/// The family of addresses allocated when a Service names none.
const DEFAULT_FAMILY: &str = "IPv4";

/// Whether a Service of this spec gets cluster IPs (`needsClusterIP`): all but ExternalName.
fn needs_cluster_ip(spec: &Value) -> bool {
    spec["type"] != "ExternalName"
}

/// Whether a Service of this spec gets a health check port (`needsHCNodePort`): a load
/// balancer that keeps traffic local.
fn needs_health_check(spec: &Value) -> bool {
    spec["type"] == "LoadBalancer" && spec["externalTrafficPolicy"] == "Local"
}

/// Whether a Service of this spec gets node ports (`needsNodePort`).
fn needs_node_port(spec: &Value) -> bool {
    matches!(spec["type"].as_str(), Some("NodePort" | "LoadBalancer"))
}

/// The strings of a list field (absent, `null` and `[]` alike are empty).
fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|s| s.as_str().unwrap_or_default().to_string())
        .collect()
}

fn text<'a>(spec: &'a Value, field: &str) -> &'a str {
    spec[field].as_str().unwrap_or_default()
}

fn set_list(spec: &mut Value, field: &str, items: &[String]) {
    if let Some(m) = spec.as_object_mut() {
        if items.is_empty() {
            m.remove(field);
        } else {
            m.insert(field.into(), json!(items));
        }
    }
}

fn remove(spec: &mut Value, field: &str) {
    if let Some(m) = spec.as_object_mut() {
        m.remove(field);
    }
}

/// `patchAllocatedValues` and `normalizeClusterIPs` of an update: addresses the new object
/// omits are the stored ones (while both need them), and `clusterIPs` follows a changed or
/// cleared `clusterIP` when it was left as stored; node ports as [`super::node_ports::keep_allocated`] keeps them.
fn keep_allocated(spec: &mut Value, old: &Value) {
    if needs_cluster_ip(old) && needs_cluster_ip(spec) {
        if spec.get("clusterIP").is_none_or(unset) && !text(old, "clusterIP").is_empty() {
            spec["clusterIP"] = old["clusterIP"].clone();
        }
        if strings(&spec["clusterIPs"]).is_empty() && !strings(&old["clusterIPs"]).is_empty() {
            spec["clusterIPs"] = old["clusterIPs"].clone();
        }
    }
    super::node_ports::keep_allocated(spec, old);
    let old_ips = strings(&old["clusterIPs"]);
    let (old_ip, new_ip) = (text(old, "clusterIP"), text(spec, "clusterIP").to_string());
    if !old_ips.is_empty() && strings(&spec["clusterIPs"]).is_empty() && old_ip == new_ip {
        set_list(spec, "clusterIPs", &old_ips);
    }
    if old_ip != new_ip && strings(&spec["clusterIPs"]) == old_ips {
        if !old_ip.is_empty() && new_ip.is_empty() {
            remove(spec, "clusterIPs");
        } else {
            set_list(spec, "clusterIPs", &[new_ip]);
        }
    }
}

/// `normalizeClusterIPs` of a create: a `clusterIP` alone is copied into `clusterIPs`.
fn mirror_cluster_ip(spec: &mut Value) {
    let ip = text(spec, "clusterIP").to_string();
    if !ip.is_empty() && strings(&spec["clusterIPs"]).is_empty() {
        spec["clusterIPs"] = json!([ip]);
    }
}

/// `isMatchingPreferDualStackClusterIPFields`: an update of a PreferDualStack Service that
/// keeps its type, addresses and families is left as it is.
fn unchanged_prefer_dual_stack(spec: &Value, old: Option<&Value>) -> bool {
    let Some(old) = old else {
        return false;
    };
    let served = |s: &Value| {
        matches!(
            s["type"].as_str(),
            Some("ClusterIP" | "NodePort" | "LoadBalancer")
        )
    };
    spec["ipFamilyPolicy"] == "PreferDualStack"
        && spec["type"] == old["type"]
        && served(spec)
        && strings(&spec["clusterIPs"]) == strings(&old["clusterIPs"])
        && strings(&spec["ipFamilies"]) == strings(&old["ipFamilies"])
}

fn family_of(ip: &str) -> &'static str {
    if ip.parse::<std::net::Ipv6Addr>().is_ok() {
        "IPv6"
    } else {
        "IPv4"
    }
}

fn other_family(family: &str) -> &'static str {
    if family == "IPv4" { "IPv6" } else { "IPv4" }
}

fn policy_error(policy: &str, why: &str) -> Cause {
    invalid("spec.ipFamilyPolicy", &json!(policy), why)
}

/// `initIPFamilyFields` of the Service REST's allocator on this single-stack cluster: the
/// policy defaulted (the stored one on update, RequireDualStack for a headless Service
/// without selector, else SingleStack), [`ValidateServiceClusterIPsRelatedFields`](crate::registry::validation::service_cluster_ips),
/// the policy checked against the number of addresses and families (an update lowering
/// either needs SingleStack, which drops the second of an unchanged list), families
/// inferred from the addresses, a headless Service without selector given both families
/// unless SingleStack, then RequireDualStack and families the cluster lacks refused.
fn init_ip_family_fields(object: &mut Value, old: Option<&Value>) -> Result<(), Errors> {
    let spec = &mut object["spec"];
    if !needs_cluster_ip(spec) || unchanged_prefer_dual_stack(spec, old) {
        return Ok(());
    }
    let headless = text(spec, "clusterIP") == "None";
    let selectorless = spec["selector"]
        .as_object()
        .is_none_or(serde_json::Map::is_empty);
    if spec.get("ipFamilyPolicy").is_none_or(Value::is_null) {
        spec["ipFamilyPolicy"] = match old.map(|o| &o["ipFamilyPolicy"]).filter(|p| !p.is_null()) {
            Some(kept) => kept.clone(),
            None if headless && selectorless => json!("RequireDualStack"),
            None => json!("SingleStack"),
        };
    }
    let errors = crate::registry::validation::service_cluster_ips(object);
    if !errors.is_empty() {
        return Err(errors);
    }
    let spec = &mut object["spec"];
    let policy = text(spec, "ipFamilyPolicy").to_string();
    let single = policy == "SingleStack";
    let mut ips = strings(&spec["clusterIPs"]);
    let mut families = strings(&spec["ipFamilies"]);
    let mut errors = Vec::new();
    if let Some(old) = old {
        let (old_ips, old_families) = (strings(&old["clusterIPs"]), strings(&old["ipFamilies"]));
        if single {
            if ips == old_ips && ips.len() > 1 {
                ips.truncate(1);
                set_list(spec, "clusterIPs", &ips);
            }
            if families == old_families && families.len() > 1 {
                families.truncate(1);
                set_list(spec, "ipFamilies", &families);
            }
        } else {
            if !ips.is_empty() && ips.len() < old_ips.len() {
                errors.push(policy_error(
                    &policy,
                    "must be 'SingleStack' to release the secondary cluster IP",
                ));
            }
            if !families.is_empty() && families.len() < old_families.len() {
                errors.push(policy_error(
                    &policy,
                    "must be 'SingleStack' to release the secondary IP family",
                ));
            }
        }
    }
    if single {
        if ips.len() == 2 {
            errors.push(policy_error(
                &policy,
                "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
            ));
        }
        if families.len() == 2 {
            errors.push(policy_error(
                &policy,
                "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
            ));
        }
    }
    for (i, ip) in ips.iter().enumerate() {
        if ip == "None" {
            break;
        }
        let family = family_of(ip);
        if i < families.len() {
            continue;
        }
        if CLUSTER_FAMILIES.contains(&family) {
            families.push(family.to_string());
        } else {
            errors.push(invalid(
                &format!("spec.clusterIPs[{i}]"),
                &json!(ips),
                &format!("{family} is not configured on this cluster"),
            ));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if headless && selectorless {
        if families.is_empty() {
            families.push(DEFAULT_FAMILY.into());
        }
        if families.len() < 2 && !single {
            let other = other_family(&families[0]);
            families.push(other.into());
        }
        set_list(spec, "ipFamilies", &families);
        return Ok(());
    }
    if policy == "RequireDualStack" && CLUSTER_FAMILIES.len() < 2 {
        errors.push(policy_error(
            &policy,
            "this cluster is not configured for dual-stack services",
        ));
    }
    for (i, family) in families.iter().enumerate() {
        if !CLUSTER_FAMILIES.contains(&family.as_str()) {
            errors.push(invalid(
                &format!("spec.ipFamilies[{i}]"),
                &json!(family),
                "not configured on this cluster",
            ));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if families.is_empty() {
        families.push(DEFAULT_FAMILY.into());
    }
    set_list(spec, "ipFamilies", &families);
    Ok(())
}

/// The Service strategy's `dropTypeDependentFields` on update: a Service that stops
/// needing cluster IPs (now ExternalName) loses the addresses, families, policies it kept
/// as stored; one that stops needing node ports loses those it kept and its external
/// traffic policy; one no longer a LoadBalancer its class and node port allocation flag.
fn drop_type_dependent_fields(spec: &mut Value, old: &Value) {
    if needs_cluster_ip(old) && !needs_cluster_ip(spec) {
        if strings(&spec["clusterIPs"]) == strings(&old["clusterIPs"]) {
            remove(spec, "clusterIP");
            remove(spec, "clusterIPs");
        }
        if strings(&spec["ipFamilies"]) == strings(&old["ipFamilies"]) {
            remove(spec, "ipFamilies");
        }
        if spec.get("ipFamilyPolicy").unwrap_or(&Value::Null)
            == old.get("ipFamilyPolicy").unwrap_or(&Value::Null)
        {
            remove(spec, "ipFamilyPolicy");
        }
    }
    if needs_node_port(old) && !needs_node_port(spec) {
        let node_ports = |s: &Value| -> HashSet<i64> {
            s["ports"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p["nodePort"].as_i64().filter(|n| *n != 0))
                .collect()
        };
        if node_ports(spec) == node_ports(old)
            && let Some(ports) = spec["ports"].as_array_mut()
        {
            for p in ports.iter_mut().filter_map(Value::as_object_mut) {
                p.remove("nodePort");
            }
        }
        if spec["healthCheckNodePort"] == old["healthCheckNodePort"] {
            remove(spec, "healthCheckNodePort");
        }
        if spec["externalTrafficPolicy"] == old["externalTrafficPolicy"] {
            remove(spec, "externalTrafficPolicy");
        }
    }
    // One that stops needing a health check port (no longer a local load balancer) loses
    // the one it kept.
    if needs_health_check(old)
        && !needs_health_check(spec)
        && spec["healthCheckNodePort"] == old["healthCheckNodePort"]
    {
        remove(spec, "healthCheckNodePort");
    }
    if needs_cluster_ip(old)
        && !needs_cluster_ip(spec)
        && spec["internalTrafficPolicy"] == old["internalTrafficPolicy"]
    {
        remove(spec, "internalTrafficPolicy");
    }
    let balanced = |s: &Value| s["type"] == "LoadBalancer";
    if balanced(old) && !balanced(spec) {
        let flag = "allocateLoadBalancerNodePorts";
        if spec[flag].is_boolean() && spec[flag] == old[flag] {
            remove(spec, flag);
        }
        if spec["loadBalancerClass"] == old["loadBalancerClass"] {
            remove(spec, "loadBalancerClass");
        }
    }
}

/// What the Service REST does to a Service before the strategy validates it: on update,
/// the stored addresses kept ([`keep_allocated`]), on create a lone `clusterIP` mirrored
/// into `clusterIPs`; then the IP family fields checked and defaulted as the allocator's
/// `initIPFamilyFields` does on this single-stack IPv4 cluster, and on update the fields a
/// type change leaves behind dropped. Its errors are the request's only ones (422).
pub fn service_ip_families(object: &mut Value, old: Option<&Value>) -> Result<(), Errors> {
    if !object["spec"].is_object() {
        return Ok(());
    }
    match old {
        Some(old) => keep_allocated(&mut object["spec"], &old["spec"]),
        None => mirror_cluster_ip(&mut object["spec"]),
    }
    let old_spec = old.map(|o| &o["spec"]);
    init_ip_family_fields(object, old_spec)?;
    if let Some(old) = old_spec {
        drop_type_dependent_fields(&mut object["spec"], old);
    }
    Ok(())
}

/// Fills `spec.clusterIP(s)` (from the service range, above its static band first, skipping
/// addresses held: see [`service_ips`](crate::registry::service_ips)), node ports
/// ([`node_ports`](super::node_ports), as a dry run makes them up when `dry_run`) and the IP
/// family fields of a Service ([`service_ip_families`], whose errors were reported before
/// validation, as were the node ports'); on update, values the new object omits come from
/// `old`. The registry does this after the field manager on create, so none of these fields
/// is the creator's.
pub fn service(store: &Store, object: &mut Value, old: Option<&Value>, dry_run: bool) {
    let spec_type = object["spec"]["type"]
        .as_str()
        .unwrap_or("ClusterIP")
        .to_string();
    let _ = service_ip_families(object, old);
    if spec_type != "ExternalName"
        && object["spec"].get("clusterIP").is_none_or(unset)
        && let Some(ip) = crate::registry::service_ips::next_free(store)
    {
        object["spec"]["clusterIP"] = json!(ip);
        object["spec"]["clusterIPs"] = json!([ip]);
    }
    let allocation = match old {
        Some(old) => super::node_ports::allocate_update(store, object, old, dry_run),
        None => super::node_ports::allocate_create(store, object, dry_run),
    };
    if let Ok(allocation) = allocation {
        allocation.write(&mut object["spec"]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn services_get_distinct_addresses_and_keep_them() {
        let store = Store::new(10);
        let mut a =
            json!({"spec": {"type": "NodePort", "ports": [{"port": 80, "protocol": "TCP"}]}});
        service(&store, &mut a, None, false);
        assert_eq!(a["spec"]["clusterIP"], "10.0.0.17");
        assert_eq!(a["spec"]["ports"][0]["nodePort"], 30086);
        let mut update =
            json!({"spec": {"type": "NodePort", "ports": [{"port": 80, "protocol": "TCP"}]}});
        service(&store, &mut update, Some(&a), false);
        assert_eq!(update["spec"]["clusterIP"], "10.0.0.17");
        assert_eq!(update["spec"]["ports"][0]["nodePort"], 30086);
        let mut headless = json!({"spec": {"clusterIP": "None"}});
        service(&store, &mut headless, None, false);
        assert_eq!(headless["spec"]["clusterIP"], "None");
        assert_eq!(headless["spec"]["clusterIPs"], json!(["None"]));
        assert_eq!(headless["spec"]["ipFamilyPolicy"], "RequireDualStack");
    }

    #[test]
    fn services_get_their_ip_families() {
        let store = Store::new(10);
        let mut svc = json!({"spec": {"type": "ClusterIP", "selector": {"app": "a"}}});
        service(&store, &mut svc, None, false);
        assert_eq!(svc["spec"]["ipFamilyPolicy"], "SingleStack");
        assert_eq!(svc["spec"]["ipFamilies"], json!(["IPv4"]));
        assert_eq!(svc["spec"]["clusterIPs"], json!([svc["spec"]["clusterIP"]]));
        let mut set = json!({"spec": {"type": "ClusterIP", "clusterIP": "10.96.3.3",
            "ipFamilyPolicy": "PreferDualStack"}});
        service(&store, &mut set, None, false);
        assert_eq!(set["spec"]["clusterIPs"], json!(["10.96.3.3"]));
        assert_eq!(set["spec"]["ipFamilyPolicy"], "PreferDualStack");
        let mut ext = json!({"spec": {"type": "ExternalName", "externalName": "x.example.com"}});
        service(&store, &mut ext, None, false);
        assert!(ext["spec"].get("ipFamilies").is_none());
        assert!(ext["spec"].get("clusterIP").is_none());
    }

    fn refusal(object: &mut Value, old: Option<&Value>) -> Vec<(String, String)> {
        service_ip_families(object, old)
            .unwrap_err()
            .into_iter()
            .map(|c| (c.field, c.message))
            .collect()
    }

    #[test]
    fn the_allocator_checks_families_against_a_single_stack_cluster() {
        let mut require = json!({"spec": {"ipFamilyPolicy": "RequireDualStack"}});
        assert_eq!(
            refusal(&mut require, None),
            [(
                "spec.ipFamilyPolicy".to_string(),
                r#"Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services"#
                    .to_string()
            )]
        );
        let mut two = json!({"spec": {"ipFamilies": ["IPv4", "IPv6"]}});
        assert!(refusal(&mut two, None)[0].1.ends_with(
            "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"
        ));
        let mut prefer_two =
            json!({"spec": {"ipFamilyPolicy": "PreferDualStack", "ipFamilies": ["IPv4", "IPv6"]}});
        assert_eq!(
            refusal(&mut prefer_two, None),
            [(
                "spec.ipFamilies[1]".to_string(),
                r#"Invalid value: "IPv6": not configured on this cluster"#.to_string()
            )]
        );
        let mut v6 = json!({"spec": {"clusterIP": "fd00::1"}});
        assert_eq!(
            refusal(&mut v6, None),
            [(
                "spec.clusterIPs[0]".to_string(),
                r#"Invalid value: ["fd00::1"]: IPv6 is not configured on this cluster"#.to_string()
            )]
        );
        let mut prefer = json!({"spec": {"ipFamilyPolicy": "PreferDualStack"}});
        service_ip_families(&mut prefer, None).unwrap();
        assert_eq!(prefer["spec"]["ipFamilies"], json!(["IPv4"]));
        let mut headless = json!({"spec": {"clusterIP": "None", "ipFamilies": ["IPv6"]}});
        service_ip_families(&mut headless, None).unwrap();
        assert_eq!(headless["spec"]["ipFamilies"], json!(["IPv6", "IPv4"]));
        assert_eq!(headless["spec"]["ipFamilyPolicy"], "RequireDualStack");
        let mut selected = json!({"spec": {"clusterIP": "None", "selector": {"a": "b"}}});
        service_ip_families(&mut selected, None).unwrap();
        assert_eq!(selected["spec"]["ipFamilies"], json!(["IPv4"]));
        assert_eq!(selected["spec"]["ipFamilyPolicy"], "SingleStack");
    }

    #[test]
    fn updates_keep_the_policy_and_drop_what_a_type_change_leaves() {
        let store = Store::new(10);
        let mut old = json!({"spec": {"clusterIP": "None", "ports": [{"port": 80}]}});
        service(&store, &mut old, None, false);
        assert_eq!(old["spec"]["ipFamilies"], json!(["IPv4", "IPv6"]));
        // Without a policy the stored one applies: releasing a family needs SingleStack.
        let mut fewer = json!({"spec": {"clusterIP": "None", "ipFamilies": ["IPv4"]}});
        assert!(
            refusal(&mut fewer, Some(&old))[0]
                .1
                .ends_with("must be 'SingleStack' to release the secondary IP family")
        );
        let mut single = old.clone();
        single["spec"]["ipFamilyPolicy"] = json!("SingleStack");
        service_ip_families(&mut single, Some(&old)).unwrap();
        assert_eq!(single["spec"]["ipFamilies"], json!(["IPv4"]));
        // A type change to ExternalName drops the fields kept as stored.
        let mut cluster = json!({"spec": {"type": "ClusterIP", "ports": [{"port": 80}]}});
        service(&store, &mut cluster, None, false);
        let mut named = cluster.clone();
        named["spec"]["type"] = json!("ExternalName");
        named["spec"]["externalName"] = json!("a.example.com");
        service_ip_families(&mut named, Some(&cluster)).unwrap();
        for field in ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"] {
            assert!(named["spec"].get(field).is_none(), "{field}");
        }
        // A PUT that omits the addresses keeps them.
        let mut put = json!({"spec": {"type": "ClusterIP", "ports": [{"port": 81}]}});
        service_ip_families(&mut put, Some(&cluster)).unwrap();
        assert_eq!(put["spec"]["clusterIPs"], cluster["spec"]["clusterIPs"]);
        assert_eq!(put["spec"]["ipFamilyPolicy"], "SingleStack");
    }
}
