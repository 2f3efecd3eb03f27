//! The IPAddress objects of Services' cluster IPs, as kube-apiserver's allocator writes them
//! (as `kube-apiserver`, an Update): one per address a Service holds, named after it, with
//! the Service as `parentRef` and the allocator's labels; released when the Service is gone
//! or no longer holds it (a type change to ExternalName). The real allocator writes them
//! within the Service's own write; here they follow it at once.

use std::sync::Arc;

use serde_json::Value;

use crate::endpoints::delete_options::DeleteOptions;
use crate::endpoints::hooks::Client;
use crate::registry::service_ips::{ALLOCATOR, MANAGED_BY_LABEL, in_range, ip_address};
use crate::support::resource::ResourceDef;

const GROUP: &str = "networking.k8s.io";

/// Whether a change of `group`/`plural` is a Service's.
pub fn watches(group: &str, plural: &str) -> bool {
    group.is_empty() && plural == "services"
}

fn ip_addresses(client: &dyn Client) -> Option<Arc<ResourceDef>> {
    client.registry().get(GROUP, "v1", "ipaddresses")
}

/// The cluster IPs a Service holds (not `None`).
fn cluster_ips(service: &Value) -> Vec<String> {
    service["spec"]["clusterIPs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|ip| *ip != "None" && !ip.is_empty())
        .map(str::to_string)
        .collect()
}

/// The names of the allocator's IPAddresses whose parent is the Service `ns`/`name`.
fn owned(client: &dyn Client, def: &ResourceDef, ns: &str, name: &str) -> Vec<String> {
    client
        .store()
        .bucket(&def.storage_key)
        .into_iter()
        .flatten()
        .filter(|(_, ip)| {
            let parent = &ip["spec"]["parentRef"];
            ip["metadata"]["labels"][MANAGED_BY_LABEL] == ALLOCATOR
                && parent["resource"] == "services"
                && parent["namespace"] == ns
                && parent["name"] == name
        })
        .map(|((_, ip), _)| ip.clone())
        .collect()
}

fn identity(service: &Value) -> (String, String) {
    let m = &service["metadata"];
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    (text(&m["namespace"]), text(&m["name"]))
}

/// A Service written: an IPAddress for each address it holds that has none and that a
/// ServiceCIDR hands out, and the
/// allocator's IPAddresses of addresses it no longer holds deleted.
pub fn sync(client: &mut dyn Client, service: &Value) {
    let Some(def) = ip_addresses(client) else {
        return;
    };
    let (ns, name) = identity(service);
    let ips = cluster_ips(service);
    for ip in &ips {
        if client.store().get(&def.storage_key, "", ip).is_none()
            && in_range(client.store(), ip)
            && let Err(e) = client.create(&def, "", ip_address(ip, &ns, &name), "kube-apiserver")
        {
            tracing::warn!(ip, error = %e, "the IPAddress of a cluster IP was refused");
        }
    }
    for stale in owned(client, &def, &ns, &name) {
        if !ips.contains(&stale) {
            let _ = client.delete(&def, "", &stale, &DeleteOptions::default());
        }
    }
}

/// A Service gone: its IPAddresses are released.
pub fn removed(client: &mut dyn Client, service: &Value) {
    let Some(def) = ip_addresses(client) else {
        return;
    };
    let (ns, name) = identity(service);
    for ip in owned(client, &def, &ns, &name) {
        let _ = client.delete(&def, "", &ip, &DeleteOptions::default());
    }
}
