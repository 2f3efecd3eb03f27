//! The node ports of a Service, as the Service REST's allocator hands them out before the
//! strategy validates anything (`txnAllocNodePorts`, `txnUpdateNodePorts`).
//!
//! On create each port gets a node port, one per port number (a later entry of the same number
//! shares the first one's); a load balancer that keeps traffic local then gets its health check
//! port. A requested port out of the node port range (30000-32767) or held already (by another
//! Service, or earlier in the same request) is refused: a `spec.ports` entry with 422 naming the
//! field, the health check port with 500; so is a request when the range is full (500). An update
//! first keeps the node ports the stored object had for the ports it omits them in (matched by
//! port name, `patchAllocatedValues`), takes only what the stored object did not hold, and refuses
//! the same node port twice for one protocol (a 500 without a reason).
//!
//! A dry run only checks the ports held, and hands out what the dry-run allocator makes up: one
//! past the highest port the request has taken so far, 32769 for its first.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use crate::registry::builtin::validation::errors::invalid;
use crate::registry::validation::Errors;
use crate::storage::Store;

const SERVICES: &str = "/services";
/// The node port range of a kube-apiserver with the default `--service-node-port-range`.
const RANGE: std::ops::RangeInclusive<i64> = 30000..=32767;
/// The last node port of the range's static band (30000 + min(max(16, 2768/32), 128) - 1):
/// ports handed out without a request come from above it first.
const STATIC_BAND_END: i64 = 30085;
/// The first port a dry run makes up (one past the range's end plus one, as the dry-run
/// allocator guesses).
const DRY_RUN_FIRST: i64 = 32769;
const NOT_IN_RANGE: &str =
    "provided port is not in the valid range. The range of valid ports is 30000-32767";
const ALLOCATED: &str = "provided port is already allocated";
const FULL: &str = "range is full";

/// Why the allocator refused a Service's node ports.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    /// A requested port of `spec.ports` (422 Invalid).
    Invalid(Errors),
    /// The requested health check port, or a full range (500 InternalError with this
    /// message).
    Internal(String),
    /// The same node port twice for one protocol on update: a plain error of the REST,
    /// answered as a 500 without a reason.
    Failed(String),
}

/// The node ports an allocation gives a Service: one per entry of `spec.ports` (`None` where
/// the entry gets none) and its health check port, if it takes one.
#[derive(Debug, Default, PartialEq)]
pub struct Allocation {
    ports: Vec<Option<i64>>,
    health_check: Option<i64>,
}

impl Allocation {
    /// Writes the node ports into `spec`, the Service's spec they were allocated for.
    pub fn write(&self, spec: &mut Value) {
        if let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut) {
            for (p, n) in ports.iter_mut().zip(&self.ports) {
                if let (Some(n), Some(p)) = (n, p.as_object_mut()) {
                    p.insert("nodePort".into(), json!(n));
                }
            }
        }
        if let Some(n) = self.health_check {
            spec["healthCheckNodePort"] = json!(n);
        }
    }
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

/// One allocation operation (`PortAllocationOperation`): the ports held before it and those
/// it took, in order.
struct Operation {
    held: HashSet<i64>,
    taken: HashSet<i64>,
    order: Vec<i64>,
    /// How far the search for a free port got (an index into the search order).
    searched: usize,
    dry_run: bool,
}

impl Operation {
    /// An operation over the ports the stored Services hold.
    fn new(store: &Store, dry_run: bool) -> Self {
        Operation {
            held: held(store),
            taken: HashSet::new(),
            order: Vec::new(),
            searched: 0,
            dry_run,
        }
    }

    fn take(&mut self, port: i64) {
        self.taken.insert(port);
        self.order.push(port);
    }

    /// `Allocate` of a requested `port`.
    fn allocate(&mut self, port: i64) -> Result<(), &'static str> {
        if !self.dry_run && !RANGE.contains(&port) {
            return Err(NOT_IN_RANGE);
        }
        if self.held.contains(&port) || self.taken.contains(&port) {
            return Err(ALLOCATED);
        }
        self.take(port);
        Ok(())
    }

    /// `AllocateNext`: a free port, from above the static band first (the real allocator
    /// picks at random there); in a dry run, one past the highest taken so far.
    fn allocate_next(&mut self) -> Result<i64, &'static str> {
        let next = if self.dry_run {
            self.order
                .iter()
                .max()
                .map_or(DRY_RUN_FIRST, |last| last + 1)
        } else {
            // Ports are only ever taken within an operation: the search resumes where the
            // last one stopped.
            let upper = (STATIC_BAND_END + 1)..=*RANGE.end();
            let order = upper.chain(*RANGE.start()..=STATIC_BAND_END);
            let free = order
                .enumerate()
                .skip(self.searched)
                .find(|(_, p)| !self.held.contains(p) && !self.taken.contains(p));
            let (at, port) = free.ok_or(FULL)?;
            self.searched = at + 1;
            port
        };
        self.take(next);
        Ok(next)
    }
}

fn node_port(p: &Value) -> i64 {
    p["nodePort"].as_i64().unwrap_or(0)
}

fn ports(spec: &Value) -> &[Value] {
    spec["ports"].as_array().map_or(&[][..], Vec::as_slice)
}

/// Whether a Service of this spec gets node ports (`needsNodePort`).
fn needs_node_ports(spec: &Value) -> bool {
    matches!(spec["type"].as_str(), Some("NodePort" | "LoadBalancer"))
}

/// Whether ports without a requested node port get one (`shouldAllocateNodePorts`).
fn allocates(spec: &Value) -> bool {
    spec["type"] == "NodePort" || spec["allocateLoadBalancerNodePorts"] != false
}

/// Whether a Service of this spec gets a health check port (`NeedsHealthCheck`).
fn needs_health_check(spec: &Value) -> bool {
    spec["type"] == "LoadBalancer" && spec["externalTrafficPolicy"] == "Local"
}

fn refused(i: usize, port: i64, why: &str) -> Refusal {
    Refusal::Invalid(vec![invalid(
        &format!("spec.ports[{i}].nodePort"),
        &port.into(),
        why,
    )])
}

fn next_node_port(op: &mut Operation) -> Result<i64, Refusal> {
    op.allocate_next()
        .map_err(|why| Refusal::Internal(format!("failed to allocate a nodePort: {why}")))
}

/// The allocation of `object`, a Service being created (its IP family fields already
/// settled).
pub fn allocate_create(
    store: &Store,
    object: &Value,
    dry_run: bool,
) -> Result<Allocation, Refusal> {
    let spec = &object["spec"];
    let mut op = Operation::new(store, dry_run);
    let mut allocation = Allocation::default();
    if needs_node_ports(spec) {
        allocation.ports = init_node_ports(spec, &mut op)?;
    }
    if needs_health_check(spec) {
        allocation.health_check = health_check_port(spec, &mut op)?;
    }
    Ok(allocation)
}

/// `initNodePorts`: the ports' node ports, one per port number.
fn init_node_ports(spec: &Value, op: &mut Operation) -> Result<Vec<Option<i64>>, Refusal> {
    let ports = ports(spec);
    let mut by_number: HashMap<i64, i64> = HashMap::new();
    let mut out = Vec::with_capacity(ports.len());
    for (i, p) in ports.iter().enumerate() {
        let (number, asked) = (p["port"].as_i64().unwrap_or(0), node_port(p));
        if asked == 0 && !allocates(spec) {
            out.push(None);
            continue;
        }
        let given = match by_number.get(&number) {
            None => {
                let requested = ports
                    .iter()
                    .filter(|q| q["port"].as_i64().unwrap_or(0) == number)
                    .map(node_port)
                    .find(|n| *n != 0);
                let n = match requested {
                    Some(n) => {
                        op.allocate(n).map_err(|why| refused(i, n, why))?;
                        n
                    }
                    None => next_node_port(op)?,
                };
                by_number.insert(number, n);
                n
            }
            Some(&first) if asked == 0 => first,
            Some(&first) => {
                if asked != first {
                    op.allocate(asked).map_err(|why| refused(i, asked, why))?;
                }
                asked
            }
        };
        out.push(Some(given));
    }
    Ok(out)
}

/// The health check port of `spec` (`allocHealthCheckNodePort`): the one requested, or the
/// next free one.
fn health_check_port(spec: &Value, op: &mut Operation) -> Result<Option<i64>, Refusal> {
    match spec["healthCheckNodePort"].as_i64().unwrap_or(0) {
        0 => op.allocate_next().map(Some).map_err(|why| {
            Refusal::Internal(format!(
                "failed to allocate a HealthCheck NodePort 0: {why}"
            ))
        }),
        port => op.allocate(port).map(|()| None).map_err(|why| {
            Refusal::Internal(format!(
                "failed to allocate requested HealthCheck NodePort {port}: {why}"
            ))
        }),
    }
}

/// The node-port part of `patchAllocatedValues`: while both need node ports, a port of the
/// update without one keeps the stored port's of the same name, unless the update gives that
/// node port to a port already; the health check port likewise while both need one.
pub fn keep_allocated(spec: &mut Value, old: &Value) {
    if needs_node_ports(old) && needs_node_ports(spec) {
        let numbers = |s: &Value| -> HashSet<i64> {
            ports(s).iter().map(node_port).filter(|n| *n != 0).collect()
        };
        let used: HashSet<i64> = numbers(old).intersection(&numbers(spec)).copied().collect();
        let by_name: HashMap<&str, i64> = ports(old)
            .iter()
            .map(|p| (p["name"].as_str().unwrap_or_default(), node_port(p)))
            .collect();
        if let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut) {
            for p in ports.iter_mut().filter(|p| node_port(p) == 0) {
                let name = p["name"].as_str().unwrap_or_default();
                match by_name.get(name) {
                    Some(&n) if n != 0 && !used.contains(&n) => p["nodePort"] = json!(n),
                    _ => {}
                }
            }
        }
    }
    if needs_health_check(old)
        && needs_health_check(spec)
        && spec["healthCheckNodePort"].as_i64().unwrap_or(0) == 0
        && old["healthCheckNodePort"].as_i64().unwrap_or(0) != 0
    {
        spec["healthCheckNodePort"] = old["healthCheckNodePort"].clone();
    }
}

/// The allocation of `object`, an update of the stored `old` whose allocated values it keeps
/// already ([`keep_allocated`]): a port's node port the old object did not hold is taken (422
/// when refused), a port without one gets the next free one, and a health check port is
/// taken only when the update makes the Service need one (500).
pub fn allocate_update(
    store: &Store,
    object: &Value,
    old: &Value,
    dry_run: bool,
) -> Result<Allocation, Refusal> {
    let (spec, old_spec) = (&object["spec"], &old["spec"]);
    let mut op = Operation::new(store, dry_run);
    let mut allocation = Allocation::default();
    if needs_node_ports(spec) {
        allocation.ports = update_node_ports(spec, old_spec, &mut op)?;
    }
    if !needs_health_check(old_spec) && needs_health_check(spec) {
        allocation.health_check = health_check_port(spec, &mut op)?;
    }
    Ok(allocation)
}

/// `updateNodePorts`.
fn update_node_ports(
    spec: &Value,
    old: &Value,
    op: &mut Operation,
) -> Result<Vec<Option<i64>>, Refusal> {
    let old_numbers: HashSet<i64> = ports(old).iter().map(node_port).collect();
    let mut asked_here = HashSet::new();
    let mut seen: Vec<(&str, i64)> = Vec::new();
    let mut out = Vec::new();
    for (i, p) in ports(spec).iter().enumerate() {
        let n = match node_port(p) {
            0 if !allocates(spec) => {
                out.push(None);
                continue;
            }
            0 => next_node_port(op)?,
            n => {
                if !old_numbers.contains(&n) && asked_here.insert(n) {
                    op.allocate(n).map_err(|why| refused(i, n, why))?;
                }
                n
            }
        };
        let protocol = p["protocol"].as_str().unwrap_or("TCP");
        if seen.contains(&(protocol, n)) {
            return Err(Refusal::Failed(format!(
                "duplicate nodePort: {{{protocol} {n}}}"
            )));
        }
        seen.push((protocol, n));
        out.push(Some(n));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn service(spec: Value) -> Value {
        json!({"spec": spec})
    }

    fn checked(result: Result<Allocation, Refusal>) -> Result<(), Refusal> {
        result.map(drop)
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
            checked(allocate_create(&store, &lb(80), false)),
            Err(Refusal::Internal(format!(
                "failed to allocate requested HealthCheck NodePort 80: {NOT_IN_RANGE}"
            )))
        );
        assert_eq!(checked(allocate_create(&store, &lb(80), true)), Ok(()));
        let twice = service(json!({"type": "NodePort", "ports": [
            {"port": 80, "nodePort": 81}, {"port": 81, "nodePort": 81}]}));
        let Err(Refusal::Invalid(causes)) = allocate_create(&store, &twice, true) else {
            panic!("a port taken twice is refused");
        };
        assert_eq!(causes[0].field, "spec.ports[1].nodePort");
        assert!(causes[0].message.ends_with(ALLOCATED));
        let shared = service(json!({"type": "NodePort", "ports": [
            {"port": 80, "nodePort": 30100}, {"port": 80, "protocol": "UDP", "nodePort": 30100}]}));
        assert_eq!(checked(allocate_create(&store, &shared, false)), Ok(()));
        store.put(SERVICES, "ns", "held", shared);
        let old = service(json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 30200}]}));
        let moved =
            service(json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 30100}]}));
        let Err(Refusal::Invalid(causes)) = allocate_update(&store, &moved, &old, false) else {
            panic!("a port another Service holds is refused on update");
        };
        assert!(causes[0].message.ends_with(ALLOCATED));
        assert_eq!(checked(allocate_update(&store, &old, &old, false)), Ok(()));
        assert_eq!(
            checked(allocate_create(&store, &lb(30100), true)),
            Err(Refusal::Internal(format!(
                "failed to allocate requested HealthCheck NodePort 30100: {ALLOCATED}"
            )))
        );
    }

    #[test]
    fn ports_are_handed_out_once_per_port_number() {
        let store = Store::new(10);
        let svc = service(
            json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local",
            "ports": [{"port": 80}, {"port": 81, "nodePort": 30100}, {"port": 80, "protocol": "UDP"}]}),
        );
        let real = allocate_create(&store, &svc, false).expect("allocated");
        assert_eq!(real.ports, [Some(30086), Some(30100), Some(30086)]);
        assert_eq!(real.health_check, Some(30087));
        // A dry run makes its ports up: one past the highest taken, 32769 for the first.
        let dry = allocate_create(&store, &svc, true).expect("allocated");
        assert_eq!(dry.ports, [Some(32769), Some(30100), Some(32769)]);
        assert_eq!(dry.health_check, Some(32770));
        let mut written = svc.clone();
        dry.write(&mut written["spec"]);
        assert_eq!(written["spec"]["ports"][2]["nodePort"], 32769);
        assert_eq!(written["spec"]["healthCheckNodePort"], 32770);
    }

    #[test]
    fn a_full_range_refuses_what_needs_a_port() {
        let mut store = Store::new(10);
        let all: Vec<Value> = RANGE.map(|n| json!({"port": n, "nodePort": n})).collect();
        store.put(
            SERVICES,
            "ns",
            "all",
            service(json!({"type": "NodePort", "ports": all})),
        );
        let one = service(json!({"type": "NodePort", "ports": [{"port": 80}]}));
        assert_eq!(
            checked(allocate_create(&store, &one, false)),
            Err(Refusal::Internal(format!(
                "failed to allocate a nodePort: {FULL}"
            )))
        );
        assert_eq!(checked(allocate_create(&store, &one, true)), Ok(()));
        let local = service(
            json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local",
            "allocateLoadBalancerNodePorts": false, "ports": [{"port": 80}]}),
        );
        assert_eq!(
            checked(allocate_create(&store, &local, false)),
            Err(Refusal::Internal(format!(
                "failed to allocate a HealthCheck NodePort 0: {FULL}"
            )))
        );
    }

    #[test]
    fn an_update_keeps_node_ports_by_name_and_refuses_one_twice() {
        let store = Store::new(10);
        let old = service(json!({"type": "NodePort", "ports": [
            {"name": "a", "port": 80, "nodePort": 30400}]}));
        let mut renamed = service(json!({"type": "NodePort", "ports": [
            {"name": "a", "port": 81}, {"name": "z", "port": 80}]}));
        keep_allocated(&mut renamed["spec"], &old["spec"]);
        assert_eq!(renamed["spec"]["ports"][0]["nodePort"], 30400);
        assert!(renamed["spec"]["ports"][1].get("nodePort").is_none());
        let twice = service(json!({"type": "NodePort", "ports": [
            {"name": "a", "port": 80, "nodePort": 30400},
            {"name": "b", "port": 81, "nodePort": 30400}]}));
        assert_eq!(
            checked(allocate_update(&store, &twice, &old, true)),
            Err(Refusal::Failed("duplicate nodePort: {TCP 30400}".into()))
        );
        let both = service(json!({"type": "NodePort", "ports": [
            {"name": "a", "port": 80, "nodePort": 30400},
            {"name": "b", "port": 80, "protocol": "UDP", "nodePort": 30400}]}));
        assert_eq!(checked(allocate_update(&store, &both, &old, false)), Ok(()));
    }
}
