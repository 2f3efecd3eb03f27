//! The ServiceCIDR controller of kube-controller-manager (`servicecidrs`), and the default
//! ServiceCIDR kube-apiserver keeps:
//!
//! - at start-up the API server creates the `kubernetes` ServiceCIDR of its service range
//!   (as field manager `kube-apiserver`) and, as `kubernetes-service-cidr-controller`,
//!   applies its `Ready` condition with only `type` and `status`; it creates it again when it
//!   is gone (its loop passes every ten seconds; the embedded one a second after), applying
//!   `Ready=True` with the message `Kubernetes default Service CIDR is ready`;
//! - every ServiceCIDR not being deleted gets the `networking.k8s.io/service-cidr-finalizer`
//!   finalizer (an update of `kube-controller-manager`) and the condition `Ready=True`,
//!   reason `""`, message `Kubernetes Service CIDR is ready`, applied with force to the status
//!   as `service-cidr-controller` (and applied again only when status, reason or message
//!   differ, so its transition time stays);
//! - a ServiceCIDR being deleted keeps the finalizer while an address of its ranges is in use
//!   that no other ServiceCIDR contains (unless another ServiceCIDR contains its whole ranges),
//!   with `Ready=False`, reason `Terminating`; once none is, the finalizer goes ten seconds
//!   after the deletion began (the grace the real controller gives the allocators).
//!
//! The addresses in use are the IPAddresses managed by `ipallocator.k8s.io` (of the range's
//! family) and the cluster IPs of the Services (whose IPAddresses follow their writes). The network address and the IPv4 broadcast address of a range are not in it.

use std::net::IpAddr;
use std::str::FromStr;
use std::time::Duration;

use serde_json::{Value, json};

use crate::endpoints::fields::{Fields, managers_after};
use crate::endpoints::hooks::Client;
use crate::endpoints::subresource::Endpoint;
use crate::support::fieldmanager::{
    self, ApplyRequest, ManagedFields, Operation, Owner, Scope, Types,
};
use crate::support::meta;
use crate::support::resource::ResourceDef;

/// The finalizer that keeps a ServiceCIDR while addresses of it are in use.
pub const FINALIZER: &str = "networking.k8s.io/service-cidr-finalizer";
/// How long after its deletion began a ServiceCIDR nothing uses keeps the finalizer.
pub const DELETION_GRACE: Duration = Duration::from_secs(10);
/// How long after the default ServiceCIDR is gone the API server creates it again.
pub const RECREATE_AFTER: Duration = Duration::from_secs(1);
/// The default ServiceCIDR, and the service range it holds.
pub const DEFAULT_NAME: &str = "kubernetes";
const DEFAULT_RANGE: &str = crate::registry::service_ips::SERVICE_RANGE;
const GROUP: &str = "networking.k8s.io";
const CIDRS: &str = "servicecidrs";
const READY: &str = "Kubernetes Service CIDR is ready";
const IN_USE: &str = "There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR";
const MANAGED_BY: &str = "ipaddress.kubernetes.io/managed-by";
const FAMILY: &str = "ipaddress.kubernetes.io/ip-family";

/// Whether a change of `group`/`plural` can change what the controller does: the
/// ServiceCIDRs, the IPAddresses and the Services (whose cluster IPs stand for their
/// IPAddresses).
pub fn watches(group: &str, plural: &str) -> bool {
    matches!(
        (group, plural),
        (GROUP, "servicecidrs" | "ipaddresses") | ("", "services")
    )
}

/// A range of addresses: its first address and prefix length, both as 128-bit numbers
/// (IPv4 in the low 32 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Prefix {
    v4: bool,
    base: u128,
    bits: u32,
}

impl Prefix {
    fn parse(text: &str) -> Option<Self> {
        let (ip, bits) = text.split_once('/')?;
        let (v4, address) = address(ip)?;
        let bits: u32 = bits.parse().ok()?;
        let width = if v4 { 32 } else { 128 };
        (bits <= width).then(|| Prefix {
            v4,
            base: address & mask(bits, width),
            bits,
        })
    }

    fn width(self) -> u32 {
        if self.v4 { 32 } else { 128 }
    }

    /// Whether `other` lies inside this range.
    fn contains_prefix(self, other: Prefix) -> bool {
        self.v4 == other.v4
            && self.bits <= other.bits
            && other.base & mask(self.bits, self.width()) == self.base
    }

    /// Whether the range holds `ip` as an allocatable address (not the network address,
    /// nor the IPv4 broadcast address).
    fn holds(self, v4: bool, ip: u128) -> bool {
        let width = self.width();
        let broadcast = self.base | !mask(self.bits, width) & mask(width, width);
        self.v4 == v4
            && ip & mask(self.bits, width) == self.base
            && ip != self.base
            && !(v4 && ip == broadcast)
    }
}

/// The leading `bits` of a `width`-bit number set.
fn mask(bits: u32, width: u32) -> u128 {
    let all = if width == 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    if bits == 0 {
        0
    } else {
        all & !((1u128 << (width - bits)) - 1)
    }
}

/// An address as (IPv4?, number).
fn address(text: &str) -> Option<(bool, u128)> {
    match IpAddr::from_str(text).ok()? {
        IpAddr::V4(v4) => Some((true, u32::from(v4).into())),
        IpAddr::V6(v6) => Some((false, u128::from(v6))),
    }
}

/// A ServiceCIDR's name and ranges.
struct Cidr {
    name: String,
    prefixes: Vec<Prefix>,
}

fn cidrs(client: &dyn Client, def: &ResourceDef) -> Vec<Cidr> {
    let bucket = client.store().bucket(&def.storage_key);
    bucket
        .into_iter()
        .flatten()
        .map(|((_, name), object)| Cidr {
            name: name.clone(),
            prefixes: items(&object["spec"]["cidrs"])
                .filter_map(|c| c.as_str().and_then(Prefix::parse))
                .collect(),
        })
        .collect()
}

fn items(list: &Value) -> impl Iterator<Item = &Value> {
    list.as_array().into_iter().flatten()
}

/// The addresses in use: the allocator's IPAddresses, which the real controller alone reads (a
/// Service's address without one, as a Service created through its status may hold, holds
/// nothing).
fn addresses(client: &dyn Client) -> Vec<(bool, u128)> {
    let mut out = Vec::new();
    if let Some(def) = client.registry().get(GROUP, "v1", "ipaddresses") {
        for ((_, name), ip) in client
            .store()
            .bucket(&def.storage_key)
            .into_iter()
            .flatten()
        {
            let labels = &ip["metadata"]["labels"];
            if labels[MANAGED_BY] != "ipallocator.k8s.io" {
                continue;
            }
            if let Some((v4, n)) = address(name) {
                let family = if v4 { "IPv4" } else { "IPv6" };
                if labels[FAMILY] == family {
                    out.push((v4, n));
                }
            }
        }
    }
    out
}

/// Whether the ServiceCIDR `me` may go: another contains its whole ranges, or no address
/// in use is in its ranges alone.
fn can_delete(all: &[Cidr], me: &Cidr, in_use: &[(bool, u128)]) -> bool {
    let has_parent = me.prefixes.iter().all(|prefix| {
        let containers: Vec<&str> = all
            .iter()
            .filter(|c| c.prefixes.iter().any(|p| p.contains_prefix(*prefix)))
            .map(|c| c.name.as_str())
            .collect();
        !(containers.is_empty() || containers == [me.name.as_str()])
    });
    if has_parent {
        return true;
    }
    !in_use.iter().any(|&(v4, ip)| {
        me.prefixes.iter().any(|p| p.v4 == v4)
            && all
                .iter()
                .filter(|c| c.prefixes.iter().any(|p| p.holds(v4, ip)))
                .map(|c| c.name.as_str())
                .eq([me.name.as_str()])
    })
}

/// Brings every ServiceCIDR up to date: finalizer and `Ready` on the live ones; the state
/// of the deletion of those being deleted.
pub fn sync(client: &mut dyn Client) {
    let Some(def) = client.registry().get(GROUP, "v1", CIDRS) else {
        return;
    };
    let all = cidrs(client, &def);
    // Read only when a ServiceCIDR is being deleted: Services change often.
    let mut in_use: Option<Vec<(bool, u128)>> = None;
    for cidr in &all {
        let Some(object) = client.store().get(&def.storage_key, "", &cidr.name) else {
            continue;
        };
        if !meta::is_deleting(&object) {
            let object = add_finalizer(client, &def, &object);
            set_ready(client, &def, &object, "True", "", READY);
        } else if !can_delete(&all, cidr, in_use.get_or_insert_with(|| addresses(client))) {
            set_ready(client, &def, &object, "False", "Terminating", IN_USE);
        } else {
            let left = grace_left(&object);
            let name = cidr.name.clone();
            if left.is_zero() {
                release(client, &name);
            } else {
                client.later(left, Box::new(move |client| release(client, &name)));
            }
        }
    }
}

/// What is left of the deletion grace of an object being deleted.
fn grace_left(object: &Value) -> Duration {
    let since = object["metadata"]["deletionTimestamp"]
        .as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
    let Some(since) = since else {
        return Duration::ZERO;
    };
    let elapsed = chrono::Utc::now().signed_duration_since(since);
    let grace = chrono::Duration::from_std(DELETION_GRACE).unwrap_or_default();
    (grace - elapsed).to_std().unwrap_or(Duration::ZERO)
}

/// Takes the finalizer off a ServiceCIDR being deleted that nothing holds any more (the
/// grace is over); one that is held again gets its condition instead.
fn release(client: &mut dyn Client, name: &str) {
    let Some(def) = client.registry().get(GROUP, "v1", CIDRS) else {
        return;
    };
    let Some(object) = client.store().get(&def.storage_key, "", name) else {
        return;
    };
    if !meta::is_deleting(&object) || !meta::finalizers(&object).iter().any(|f| f == FINALIZER) {
        return;
    }
    let all = cidrs(client, &def);
    let in_use = addresses(client);
    let Some(me) = all.iter().find(|c| c.name == name) else {
        return;
    };
    if !can_delete(&all, me, &in_use) {
        set_ready(client, &def, &object, "False", "Terminating", IN_USE);
        return;
    }
    let kept: Vec<String> = meta::finalizers(&object)
        .into_iter()
        .filter(|f| f != FINALIZER)
        .collect();
    let mut next = (*object).clone();
    if kept.is_empty() {
        if let Some(m) = next["metadata"].as_object_mut() {
            m.remove("finalizers");
        }
    } else {
        next["metadata"]["finalizers"] = json!(kept);
    }
    let next = updated(&def, &object, next);
    if kept.is_empty() {
        client.remove(&def, "", name, Some(next));
        if name == DEFAULT_NAME {
            client.later(RECREATE_AFTER, Box::new(recreate));
        }
    } else {
        client.put(&def, "", name, next);
    }
}

/// `next` with the managers after the controller's update of the object (a patch of
/// `kube-controller-manager`).
fn updated(def: &ResourceDef, old: &Value, mut next: Value) -> Value {
    let fields = Fields::Update("kube-controller-manager".into());
    managers_after(def, Some(old), &next, None, Endpoint::Main, fields).write_to(&mut next);
    next
}

/// Adds the finalizer to a ServiceCIDR that lacks it; returns the object as stored.
fn add_finalizer(client: &mut dyn Client, def: &ResourceDef, object: &Value) -> Value {
    let mut finalizers = meta::finalizers(object);
    if finalizers.iter().any(|f| f == FINALIZER) {
        return object.clone();
    }
    finalizers.push(FINALIZER.into());
    let mut next = object.clone();
    next["metadata"]["finalizers"] = json!(finalizers);
    let next = updated(def, object, next);
    let name = meta::meta_str(object, "name")
        .unwrap_or_default()
        .to_string();
    (*client.put(def, "", &name, next)).clone()
}

/// Applies the `Ready` condition as `service-cidr-controller` unless the current one says
/// the same (status, reason and message).
fn set_ready(
    client: &mut dyn Client,
    def: &ResourceDef,
    object: &Value,
    status: &str,
    reason: &str,
    message: &str,
) {
    let current = items(&object["status"]["conditions"]).find(|c| c["type"] == "Ready");
    let same = current.is_some_and(|c| {
        c["status"] == status
            && c["reason"].as_str().unwrap_or_default() == reason
            && c["message"].as_str().unwrap_or_default() == message
    });
    if same {
        return;
    }
    let condition = json!({"type": "Ready", "status": status, "reason": reason,
        "message": message, "lastTransitionTime": meta::now()});
    apply_status(client, def, object, "service-cidr-controller", condition);
}

/// Applies (with force) a status holding only `condition` to `object`, as `manager`.
fn apply_status(
    client: &mut dyn Client,
    def: &ResourceDef,
    object: &Value,
    manager: &str,
    condition: Value,
) {
    let name = meta::meta_str(object, "name")
        .unwrap_or_default()
        .to_string();
    let config = json!({"apiVersion": def.api_version(), "kind": def.kind,
        "metadata": {"name": name}, "status": {"conditions": [condition]}});
    let request = ApplyRequest {
        owner: Owner {
            manager: manager.into(),
            operation: Operation::Apply,
            api_version: def.api_version(),
            subresource: "status".into(),
        },
        force: true,
        scope: Scope::OnlyStatus,
    };
    let managed = ManagedFields::of_object(object).unwrap_or_default();
    let mut live = object.clone();
    if let Some(m) = live["metadata"].as_object_mut() {
        m.remove("managedFields");
    }
    let applied = fieldmanager::apply(
        Types::of(def),
        Some(&live),
        managed,
        &config,
        &request,
        &meta::now(),
    );
    let Ok((mut next, managers)) = applied else {
        tracing::warn!(name, "the ServiceCIDR status could not be applied");
        return;
    };
    next["metadata"] = object["metadata"].clone();
    managers.write_to(&mut next);
    if next != *object {
        client.put(def, "", &name, next);
    }
}

/// What kube-apiserver does at start-up: creates the default ServiceCIDR of its service
/// range and applies its `Ready` condition (its type and status only: the controller's
/// later apply takes the rest); the controller then protects it as any other.
pub fn started(client: &mut dyn Client) {
    create_default(client, json!({"type": "Ready", "status": "True"}));
}

/// What the API server's default-ServiceCIDR loop does once the default ServiceCIDR is gone
/// (on its next pass; it passes every ten seconds, the embedded one a second after): creates
/// it again and applies `Ready=True` with its own message, which the controller's apply then
/// overrides.
fn recreate(client: &mut dyn Client) {
    let condition = json!({"type": "Ready", "status": "True",
        "message": "Kubernetes default Service CIDR is ready", "lastTransitionTime": meta::now()});
    create_default(client, condition);
}

/// Creates the default ServiceCIDR (as `kube-apiserver`) unless it exists, applies
/// `condition` to its status as `kubernetes-service-cidr-controller`, and syncs.
fn create_default(client: &mut dyn Client, condition: Value) {
    let Some(def) = client.registry().get(GROUP, "v1", CIDRS) else {
        return;
    };
    if client
        .store()
        .get(&def.storage_key, "", DEFAULT_NAME)
        .is_some()
    {
        return;
    }
    let object = json!({"apiVersion": def.api_version(), "kind": def.kind,
        "metadata": {"name": DEFAULT_NAME}, "spec": {"cidrs": [DEFAULT_RANGE]}});
    match client.create(&def, "", object, "kube-apiserver") {
        Ok(created) => {
            let manager = "kubernetes-service-cidr-controller";
            apply_status(client, &def, &created, manager, condition);
        }
        Err(e) => tracing::warn!(error = %e, "the default ServiceCIDR was refused"),
    }
    sync(client);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cidr(name: &str, ranges: &[&str]) -> Cidr {
        Cidr {
            name: name.into(),
            prefixes: ranges.iter().filter_map(|r| Prefix::parse(r)).collect(),
        }
    }

    #[test]
    fn ranges_hold_their_addresses_but_network_and_broadcast() {
        let p = Prefix::parse("10.201.0.0/24").unwrap();
        let ip = |s: &str| address(s).unwrap().1;
        assert!(p.holds(true, ip("10.201.0.5")));
        assert!(!p.holds(true, ip("10.201.0.0")));
        assert!(!p.holds(true, ip("10.201.0.255")));
        assert!(!p.holds(true, ip("10.202.0.5")));
        let v6 = Prefix::parse("fd00::/64").unwrap();
        assert!(v6.holds(false, address("fd00::ffff").unwrap().1));
        assert!(!v6.holds(true, ip("10.201.0.5")));
        assert!(Prefix::parse("10.0.0.0/8").unwrap().contains_prefix(p));
        assert!(!p.contains_prefix(Prefix::parse("10.0.0.0/8").unwrap()));
        assert_eq!(Prefix::parse("10.0.0.0/33"), None);
    }

    #[test]
    fn a_range_in_use_alone_cannot_go() {
        let me = cidr("a", &["10.201.0.0/24"]);
        let used = [address("10.201.0.5").unwrap()];
        assert!(!can_delete(&[cidr("a", &["10.201.0.0/24"])], &me, &used));
        assert!(can_delete(&[cidr("a", &["10.201.0.0/24"])], &me, &[]));
        // A range another contains whole may go; so may one whose addresses another holds.
        let parent = [cidr("a", &["10.201.0.0/24"]), cidr("b", &["10.0.0.0/8"])];
        assert!(can_delete(&parent, &me, &used));
        let overlap = [cidr("a", &["10.201.0.0/24"]), cidr("b", &["10.201.0.0/28"])];
        assert!(can_delete(&overlap, &me, &used));
        assert!(!can_delete(
            &overlap,
            &me,
            &[address("10.201.0.99").unwrap()]
        ));
    }
}
