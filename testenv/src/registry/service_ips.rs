//! The Service IP ranges and the addresses held in them, as kube-apiserver's IPAddress
//! allocator (`MultiCIDRServiceAllocator`, on by default since 1.33) keeps them: each cluster
//! IP is an `networking.k8s.io/v1` IPAddress named after it, and a Service may only ask for
//! an address of a ServiceCIDR that no IPAddress holds.
//!
//! The embedded server's service range is envtest's (`--service-cluster-ip-range=10.0.0.0/24`,
//! which the binaries mode also passes), so a test names the same fixed addresses in both.

use std::collections::HashSet;
use std::net::Ipv4Addr;

use serde_json::{Value, json};

use crate::registry::builtin::validation::errors::invalid;
use crate::registry::validation::Errors;
use crate::storage::Store;

/// The service range of the embedded API server, held by the default `kubernetes`
/// ServiceCIDR.
pub const SERVICE_RANGE: &str = "10.0.0.0/24";
/// The first address of the service range: the `kubernetes` Service's.
pub const FIRST_IP: &str = "10.0.0.1";
/// The storage of the IPAddress objects.
const IPADDRESSES: &str = "networking.k8s.io/ipaddresses";
/// The storage of the ServiceCIDR objects.
const CIDRS: &str = "networking.k8s.io/servicecidrs";
/// The labels of an IPAddress the allocator writes.
pub const FAMILY_LABEL: &str = "ipaddress.kubernetes.io/ip-family";
/// The manager label of an IPAddress the allocator writes, and its value.
pub const MANAGED_BY_LABEL: &str = "ipaddress.kubernetes.io/managed-by";
pub const ALLOCATOR: &str = "ipallocator.k8s.io";

/// An IPv4 range: first address and prefix length.
#[derive(Debug, Clone, Copy)]
struct Range {
    base: u32,
    bits: u32,
}

impl Range {
    fn parse(text: &str) -> Option<Range> {
        let (ip, bits) = text.split_once('/')?;
        let ip: Ipv4Addr = ip.parse().ok()?;
        let bits: u32 = bits.parse().ok().filter(|b| *b <= 32)?;
        Some(Range {
            base: u32::from(ip) & self::mask(bits),
            bits,
        })
    }

    /// The number of addresses of the range.
    fn size(self) -> u64 {
        1u64 << (32 - self.bits)
    }

    /// Whether `ip` is an address of the range the allocator hands out (not its network
    /// address, nor its broadcast address).
    fn holds(self, ip: u32) -> bool {
        let last = self.base | !mask(self.bits);
        ip & mask(self.bits) == self.base && ip != self.base && ip != last
    }

    /// The size of the static band at the bottom of the range, for fixed addresses:
    /// min(max(16, size/16), 256) (none below 16 addresses).
    fn static_band(self) -> u32 {
        match self.size() {
            n if n < 16 => 0,
            n => (n / 16).clamp(16, 256) as u32,
        }
    }

    /// The range's addresses in the order the embedded allocator offers them: above the
    /// static band first, then the static band (from its second address: the first is the
    /// `kubernetes` Service's, and low addresses are often fixed ones).
    fn offers(self) -> impl Iterator<Item = u32> {
        let last = (self.base as u64 + self.size() - 2) as u32;
        let band = self.static_band();
        let upper = (self.base + band + 1)..=last;
        let lower = (self.base + 2)..=(self.base + band);
        upper.chain(lower)
    }
}

fn mask(bits: u32) -> u32 {
    if bits == 0 {
        0
    } else {
        u32::MAX << (32 - bits)
    }
}

fn default_range() -> Range {
    Range::parse(SERVICE_RANGE).expect("the service range is a valid CIDR")
}

/// The IPv4 ranges Services take addresses from: the ServiceCIDRs' (the default one among
/// them), or the service range alone before the default ServiceCIDR exists.
fn ranges(store: &Store) -> Vec<Range> {
    let mut out: Vec<Range> = store
        .bucket(CIDRS)
        .into_iter()
        .flat_map(|b| b.values())
        .flat_map(|c| c["spec"]["cidrs"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c.as_str().and_then(Range::parse))
        .collect();
    if out.is_empty() {
        out.push(default_range());
    }
    out
}

/// The addresses held: the IPAddress objects' names and the Services' cluster IPs.
pub fn held(store: &Store) -> HashSet<String> {
    let mut out: HashSet<String> = store
        .bucket(IPADDRESSES)
        .into_iter()
        .flat_map(|b| b.keys())
        .map(|(_, name)| name.clone())
        .collect();
    for svc in store
        .bucket("/services")
        .into_iter()
        .flat_map(|b| b.values())
    {
        for ip in svc["spec"]["clusterIPs"].as_array().into_iter().flatten() {
            out.extend(ip.as_str().map(str::to_string));
        }
    }
    out
}

/// Whether `ip` is an address some ServiceCIDR hands out: the allocator's repair writes an
/// IPAddress for a Service's address only then (one out of every range, as a Service created
/// through its status may hold, is only reported).
pub fn in_range(store: &Store, ip: &str) -> bool {
    ip.parse::<Ipv4Addr>()
        .is_ok_and(|v4| ranges(store).iter().any(|r| r.holds(u32::from(v4))))
}

/// The first free address of the service range, in the order the allocator offers them.
pub fn next_free(store: &Store) -> Option<String> {
    let held = held(store);
    default_range()
        .offers()
        .map(|n| Ipv4Addr::from(n).to_string())
        .find(|ip| !held.contains(ip))
}

/// The fixed IPv4 cluster IPs a Service asks for (none for a headless or ExternalName one).
fn asked(spec: &Value) -> Vec<String> {
    if spec["type"] == "ExternalName" {
        return Vec::new();
    }
    let listed: Vec<String> = spec["clusterIPs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|ip| ip.as_str().map(str::to_string))
        .collect();
    let ips = match (listed.is_empty(), spec["clusterIP"].as_str()) {
        (true, Some(ip)) if !ip.is_empty() => vec![ip.to_string()],
        _ => listed,
    };
    ips.into_iter().filter(|ip| ip != "None").collect()
}

/// The allocator's check of the fixed cluster IPs of a Service being created, before the
/// strategy validates it: an address outside every ServiceCIDR, or one an IPAddress already
/// holds, is refused. A dry run only checks the service range, in the older allocator's
/// words.
pub fn check_create(store: &Store, object: &Value, dry_run: bool) -> Result<(), Errors> {
    let ips = asked(&object["spec"]);
    let held = if dry_run { HashSet::new() } else { held(store) };
    let ranges = ranges(store);
    for ip in &ips {
        let Ok(v4) = ip.parse::<Ipv4Addr>() else {
            continue;
        };
        let n = u32::from(v4);
        let why = if dry_run {
            (!default_range().holds(n)).then(|| {
                format!(
                    "the provided IP ({ip}) is not in the valid range. The range of valid IPs is {SERVICE_RANGE}"
                )
            })
        } else if !ranges.iter().any(|r| r.holds(n)) {
            Some("the provided network does not match the current range".to_string())
        } else if held.contains(ip) {
            Some("provided IP is already allocated".to_string())
        } else {
            None
        };
        if let Some(why) = why {
            return Err(vec![invalid(
                "spec.clusterIPs",
                &json!(ips),
                &format!("failed to allocate IP {ip}: {why}"),
            )]);
        }
    }
    Ok(())
}

/// The IPAddress the allocator writes for `ip` of the Service `ns`/`name`.
pub fn ip_address(ip: &str, ns: &str, name: &str) -> Value {
    let family = if ip.parse::<Ipv4Addr>().is_ok() {
        "IPv4"
    } else {
        "IPv6"
    };
    json!({
        "apiVersion": "networking.k8s.io/v1", "kind": "IPAddress",
        "metadata": {"name": ip, "labels": {FAMILY_LABEL: family, MANAGED_BY_LABEL: ALLOCATOR}},
        "spec": {"parentRef": {"resource": "services", "namespace": ns, "name": name}},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_offers_its_upper_band_first() {
        let r = default_range();
        assert_eq!(r.static_band(), 16);
        let offered: Vec<u32> = r.offers().collect();
        assert_eq!(Ipv4Addr::from(offered[0]).to_string(), "10.0.0.17");
        assert_eq!(Ipv4Addr::from(offered[237]).to_string(), "10.0.0.254");
        assert_eq!(Ipv4Addr::from(offered[238]).to_string(), "10.0.0.2");
        assert_eq!(offered.len(), 253);
        assert!(!r.holds(u32::from(Ipv4Addr::new(10, 0, 0, 0))));
        assert!(!r.holds(u32::from(Ipv4Addr::new(10, 0, 0, 255))));
        let wide = Range::parse("10.96.0.0/16").unwrap();
        assert_eq!(wide.static_band(), 256);
    }

    #[test]
    fn fixed_addresses_are_checked_against_ranges_and_holders() {
        let mut store = Store::new(10);
        let svc = |ip: &str| json!({"spec": {"clusterIP": ip}});
        assert!(check_create(&store, &svc("10.0.0.5"), false).is_ok());
        let refused = check_create(&store, &svc("10.96.0.5"), false).unwrap_err();
        assert!(
            refused[0]
                .message
                .ends_with("does not match the current range")
        );
        let dry = check_create(&store, &svc("10.96.0.5"), true).unwrap_err();
        assert!(
            dry[0]
                .message
                .ends_with("The range of valid IPs is 10.0.0.0/24")
        );
        store.put(
            IPADDRESSES,
            "",
            "10.0.0.5",
            ip_address("10.0.0.5", "a", "b"),
        );
        let taken = check_create(&store, &svc("10.0.0.5"), false).unwrap_err();
        assert!(
            taken[0]
                .message
                .ends_with("provided IP is already allocated")
        );
        assert!(check_create(&store, &svc("10.0.0.5"), true).is_ok());
        assert!(check_create(&store, &svc("None"), false).is_ok());
    }
}
