//! The node ports a Service being created asks for, taken by the Service REST's allocator
//! before the strategy validates anything (`txnAllocNodePorts` of `allocateCreate`): each
//! port's requested `nodePort` (one per port number: a later entry of the same number shares
//! the first one's), then the requested `healthCheckNodePort` of a load balancer that keeps
//! traffic local. A port out of the node port range (30000-32767) or held already (by another
//! Service, or earlier in the same request) is refused: a `spec.ports` entry with 422 naming
//! the field, the health check port with 500. A dry run only checks the ports held, as the
//! dry-run allocation does. An update takes only what the stored object did not hold. The
//! ports are written later ([`super::allocate::service`]).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::registry::builtin::validation::errors::invalid;
use crate::registry::validation::Errors;
use crate::storage::Store;

const SERVICES: &str = "/services";
/// The node port range of a kube-apiserver with the default `--service-node-port-range`.
const RANGE: std::ops::RangeInclusive<i64> = 30000..=32767;
const NOT_IN_RANGE: &str =
    "provided port is not in the valid range. The range of valid ports is 30000-32767";
const ALLOCATED: &str = "provided port is already allocated";

/// Why the allocator refused a Service's node ports.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    /// A requested port of `spec.ports` (422 Invalid).
    Invalid(Errors),
    /// The requested health check port (500 InternalError with this message).
    Internal(String),
}

/// The node ports the stored Services hold (their ports' and their health check ports).
pub fn held(store: &Store) -> HashSet<i64> {
    let mut ports = HashSet::new();
    for svc in store.bucket(SERVICES).into_iter().flat_map(|b| b.values()) {
        for p in svc["spec"]["ports"].as_array().into_iter().flatten() {
            ports.extend(p["nodePort"].as_i64());
        }
        ports.extend(svc["spec"]["healthCheckNodePort"].as_i64());
    }
    ports
}

/// One allocation operation: the ports held before it and those it took.
struct Operation {
    held: HashSet<i64>,
    taken: HashSet<i64>,
    dry_run: bool,
}

impl Operation {
    /// An operation over the ports the stored Services hold.
    fn new(store: &Store, dry_run: bool) -> Self {
        Operation {
            held: held(store),
            taken: HashSet::new(),
            dry_run,
        }
    }

    /// `PortAllocationOperation.Allocate` of a requested `port`.
    fn allocate(&mut self, port: i64) -> Result<(), &'static str> {
        if !self.dry_run && !RANGE.contains(&port) {
            return Err(NOT_IN_RANGE);
        }
        if self.held.contains(&port) || !self.taken.insert(port) {
            return Err(ALLOCATED);
        }
        Ok(())
    }

    /// `AllocateNext`: a free port of the range (none is left unchecked here: a full range
    /// is not modelled).
    fn allocate_next(&mut self) {
        if self.dry_run {
            return;
        }
        if let Some(free) = RANGE
            .rev()
            .find(|p| !self.held.contains(p) && !self.taken.contains(p))
        {
            self.taken.insert(free);
        }
    }
}

/// The allocator's check of the node ports of `object`, a Service being created (its IP
/// family fields already settled).
pub fn check_create(store: &Store, object: &Value, dry_run: bool) -> Result<(), Refusal> {
    let spec = &object["spec"];
    let kind = spec["type"].as_str().unwrap_or("ClusterIP");
    let mut op = Operation::new(store, dry_run);
    if matches!(kind, "NodePort" | "LoadBalancer") {
        node_ports(spec, kind, &mut op).map_err(Refusal::Invalid)?;
    }
    if needs_health_check(spec) {
        health_check_port(spec, &mut op)?;
    }
    Ok(())
}

/// Whether a Service of this spec gets a health check port (`NeedsHealthCheck`).
fn needs_health_check(spec: &Value) -> bool {
    spec["type"] == "LoadBalancer" && spec["externalTrafficPolicy"] == "Local"
}

/// The requested health check port of `spec`, allocated (`allocHealthCheckNodePort`).
fn health_check_port(spec: &Value, op: &mut Operation) -> Result<(), Refusal> {
    match spec["healthCheckNodePort"].as_i64().unwrap_or(0) {
        0 => {
            op.allocate_next();
            Ok(())
        }
        port => op.allocate(port).map_err(|why| {
            Refusal::Internal(format!(
                "failed to allocate requested HealthCheck NodePort {port}: {why}"
            ))
        }),
    }
}

/// The allocator's check of the node ports of `object`, an update of the stored `old`
/// (`txnUpdateNodePorts`): a port's node port the old object did not have is taken (422 when
/// refused); a health check port only when the update makes the Service need one (500).
pub fn check_update(
    store: &Store,
    object: &Value,
    old: &Value,
    dry_run: bool,
) -> Result<(), Refusal> {
    let (spec, old_spec) = (&object["spec"], &old["spec"]);
    let kind = spec["type"].as_str().unwrap_or("ClusterIP");
    let mut op = Operation::new(store, dry_run);
    if matches!(kind, "NodePort" | "LoadBalancer") {
        let allocates = kind == "NodePort" || spec["allocateLoadBalancerNodePorts"] != false;
        let node_port = |p: &Value| p["nodePort"].as_i64().unwrap_or(0);
        let old_ports: HashSet<i64> = old_spec["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .map(node_port)
            .filter(|n| *n != 0)
            .collect();
        let ports = spec["ports"].as_array().map_or(&[][..], Vec::as_slice);
        for (i, p) in ports.iter().enumerate() {
            match node_port(p) {
                0 if allocates => op.allocate_next(),
                0 => {}
                n if old_ports.contains(&n) || op.taken.contains(&n) => {}
                n => op.allocate(n).map_err(|why| {
                    Refusal::Invalid(vec![invalid(
                        &format!("spec.ports[{i}].nodePort"),
                        &n.into(),
                        why,
                    )])
                })?,
            }
        }
    }
    if !needs_health_check(old_spec) && needs_health_check(spec) {
        health_check_port(spec, &mut op)?;
    }
    Ok(())
}

/// `initNodePorts`: the ports' node ports, one per port number.
fn node_ports(spec: &Value, kind: &str, op: &mut Operation) -> Result<(), Errors> {
    let ports = spec["ports"].as_array().map_or(&[][..], Vec::as_slice);
    let allocates = kind == "NodePort" || spec["allocateLoadBalancerNodePorts"] != false;
    let node_port = |p: &Value| p["nodePort"].as_i64().unwrap_or(0);
    let mut by_port: HashMap<i64, i64> = HashMap::new();
    for (i, p) in ports.iter().enumerate() {
        let (number, asked) = (p["port"].as_i64().unwrap_or(0), node_port(p));
        if asked == 0 && !allocates {
            continue;
        }
        let refused = |port: i64, why: &str| {
            vec![invalid(
                &format!("spec.ports[{i}].nodePort"),
                &port.into(),
                why,
            )]
        };
        match by_port.get(&number) {
            None => {
                let requested = ports
                    .iter()
                    .filter(|q| q["port"].as_i64().unwrap_or(0) == number)
                    .map(node_port)
                    .find(|n| *n != 0);
                match requested {
                    Some(n) => {
                        op.allocate(n).map_err(|why| refused(n, why))?;
                        by_port.insert(number, n);
                    }
                    None => {
                        op.allocate_next();
                        by_port.insert(number, -1);
                    }
                }
            }
            Some(first) if asked != 0 && asked != *first => {
                op.allocate(asked).map_err(|why| refused(asked, why))?;
            }
            Some(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn service(spec: Value) -> Value {
        json!({"spec": spec})
    }

    #[test]
    fn requested_ports_are_checked_for_range_and_holders() {
        let mut store = Store::new(10);
        let lb = |hc: i64| {
            service(
                json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local",
                "healthCheckNodePort": hc, "ports": [{"port": 80}]}),
            )
        };
        assert_eq!(
            check_create(&store, &lb(80), false),
            Err(Refusal::Internal(format!(
                "failed to allocate requested HealthCheck NodePort 80: {NOT_IN_RANGE}"
            )))
        );
        assert_eq!(check_create(&store, &lb(80), true), Ok(()));
        let twice = service(json!({"type": "NodePort", "ports": [
            {"port": 80, "nodePort": 81}, {"port": 81, "nodePort": 81}]}));
        let Err(Refusal::Invalid(causes)) = check_create(&store, &twice, true) else {
            panic!("a port taken twice is refused");
        };
        assert_eq!(causes[0].field, "spec.ports[1].nodePort");
        assert!(causes[0].message.ends_with(ALLOCATED));
        let shared = service(json!({"type": "NodePort", "ports": [
            {"port": 80, "nodePort": 30100}, {"port": 80, "protocol": "UDP", "nodePort": 30100}]}));
        assert_eq!(check_create(&store, &shared, false), Ok(()));
        store.put(SERVICES, "ns", "held", shared);
        let old = service(json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 30200}]}));
        let moved =
            service(json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 30100}]}));
        let Err(Refusal::Invalid(causes)) = check_update(&store, &moved, &old, false) else {
            panic!("a port another Service holds is refused on update");
        };
        assert!(causes[0].message.ends_with(ALLOCATED));
        assert_eq!(check_update(&store, &old, &old, false), Ok(()));
        assert_eq!(
            check_create(&store, &lb(30100), true),
            Err(Refusal::Internal(format!(
                "failed to allocate requested HealthCheck NodePort 30100: {ALLOCATED}"
            )))
        );
    }
}
