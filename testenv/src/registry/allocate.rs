//! What kube-apiserver allocates on write: Service cluster IPs and node ports (kept across
//! updates that omit them, as `patchAllocatedValues` does) and IP family fields, and a Pod's
//! QoS class.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::storage::Store;

const SERVICES: &str = "/services";

fn used(store: &Store) -> (HashSet<String>, HashSet<i64>) {
    let mut ips = HashSet::new();
    let mut ports = HashSet::new();
    for svc in store.bucket(SERVICES).into_iter().flat_map(|b| b.values()) {
        for ip in svc["spec"]["clusterIPs"].as_array().into_iter().flatten() {
            ips.extend(ip.as_str().map(str::to_string));
        }
        for p in svc["spec"]["ports"].as_array().into_iter().flatten() {
            ports.extend(p["nodePort"].as_i64());
        }
    }
    (ips, ports)
}

fn unset(v: &Value) -> bool {
    v.is_null() || v.as_str() == Some("") || v.as_i64() == Some(0)
}

/// The IP family fields the service registry fills in on a single-stack IPv4 cluster
/// (`normalizeClusterIPs` and `initIPFamilyFields`): `clusterIPs` mirrored from a set
/// `clusterIP`, `ipFamilyPolicy: SingleStack` (`RequireDualStack` for a headless Service
/// without selector) and `ipFamilies: [IPv4]`; nothing for ExternalName.
fn ip_families(spec: &mut Value) {
    if let Some(ip) = spec["clusterIP"].as_str().filter(|ip| !ip.is_empty())
        && spec["clusterIPs"].as_array().is_none_or(Vec::is_empty)
    {
        spec["clusterIPs"] = json!([ip]);
    }
    if spec["type"] == "ExternalName" {
        return;
    }
    if spec.get("ipFamilyPolicy").is_none_or(unset) {
        let headless = spec["clusterIP"] == "None";
        let no_selector = spec["selector"]
            .as_object()
            .is_none_or(serde_json::Map::is_empty);
        spec["ipFamilyPolicy"] = json!(if headless && no_selector {
            "RequireDualStack"
        } else {
            "SingleStack"
        });
    }
    if spec["ipFamilies"].as_array().is_none_or(Vec::is_empty) {
        spec["ipFamilies"] = json!(["IPv4"]);
    }
}

/// Fills `spec.clusterIP(s)` (from 10.96.0.0/16, skipping addresses in use), node ports
/// (30000-32767) and the IP family fields of a Service; on update, values the new object
/// omits come from `old`. The registry does this after the field manager, so none of these
/// fields is the writer's.
pub fn service(store: &Store, object: &mut Value, old: Option<&Value>) {
    let spec_type = object["spec"]["type"]
        .as_str()
        .unwrap_or("ClusterIP")
        .to_string();
    if let Some(old) = old {
        for field in ["clusterIP", "clusterIPs", "healthCheckNodePort"] {
            if object["spec"].get(field).is_none_or(unset)
                && old["spec"].get(field).is_some_and(|v| !unset(v))
            {
                object["spec"][field] = old["spec"][field].clone();
            }
        }
        let old_ports = old["spec"]["ports"].as_array().cloned().unwrap_or_default();
        if let Some(ports) = object["spec"]["ports"].as_array_mut() {
            for p in ports {
                if p.get("nodePort").is_none_or(unset)
                    && let Some(prev) = old_ports
                        .iter()
                        .find(|o| o["port"] == p["port"] && o["protocol"] == p["protocol"])
                    && !unset(&prev["nodePort"])
                {
                    p["nodePort"] = prev["nodePort"].clone();
                }
            }
        }
    }
    if object["spec"].is_object() {
        ip_families(&mut object["spec"]);
    }
    let (ips, node_ports) = used(store);
    if spec_type != "ExternalName" && object["spec"].get("clusterIP").is_none_or(unset) {
        let ip = (10u32..=65534)
            .map(|n| format!("10.96.{}.{}", n / 256, n % 256))
            .find(|ip| !ips.contains(ip));
        if let Some(ip) = ip {
            object["spec"]["clusterIP"] = json!(ip);
            object["spec"]["clusterIPs"] = json!([ip]);
        }
    }
    let wants_node_ports = spec_type == "NodePort"
        || (spec_type == "LoadBalancer"
            && object["spec"]["allocateLoadBalancerNodePorts"] != json!(false));
    if wants_node_ports {
        let mut taken = node_ports;
        if let Some(ports) = object["spec"]["ports"].as_array_mut() {
            for p in ports {
                if p.get("nodePort").is_none_or(unset)
                    && let Some(free) = (30000..=32767).find(|n| !taken.contains(n))
                {
                    taken.insert(free);
                    p["nodePort"] = json!(free);
                }
            }
        }
    }
}

fn has_quantity(resources: &Value, which: &str, name: &str) -> bool {
    resources[which].get(name).is_some_and(|q| !q.is_null())
}

/// The QoS class of a Pod spec: Guaranteed when every container limits cpu and memory with
/// equal requests, BestEffort when none requests or limits anything, Burstable otherwise.
pub fn pod_qos_class(spec: &Value) -> &'static str {
    let containers: Vec<&Value> = ["initContainers", "containers"]
        .iter()
        .flat_map(|k| spec[*k].as_array().into_iter().flatten())
        .collect();
    let any = containers.iter().any(|c| {
        let r = &c["resources"];
        ["requests", "limits"]
            .iter()
            .any(|w| r[*w].as_object().is_some_and(|m| !m.is_empty()))
    });
    if !any {
        return "BestEffort";
    }
    let guaranteed = containers.iter().all(|c| {
        let r = &c["resources"];
        ["cpu", "memory"].iter().all(|name| {
            has_quantity(r, "limits", name)
                && (!has_quantity(r, "requests", name)
                    || r["requests"][*name] == r["limits"][*name])
        })
    });
    if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qos_classes() {
        assert_eq!(
            pod_qos_class(&json!({"containers": [{"name": "a"}]})),
            "BestEffort"
        );
        let limited =
            json!({"containers": [{"resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]});
        assert_eq!(pod_qos_class(&limited), "Guaranteed");
        let requested = json!({"containers": [{"resources": {"requests": {"cpu": "1"}}}]});
        assert_eq!(pod_qos_class(&requested), "Burstable");
    }

    #[test]
    fn services_get_distinct_addresses_and_keep_them() {
        let store = Store::new(10);
        let mut a =
            json!({"spec": {"type": "NodePort", "ports": [{"port": 80, "protocol": "TCP"}]}});
        service(&store, &mut a, None);
        assert_eq!(a["spec"]["clusterIP"], "10.96.0.10");
        assert_eq!(a["spec"]["ports"][0]["nodePort"], 30000);
        let mut update =
            json!({"spec": {"type": "NodePort", "ports": [{"port": 80, "protocol": "TCP"}]}});
        service(&store, &mut update, Some(&a));
        assert_eq!(update["spec"]["clusterIP"], "10.96.0.10");
        assert_eq!(update["spec"]["ports"][0]["nodePort"], 30000);
        let mut headless = json!({"spec": {"clusterIP": "None"}});
        service(&store, &mut headless, None);
        assert_eq!(headless["spec"]["clusterIP"], "None");
        assert_eq!(headless["spec"]["clusterIPs"], json!(["None"]));
        assert_eq!(headless["spec"]["ipFamilyPolicy"], "RequireDualStack");
    }

    #[test]
    fn services_get_their_ip_families() {
        let store = Store::new(10);
        let mut svc = json!({"spec": {"type": "ClusterIP", "selector": {"app": "a"}}});
        service(&store, &mut svc, None);
        assert_eq!(svc["spec"]["ipFamilyPolicy"], "SingleStack");
        assert_eq!(svc["spec"]["ipFamilies"], json!(["IPv4"]));
        assert_eq!(svc["spec"]["clusterIPs"], json!([svc["spec"]["clusterIP"]]));
        let mut set = json!({"spec": {"type": "ClusterIP", "clusterIP": "10.96.3.3",
            "ipFamilyPolicy": "PreferDualStack"}});
        service(&store, &mut set, None);
        assert_eq!(set["spec"]["clusterIPs"], json!(["10.96.3.3"]));
        assert_eq!(set["spec"]["ipFamilyPolicy"], "PreferDualStack");
        let mut ext = json!({"spec": {"type": "ExternalName", "externalName": "x.example.com"}});
        service(&store, &mut ext, None);
        assert!(ext["spec"].get("ipFamilies").is_none());
        assert!(ext["spec"].get("clusterIP").is_none());
    }
}
